import { DataSource } from 'typeorm';
import { EngineBus } from '../engine/engine-bus';
import { EngineHost } from '../engine/engine-host.service';
import { MarketInfo, MarketRegistry } from '../engine/market-registry.service';
import { MarkPriceService } from './mark-price.service';

/** The process holding the books: the price now is read here (`markFromOwner` runs `local`). */
const fakeHost = (last: () => number) =>
  ({
    owner: true,
    lastTradePrice: last,
    // No lease here (its fencing is tested in engine-lease.spec).
    fencingToken: () => undefined,
    answerMarks: () => undefined,
    whenStopped: () => undefined,
    markFromOwner: (_id: number, local: () => Promise<unknown>) => local(),
  }) as unknown as EngineHost;

/**
 * The service with its ticks' inserts answered by `insert` instead of their own connection, one at a
 * time in order as that connection runs them (OwnConnection, tested in engine-lease.spec).
 */
function withTicks(marks: MarkPriceService, insert: (sql: string, params: unknown[]) => Promise<Array<{ id: string }>>): MarkPriceService {
  let last: Promise<unknown> = Promise.resolve();
  const query = (sql: string, params: unknown[]) => {
    const run = last.then(async () => ({ rows: await insert(sql, params), rowCount: 1 }));
    last = run.catch(() => undefined);
    return run;
  };
  return Object.assign(marks, { ticks: { query, drain: () => last.then(() => undefined), close: async () => undefined } });
}

describe('MarkPriceService: recording ticks', () => {
  it('writes one tick at a time, so ids commit in the order they were taken (regression: a deal tick and a sample raced and the watcher passed the later-committing one)', async () => {
    const market = { id: 1, base: { symbol: 'BTC' }, engine: { ticksToPrice: (t: number) => String(t) } } as unknown as MarketInfo;
    const events: string[] = [];
    const gates: Array<() => void> = [];
    let id = 0;
    const dataSource = {
      query: async (sql: string, params: unknown[]) => {
        if (sql.startsWith('SELECT')) return [{ id: '1', price: '100', ts: new Date() }]; // a fresh recorded tick
        const mine = String(++id);
        events.push(`start ${mine} ${params[3]}`);
        await new Promise<void>((r) => gates.push(r));
        events.push(`commit ${mine}`);
        return [{ id: mine }];
      },
    } as unknown as DataSource;
    const registry = { all: () => [market] } as unknown as MarketRegistry;
    let last = 101;
    const host = fakeHost(() => last);
    const bus = { emit: () => undefined } as unknown as EngineBus;
    const marks = withTicks(new MarkPriceService(dataSource, registry, host, bus), dataSource.query.bind(dataSource));

    const sample = marks.sample();
    last = 102;
    const deal = marks.now(market);
    await new Promise((r) => setImmediate(r));
    expect(events).toEqual(['start 1 sample']); // the deal's insert waits for the sample's
    gates.shift()!();
    await sample;
    await new Promise((r) => setImmediate(r));
    expect(events).toEqual(['start 1 sample', 'commit 1', 'start 2 deal']);
    gates.shift()!();
    expect(await deal).toMatchObject({ id: '2', price: '102' });
  });

  it('a sample reads every market’s price at its time before any insert waits (regression: the next market’s price was read after the previous insert, seconds later)', async () => {
    const markets = [1, 2].map((id) => ({ id, base: { symbol: `C${id}` }, engine: { ticksToPrice: (t: number) => String(t) } })) as unknown as MarketInfo[];
    const gates: Array<() => void> = [];
    const dataSource = {
      query: async (_sql: string, params: unknown[]) => {
        await new Promise<void>((r) => gates.push(r));
        return [{ id: String(params[0]) }];
      },
    } as unknown as DataSource;
    const registry = { all: () => markets } as unknown as MarketRegistry;
    let last = 100;
    const host = fakeHost(() => last);
    const marks = withTicks(
      new MarkPriceService(dataSource, registry, host, { emit: () => undefined } as unknown as EngineBus),
      dataSource.query.bind(dataSource),
    );
    const at = Date.now();
    const sample = marks.sample(at);
    last = 105; // the market moves while the first insert waits
    await new Promise((r) => setImmediate(r));
    while (gates.length) {
      gates.shift()!();
      await new Promise((r) => setImmediate(r));
    }
    const ticks = await sample;
    expect(ticks.map((k) => [k.marketId, k.price, k.ts])).toEqual([
      [1, '100', at],
      [2, '100', at],
    ]);
  });

  it('every market of a sample run is written however many there are; a run finding three earlier ones still waiting (the database not keeping up) is dropped whole, and a deal tick still queues', async () => {
    const markets = Array.from({ length: 12 }, (_, k) => ({
      id: k + 1,
      symbol: `C${k + 1}/USDT`,
      base: { symbol: `C${k + 1}` },
      engine: { ticksToPrice: (t: number) => String(t) },
    })) as unknown as MarketInfo[];
    const gates: Array<() => void> = [];
    const inserted: unknown[][] = [];
    const dataSource = { query: async () => [{ id: '1', price: '100', ts: new Date() }] } as unknown as DataSource;
    const registry = { all: () => markets } as unknown as MarketRegistry;
    const marks = withTicks(
      new MarkPriceService(
        dataSource,
        registry,
        fakeHost(() => 101),
        { emit: () => undefined } as unknown as EngineBus,
      ),
      async (_sql, params) => {
        await new Promise<void>((r) => gates.push(r));
        inserted.push(params);
        return [{ id: String(inserted.length + 1) }];
      },
    );
    // Three runs wait on a slow database; the fourth is dropped at once, whole.
    const runs = [marks.sample(), marks.sample(), marks.sample()];
    await expect(marks.sample()).rejects.toThrow(/was dropped: 3 earlier ones wait for the database/);
    const deal = marks.now(markets[0]);
    while (inserted.length < 3 * 12 + 1) {
      await new Promise((r) => setImmediate(r));
      gates.shift()?.();
    }
    expect((await Promise.all(runs)).map((ticks) => ticks.length)).toEqual([12, 12, 12]);
    await expect(deal).resolves.toMatchObject({ price: '101' });
    expect(inserted[inserted.length - 1][3]).toBe('deal');
    // With nothing waiting, the next run is written.
    const next = marks.sample();
    while (inserted.length < 4 * 12 + 1) {
      await new Promise((r) => setImmediate(r));
      gates.shift()?.();
    }
    expect(await next).toHaveLength(12);
  });
});
