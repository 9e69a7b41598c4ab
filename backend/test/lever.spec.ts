import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { moneyString } from '../src/infra/money';
import { QueuesService } from '../src/infra/queue/queues.service';
import { EngineHost } from '../src/modules/engine/engine-host.service';
import type { MarketInfo } from '../src/modules/engine/market-registry.service';
import { LedgerService } from '../src/modules/ledger/ledger.service';
import { TrialBalanceService } from '../src/modules/ledger/trial-balance.service';
import { LeverWatchService } from '../src/modules/lever/lever-watch.service';
import { LeverPosition } from '../src/modules/lever/lever-position.entity';
import { LeverService } from '../src/modules/lever/lever.service';
import { MarkPriceService } from '../src/modules/market/mark-price.service';
import { registerByEmail, setFundPassword } from './support/accounts';
import { deposit } from './support/funding';
import { tickRecorder } from './support/mark-prices';
import { inOpenTransaction } from './support/open-transaction';
import { REDIS_URL, startTestApp, TestApp } from './support/test-app';

const USDT = 3;
const BTC_MARKET = 1;
// The test records the mark-price ticks itself and drives the watcher by hand.
process.env.MARK_PRICE = 'off';

describe('contracts on recorded mark-price ticks (real PostgreSQL + Redis)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ optionWorker: false, flashExchange: { feeRate: '0.002', quoteTtlSeconds: 15, float: { USDT: '1000000' } } });
  });
  afterAll(() => t.close());
  afterEach(async () => expect((await t.app.get(TrialBalanceService).compute()).ok).toBe(true));

  const tick = tickRecorder(() => t, BTC_MARKET);
  const watch = () => t.app.get(LeverWatchService).watch();
  const lever = async (userId: number) => {
    const [b] = await t.ds.query(
      `SELECT available::text, frozen::text FROM balances WHERE owner_type = 'user' AND owner_id = $1 AND account_type = 'lever' AND currency_id = 3`,
      [userId],
    );
    return { available: moneyString(b?.available ?? '0'), frozen: moneyString(b?.frozen ?? '0') };
  };
  const post = (token: string, path: string, body: Record<string, unknown>) =>
    t.http().post(`/api/lever/${path}`).set('Authorization', token).type('form').send(body);
  const open = (token: string, body: Record<string, unknown>) => post(token, 'submit', { symbol: 'BTC/USDT', type: 'market', multiple: 10, ...body });

  async function trader(usdt = '1000', fundPassword = true) {
    const u = await registerByEmail(t);
    if (fundPassword) await setFundPassword(t, u);
    await deposit(t, u.user.id, USDT, usdt);
    expect(
      (
        await t
          .http()
          .post('/api/wallet/change')
          .set('Authorization', u.token)
          .type('form')
          .send({ from: 'coin', to: 'lever', currency_id: USDT, amount: usdt })
      ).body.code,
    ).toBe(1);
    return u;
  }

  it('the spec prompts, each changing nothing', async () => {
    await tick('60000');
    await watch();
    const u = await trader('50');
    const before = (await t.ds.query('SELECT COUNT(*)::int AS n FROM ledger_entries'))[0].n;
    const cases = [
      [{ side: 'long', take_profit: '66000', stop_loss: '55000' }, 'Lots are required'],
      [{ side: 'long', lots: '0', take_profit: '66000', stop_loss: '55000' }, 'Lots must be a whole number of at least 1'],
      [{ side: 'long', lots: '1.5', take_profit: '66000', stop_loss: '55000' }, 'Lots must be a whole number of at least 1'],
      [{ side: 'long', lots: '1', multiple: 7, take_profit: '66000', stop_loss: '55000' }, 'Choose one of the offered multiples'],
      [{ side: 'long', lots: '1', stop_loss: '55000' }, 'Take-profit price is required'],
      [{ side: 'long', lots: '1', take_profit: '66000' }, 'Stop-loss price is required'],
      [{ side: 'long', lots: '1', take_profit: '59000', stop_loss: '55000' }, 'For a long position, take profit must be above 60000 and stop loss below it'],
      [{ side: 'short', lots: '1', take_profit: '61000', stop_loss: '65000' }, 'For a short position, take profit must be below 60000 and stop loss above it'],
      [{ side: 'long', lots: '10', take_profit: '66000', stop_loss: '55000' }, 'Insufficient balance'],
    ] as const;
    for (const [body, message] of cases) expect((await open(u.token, body)).body.message).toBe(message);
    // A whole number outside the market's range (1 to 1000) is 2410 however many digits it has, up to 18
    // (regression: 10 digits answered 1000, "Lots must be a whole number").
    for (const lots of ['1001', '1234567890', '999999999999999999'])
      expect((await open(u.token, { side: 'long', lots, take_profit: '66000', stop_loss: '55000' })).body.code).toBe(2410);
    expect((await open(u.token, { side: 'long', lots: '1234567890123456789', take_profit: '66000', stop_loss: '55000' })).body.code).toBe(1000);
    expect((await t.ds.query('SELECT COUNT(*)::int AS n FROM ledger_entries'))[0].n).toBe(before);
    // Spec §6: trading needs a fund password first.
    const without = await trader('50', false);
    const withoutBefore = (await t.ds.query('SELECT COUNT(*)::int AS n FROM ledger_entries'))[0].n;
    expect((await open(without.token, { side: 'long', lots: '1', take_profit: '66000', stop_loss: '55000' })).body).toMatchObject({
      code: 2100,
      message: 'Set the fund password first for fund safety',
    });
    expect((await t.ds.query('SELECT COUNT(*)::int AS n FROM ledger_entries'))[0].n).toBe(withoutBefore);
    // The market first, as documented: one without contracts is 2001 before the fund password is asked for (it was 2100).
    const eth = `(SELECT id FROM markets WHERE symbol = 'ETH/USDT')`;
    await t.ds.query(`UPDATE lever_configs SET enabled = false WHERE market_id = ${eth}`);
    try {
      expect((await open(without.token, { symbol: 'ETH/USDT', side: 'long', lots: '1', take_profit: '66000', stop_loss: '55000' })).body.code).toBe(2001);
    } finally {
      await t.ds.query(`UPDATE lever_configs SET enabled = true WHERE market_id = ${eth}`);
    }
    const deal = (await post(u.token, 'deal', { symbol: 'BTC/USDT' })).body.data;
    expect(deal).toMatchObject({ multiples: [5, 10, 20, 50, 100], lot_value: '100', min_lots: 1, fee_rate: '0.001', available: '50', mark_price: '60000' });
  });

  it('worked example: 10 lots × 100 USDT at 60,000, ×10 → margin 100, fee 1; closed at 61,200 → +20 (20/21/22/30)', async () => {
    await tick('60000');
    const u = await trader('1000');
    const p = (await open(u.token, { side: 'long', lots: '10', take_profit: '66000', stop_loss: '55000' })).body.data;
    expect(p).toMatchObject({ status: 'holding', margin: '100', fee: '1', open_price: '60000', liquidation_price: '54300', maintenance_margin: '5' });
    expect(await lever(u.user.id)).toEqual({ available: '899', frozen: '100' });
    await tick('61200');
    const list = (await post(u.token, 'my_trade', { status: 'holding' })).body.data.items[0];
    expect(list).toMatchObject({ pnl: '20', current_price: '61200', risk_rate: '120' });
    const closed = (await post(u.token, 'close', { id: p.id })).body;
    expect(closed).toMatchObject({ code: 1, message: 'Position closed', data: { status: 'closed', close_price: '61200', pnl: '20', close_reason: 'user' } });
    expect(await lever(u.user.id)).toEqual({ available: '1019', frozen: '0' });
    expect((await post(u.token, 'close', { id: p.id })).body.code).toBe(2414);
    const codes = await t.ds.query(`SELECT DISTINCT code FROM ledger_entries WHERE ref_type = 'lever' AND ref_id = $1 AND owner_type = 'user' ORDER BY code`, [
      p.id,
    ]);
    expect(codes.map((c: { code: number }) => c.code)).toEqual([20, 21, 22, 30]);
  });

  it('a position whose market is no longer loaded (disabled since) answers 2001 to close and new levels, changing nothing (regression: a 500)', async () => {
    await tick('60000');
    const u = await trader('1000');
    const p = (await open(u.token, { side: 'long', lots: '1', take_profit: '66000', stop_loss: '55000' })).body.data;
    const [{ id: gone }] = await t.ds.query(
      `INSERT INTO markets (symbol, base_currency_id, quote_currency_id, tick_size, lot_size, min_qty, maker_fee, taker_fee, sort, enabled)
       VALUES ('GONE/USDT', 1, $1, '0.01', '0.01', '0.01', '0', '0', 98, false) RETURNING id`,
      [USDT],
    );
    await t.ds.query('UPDATE lever_positions SET market_id = $2 WHERE id = $1', [p.id, gone]);
    await t.app.get(EngineHost).marketsChanged(); // as at a restart: the disabled market is not loaded, its symbol is known
    // Still named in the lists (regression: an empty symbol).
    expect((await post(u.token, 'my_trade', { status: 'holding' })).body.data.items.find((x: { id: string }) => x.id === p.id)).toMatchObject({
      symbol: 'GONE/USDT',
    });
    const before = (await t.ds.query('SELECT COUNT(*)::int AS n FROM ledger_entries'))[0].n;
    expect((await post(u.token, 'close', { id: p.id })).body).toMatchObject({ code: 2001 });
    expect((await post(u.token, 'tpsl', { id: p.id, take_profit: '67000', stop_loss: '54000' })).body).toMatchObject({ code: 2001 });
    expect((await t.ds.query('SELECT COUNT(*)::int AS n FROM ledger_entries'))[0].n).toBe(before);
    const [still] = await t.ds.query('SELECT status, take_profit::text, stop_loss::text FROM lever_positions WHERE id = $1', [p.id]);
    expect([still.status, moneyString(still.take_profit), moneyString(still.stop_loss)]).toEqual(['holding', '66000', '55000']);
    // Back on its market, it closes as usual.
    await t.ds.query('UPDATE lever_positions SET market_id = $2 WHERE id = $1', [p.id, BTC_MARKET]);
    expect((await post(u.token, 'close', { id: p.id })).body.code).toBe(1);
  });

  it('take profit, stop loss and liquidation fire on the first tick that crosses, once', async () => {
    await tick('60000');
    await watch();
    const u = await trader('1000');
    const tp = (await open(u.token, { side: 'long', lots: '10', take_profit: '62000', stop_loss: '55000' })).body.data;
    const sl = (await open(u.token, { side: 'short', lots: '10', take_profit: '50000', stop_loss: '61000' })).body.data;
    const liq = (await open(u.token, { side: 'long', lots: '10', take_profit: '70000', stop_loss: '1' })).body.data;
    await tick('60999.99');
    await watch();
    expect((await post(u.token, 'my_trade', { status: 'holding' })).body.data.total).toBe(3);
    await tick('61000'); // the short's stop loss: −1000 × (61000/60000 − 1) = −16.66666666
    await tick('62000'); // the long's take profit: +33.33333333
    await Promise.all([watch(), watch()]); // a duplicated job fires each trigger once
    const closed = (await post(u.token, 'my_trade', { status: 'closed' })).body.data.items;
    const byId = new Map(closed.map((x: { id: string }) => [x.id, x]));
    expect(byId.get(sl.id)).toMatchObject({ close_reason: 'stop_loss', close_price: '61000', pnl: '-16.66666666' });
    expect(byId.get(tp.id)).toMatchObject({ close_reason: 'take_profit', close_price: '62000', pnl: '33.33333333' });
    await tick('54300.01');
    await watch();
    expect((await post(u.token, 'my_trade', { status: 'holding' })).body.data.items.map((x: { id: string }) => x.id)).toEqual([liq.id]);
    await tick('54300');
    await watch();
    const [l] = (await post(u.token, 'my_trade', { status: 'closed' })).body.data.items;
    expect(l).toMatchObject({ id: liq.id, close_reason: 'liquidation', pnl: '-95' });
    const [{ n }] = await t.ds.query(
      `SELECT COUNT(*)::int AS n FROM ledger_entries WHERE ref_type = 'lever' AND code = 22 AND owner_type = 'user' AND ref_id = ANY($1)`,
      [[tp.id, sl.id, liq.id]],
    );
    expect(n).toBe(3);
    // 1000 − 3 × 101 + (100 + 33.33333333) + (100 − 16.66666666) + (100 − 95)
    expect(await lever(u.user.id)).toEqual({ available: '918.66666667', frozen: '0' });
  });

  it('a tick the watcher evaluates while a position is opening is applied to it, or the position opens on it (regression: the watcher passed it before the position committed, and its liquidation never fired)', async () => {
    await tick('60000');
    await watch();
    const u = await trader('1000');
    const position = async (id: string) =>
      (await t.ds.query('SELECT status, close_reason, open_tick_id::text AS opened, close_tick_id::text AS closed FROM lever_positions WHERE id = $1', [id]))[0];
    /** Holds the next call of `obj[method]` after it ran (`after`) or before (`before`) until released. */
    function hold<T extends object>(obj: T, method: keyof T, before: boolean) {
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      let reached!: () => void;
      const at = new Promise<void>((r) => (reached = r));
      const real = (obj[method] as (...a: unknown[]) => Promise<unknown>).bind(obj);
      const spy = jest.spyOn(obj, method as never).mockImplementationOnce((async (...a: unknown[]) => {
        if (before) {
          reached();
          await held;
          return real(...a);
        }
        const r = await real(...a);
        reached();
        await held;
        return r;
      }) as never);
      return { at, release, restore: () => (release(), spy.mockRestore()) };
    }

    // 1. The watcher passes a tick after the price the submit read, before the submit could commit:
    //    the submit reads the price again and opens on that tick, not before it.
    const read = hold(t.app.get(MarkPriceService), 'now', false);
    try {
      const submitted = open(u.token, { side: 'long', lots: '10', take_profit: '70000', stop_loss: '1' }).then((r) => r.body);
      await read.at;
      const crash = await tick('54300'); // the liquidation price of a long opened at 60,000
      await watch();
      read.release();
      const p = await submitted;
      expect(p).toMatchObject({ code: 1, data: { open_price: '54300' } });
      expect(await position(p.data.id)).toMatchObject({ status: 'holding', opened: crash });
      await open(u.token, { side: 'long', lots: '10', take_profit: '70000', stop_loss: '1' }); // (at 54,300 too)
    } finally {
      read.restore();
    }
    await tick('60000');
    await watch();

    // 2. The watcher reaches a tick while a submit that read the price before it is committing: it
    //    waits for the commit and applies the tick to the new position.
    const posting = hold(t.app.get(LedgerService), 'post', true);
    try {
      const submitted = open(u.token, { side: 'long', lots: '10', take_profit: '70000', stop_loss: '1' }).then((r) => r.body);
      await posting.at;
      const crash = await tick('54300');
      const watched = watch();
      await new Promise((r) => setTimeout(r, 300));
      posting.release();
      const [p] = await Promise.all([submitted, watched]);
      expect(p).toMatchObject({ code: 1, data: { open_price: '60000' } });
      expect(await position(p.data.id)).toMatchObject({ status: 'closed', close_reason: 'liquidation', closed: crash });
    } finally {
      posting.restore();
    }
  });

  it('submits that find the watcher evaluating give their pool connections back while they wait, and open once it is done (regression: submits waiting for the lock took the whole pool, and the watcher, which needs one more for its fills, hung the process)', async () => {
    await tick('60000');
    await watch();
    const u = await trader('10000');
    // The watcher, mid-evaluation: the market's watch lock held exclusively (on a connection of its own).
    await inOpenTransaction(t.ds, async (watcher) => {
      await watcher.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`lever-watch:${BTC_MARKET}`]);
      // More submits than the pool has connections (20).
      const submits = Array.from({ length: 25 }, (_, i) =>
        open(u.token, { side: 'long', lots: '1', take_profit: '70000', stop_loss: '1', client_id: `pool-${i}` }).then((r) => r.body),
      );
      await new Promise((r) => setTimeout(r, 300));
      // What the watcher's fills and closes take while it holds the lock: a connection of the pool.
      let timer: NodeJS.Timeout | undefined;
      const free = await Promise.race([
        t.ds.query('SELECT 1 AS one').then(() => true),
        new Promise<boolean>((r) => (timer = setTimeout(() => r(false), 2000))),
      ]).finally(() => clearTimeout(timer));
      expect(free).toBe(true);
      await watcher.commitTransaction();
      const answers = await Promise.all(submits);
      expect(answers.map((a) => a.code)).toEqual(answers.map(() => 1));
    });
    const [{ n }] = await t.ds.query(`SELECT COUNT(*)::int AS n FROM lever_positions WHERE user_id = $1 AND client_id LIKE 'pool-%'`, [u.user.id]);
    expect(n).toBe(25);
  });

  it('a take profit or stop loss changed now counts only from the ticks recorded after the change', async () => {
    await tick('60000');
    await watch();
    const u = await trader('1000');
    const long = (await open(u.token, { side: 'long', lots: '10', take_profit: '70000', stop_loss: '50000' })).body.data;
    const short = (await open(u.token, { side: 'short', lots: '10', take_profit: '50000', stop_loss: '70000' })).body.data;
    // A spike the watcher has not reached yet, then the price is back: the user sees the spike and
    // sets levels it crossed. They must not fire on it after the fact.
    await tick('65000');
    await tick('60100');
    expect((await post(u.token, 'tpsl', { id: long.id, take_profit: '64000', stop_loss: '50000' })).body.code).toBe(1);
    expect((await post(u.token, 'tpsl', { id: short.id, take_profit: '50000', stop_loss: '64000' })).body.code).toBe(1);
    await watch();
    expect((await post(u.token, 'my_trade', { status: 'holding' })).body.data.total).toBe(2);
    const [row] = await t.ds.query('SELECT tpsl_tick_id::text FROM lever_positions WHERE id = $1', [long.id]);
    const next = await tick('64000'); // the first tick after the change that crosses both
    expect(BigInt(next)).toBeGreaterThan(BigInt(row.tpsl_tick_id));
    await watch();
    const closed = (await post(u.token, 'my_trade', { status: 'closed' })).body.data.items;
    const byId = new Map(closed.map((x: { id: string }) => [x.id, x]));
    expect(byId.get(long.id)).toMatchObject({ close_reason: 'take_profit', close_price: '64000', close_tick_id: next });
    expect(byId.get(short.id)).toMatchObject({ close_reason: 'stop_loss', close_price: '64000', close_tick_id: next });
    // The public audit recomputes the trigger against the change's tick too.
    const audit = (await t.http().get('/api/lever/audit').query({ position_id: long.id })).body.data;
    expect(audit).toMatchObject({ tpsl_tick_id: row.tpsl_tick_id, checks: { trigger_holds: true } });
  });

  describe('ticks recorded while a take profit / stop loss change is read', () => {
    type Overtake = (p: LeverPosition, upTo: string) => Promise<unknown>;
    /** Runs `during` once, inside the change's first look at the ticks the watcher has not reached (overtake). */
    const whileReading = (during: () => Promise<void>) => {
      const service = t.app.get(LeverService) as unknown as { overtake: Overtake };
      const real = service.overtake.bind(service);
      return jest.spyOn(service, 'overtake').mockImplementationOnce(async (p, upTo) => {
        await during();
        return real(p, upTo);
      });
    };

    it('the new levels are checked against the tick they count from (regression: against a later one, so a dip in between fired a stop loss that check would have refused)', async () => {
      await tick('60000');
      await watch();
      const u = await trader('1000');
      const p = (await open(u.token, { side: 'long', lots: '1', take_profit: '70000', stop_loss: '50000' })).body.data;
      await tick('60100');
      const spy = whileReading(async () => {
        await tick('58900');
        await tick('60200');
      });
      try {
        // Above 60,100 (the tick read first): refused, however the price stands by the time it is checked.
        const answer = (await post(u.token, 'tpsl', { id: p.id, take_profit: '70000', stop_loss: '60150' })).body;
        expect(answer.code).toBe(2412);
      } finally {
        spy.mockRestore();
      }
      await watch();
      expect((await post(u.token, 'my_trade', { status: 'holding' })).body.data.items.map((x: { id: string }) => x.id)).toContain(p.id);
    });

    it('a change whose tick the watcher passed meanwhile (on the old levels) is read again on a newer tick (regression: it counted from a tick before the ones the watcher had passed, where it was never checked)', async () => {
      await tick('60000');
      await watch();
      const u = await trader('1000');
      const p = (await open(u.token, { side: 'long', lots: '1', take_profit: '70000', stop_loss: '50000' })).body.data;
      await tick('60100');
      let newest = '';
      const spy = whileReading(async () => {
        await tick('59500');
        await watch(); // evaluated on the old levels: nothing fires
        newest = await tick('60200');
      });
      try {
        const answer = (await post(u.token, 'tpsl', { id: p.id, take_profit: '70000', stop_loss: '59800' })).body;
        expect(answer).toMatchObject({ code: 1, data: { stop_loss: '59800' } });
      } finally {
        spy.mockRestore();
      }
      const [row] = await t.ds.query('SELECT tpsl_tick_id::text FROM lever_positions WHERE id = $1', [p.id]);
      expect(row.tpsl_tick_id).toBe(newest);
      await watch();
      // The public audit of a later close agrees with the recorded change.
      await tick('59000');
      await watch();
      const audit = (await t.http().get('/api/lever/audit').query({ position_id: p.id })).body.data;
      expect(audit).toMatchObject({ close_reason: 'stop_loss', tpsl_tick_id: newest, checks: { trigger_holds: true } });
    });
  });

  it("the watcher's first run on a market evaluates the ticks since its oldest open position (regression: only the latest, so a liquidation on a tick before it was missed)", async () => {
    await tick('60000');
    await watch();
    const u = await trader('1000');
    // A market the watcher has never run on (a new market, or positions taken before the worker started).
    await t.ds.query('DELETE FROM lever_cursors WHERE market_id = $1', [BTC_MARKET]);
    const p = (await open(u.token, { side: 'long', lots: '10', take_profit: '70000', stop_loss: '50000' })).body.data;
    expect(p).toMatchObject({ status: 'holding', liquidation_price: '54300' });
    const dip = await tick('54000');
    await tick('60000');
    await watch();
    const [closed] = (await post(u.token, 'my_trade', { status: 'closed' })).body.data.items.filter((x: { id: string }) => x.id === p.id);
    expect(closed).toMatchObject({ close_reason: 'liquidation', close_tick_id: dip });
  });

  it('a take profit the watcher evaluated on levels changed since (lever/tpsl) does not fire: the change wins', async () => {
    await tick('60000');
    await watch();
    const u = await trader('1000');
    const p = (await open(u.token, { side: 'long', lots: '1', take_profit: '61000', stop_loss: '50000' })).body.data;
    // The watcher has read the position (old levels) when the user's change commits, and evaluates them
    // on a tick recorded after the change (one recorded before it is the change's to settle: below).
    const [seen] = await t.ds.getRepository(LeverPosition).find({ where: { id: p.id } });
    expect((await post(u.token, 'tpsl', { id: p.id, take_profit: '65000', stop_loss: '50000' })).body.code).toBe(1);
    const crossing = await tick('61500');
    const closed = await t.app.get(LeverService).closeAt(seen, { id: crossing, price: '61500', ts: new Date() }, 'take_profit');
    expect(closed).toBeUndefined();
    expect((await t.ds.query('SELECT status, take_profit::text FROM lever_positions WHERE id = $1', [p.id]))[0]).toMatchObject({ status: 'holding' });
    // A user close still closes (it is not a level's trigger).
    expect((await post(u.token, 'close', { id: p.id })).body.code).toBe(1);
  });

  // The watcher applies the triggers about once a second; a user's action on a position in between must
  // not undo one that fired on a tick it has not reached yet (docs/api.md, Contracts).
  it('a close does not undo a liquidation on a tick the watcher has not reached yet: it settles there (regression: closed at the rebound, −10 instead of −100)', async () => {
    await tick('60000');
    await watch();
    const u = await trader('1000');
    const p = (await open(u.token, { side: 'long', lots: '10', take_profit: '70000', stop_loss: '1' })).body.data;
    expect(p.liquidation_price).toBe('54300');
    const crossed = await tick('54000'); // liquidates; the watcher has not run yet
    await tick('59400'); // the rebound, the price now
    const closed = (await post(u.token, 'close', { id: p.id })).body;
    expect(closed).toMatchObject({
      code: 1,
      data: { id: p.id, status: 'closed', close_reason: 'liquidation', close_price: '54000', close_tick_id: crossed, pnl: '-100' },
    });
    expect(await lever(u.user.id)).toEqual({ available: '899', frozen: '0' });
    await watch(); // reaching the tick, the watcher finds it settled
    const settled = async (id: string) =>
      (await t.ds.query(`SELECT COUNT(*)::int AS n FROM ledger_entries WHERE ref_type = 'lever' AND ref_id = $1 AND code = 22`, [id]))[0].n;
    expect(await settled(p.id)).toBe(1);

    // The same with the watcher running at the same moment: one liquidation, at the tick that crossed.
    const q = (await open(u.token, { side: 'long', lots: '10', take_profit: '70000', stop_loss: '1' })).body.data;
    expect(q).toMatchObject({ open_price: '59400', liquidation_price: '53757' });
    const gap = await tick('53000');
    await tick('59000');
    const [, raced] = await Promise.all([watch(), post(u.token, 'close', { id: q.id })]);
    expect([1, 2414]).toContain(raced.body.code);
    const [row] = await t.ds.query('SELECT status, close_reason, close_tick_id::text, pnl::text FROM lever_positions WHERE id = $1', [q.id]);
    expect(row).toMatchObject({ status: 'closed', close_reason: 'liquidation', close_tick_id: gap });
    expect(moneyString(row.pnl)).toBe('-100');
    expect(await settled(q.id)).toBe(1);
    expect(await lever(u.user.id)).toEqual({ available: '798', frozen: '0' });
  });

  it('a cancel does not undo the fill of a limit order on a tick the watcher has not reached yet: the order opens there, and the cancel answers 2414 saying so (regression: "already closed or cancelled" while it held a position)', async () => {
    await tick('60000');
    await watch();
    const u = await trader('1000');
    const limit = (await open(u.token, { type: 'limit', price: '59000', side: 'long', lots: '10', take_profit: '65000', stop_loss: '55000' })).body.data;
    const crossed = await tick('58900');
    await tick('59500');
    expect((await post(u.token, 'cancel', { id: limit.id })).body).toMatchObject({
      code: 2414,
      message: 'This order has already opened: it is now a position. Close the position instead',
    });
    const [h] = (await post(u.token, 'my_trade', { status: 'holding' })).body.data.items;
    expect(h).toMatchObject({ id: limit.id, open_price: '58900', open_tick_id: crossed });
    expect(await lever(u.user.id)).toEqual({ available: '899', frozen: '100' });
    await watch();
    expect((await t.ds.query(`SELECT COUNT(*)::int AS n FROM ledger_entries WHERE ref_type = 'lever' AND ref_id = $1 AND code = 20`, [limit.id]))[0].n).toBe(1);
    expect((await post(u.token, 'close', { id: limit.id })).body.code).toBe(1);
  });

  it('a close of a limit order crossed on a tick the watcher has not reached yet opens it there and closes it at the price now (regression: 2414 "not opened yet: cancel it instead", and the cancel then opened it)', async () => {
    await tick('60000');
    await watch();
    const u = await trader('1000');
    const limit = (await open(u.token, { type: 'limit', price: '59000', side: 'long', lots: '10', take_profit: '65000', stop_loss: '55000' })).body.data;
    const crossed = await tick('58900');
    const now = await tick('59500');
    const closed = await post(u.token, 'close', { id: limit.id });
    expect(closed.body).toMatchObject({ code: 1, data: { id: limit.id, status: 'closed', open_price: '58900', close_price: '59500' } });
    const [row] = await t.ds.query('SELECT open_tick_id::text AS open, close_tick_id::text AS close FROM lever_positions WHERE id = $1', [limit.id]);
    expect(row).toEqual({ open: String(crossed), close: String(now) });
    // Margin back, fee 1 paid, 1,000 USDT long from 58,900 to 59,500: + 10.18675721 (truncated).
    expect(await lever(u.user.id)).toEqual({ available: '1009.18675721', frozen: '0' });
    // Not crossed: still says to cancel it.
    const other = (await open(u.token, { type: 'limit', price: '50000', side: 'long', lots: '5', take_profit: '65000', stop_loss: '45000' })).body.data;
    expect((await post(u.token, 'close', { id: other.id })).body).toMatchObject({ code: 2414, message: 'This order has not opened yet: cancel it instead' });
  });

  it('new levels do not undo a take profit on a tick the watcher has not reached yet (2414: it settles there), and a pending order crossed meanwhile opens first', async () => {
    await tick('60000');
    await watch();
    const u = await trader('1000');
    const p = (await open(u.token, { side: 'long', lots: '10', take_profit: '62000', stop_loss: '50000' })).body.data;
    const crossed = await tick('62500');
    await tick('61000');
    expect((await post(u.token, 'tpsl', { id: p.id, take_profit: '64000', stop_loss: '50000' })).body.code).toBe(2414);
    const [c] = (await post(u.token, 'my_trade', { status: 'closed' })).body.data.items;
    expect(c).toMatchObject({ id: p.id, close_reason: 'take_profit', close_price: '62500', close_tick_id: crossed, pnl: '41.66666666', take_profit: '62000' });

    // A limit order whose price was crossed: it opens on that tick, then takes the new levels (against the price now).
    const limit = (await open(u.token, { type: 'limit', price: '60000', side: 'long', lots: '10', take_profit: '65000', stop_loss: '55000' })).body.data;
    const fill = await tick('59900');
    await tick('60500');
    expect((await post(u.token, 'tpsl', { id: limit.id, take_profit: '64000', stop_loss: '56000' })).body).toMatchObject({
      code: 1,
      data: { status: 'holding', open_price: '59900', open_tick_id: fill, take_profit: '64000', stop_loss: '56000' },
    });
    await watch();
    expect((await post(u.token, 'close', { id: limit.id })).body.data).toMatchObject({ close_reason: 'user', close_price: '60500' });
  });

  it('a limit fill that fails on the tick that crossed is retried on that tick, not skipped (regression: the cursor moved past it)', async () => {
    await tick('60000');
    await watch();
    const u = await trader('1000');
    const limit = (await open(u.token, { type: 'limit', price: '59000', side: 'long', lots: '10', take_profit: '65000', stop_loss: '55000' })).body.data;
    const crossed = await tick('58900');
    // Another market's tick: its evaluation goes on while BTC's fails (regression: the whole run stopped at the failure).
    const [{ id: ethTick }] = await t.ds.query(`INSERT INTO mark_prices (market_id, price, ts, source) VALUES (2, '3000', now(), 'sample') RETURNING id::text`);
    const svc = t.app.get(LeverService);
    const fillAt = svc.fillAt.bind(svc);
    const failing = jest.spyOn(svc, 'fillAt').mockImplementation(async (p, k) => {
      if (p.id === limit.id) throw new Error('connection lost');
      return fillAt(p, k);
    });
    try {
      await expect(watch()).rejects.toThrow('connection lost');
    } finally {
      failing.mockRestore();
    }
    const [cursor] = await t.ds.query('SELECT tick_id::text FROM lever_cursors WHERE market_id = $1', [BTC_MARKET]);
    expect(BigInt(cursor.tick_id)).toBeLessThan(BigInt(crossed));
    const [eth] = await t.ds.query('SELECT tick_id::text FROM lever_cursors WHERE market_id = 2');
    expect(BigInt(eth.tick_id)).toBeGreaterThanOrEqual(BigInt(ethTick));
    await tick('59500'); // does not cross
    await watch();
    const [h] = (await post(u.token, 'my_trade', { status: 'holding' })).body.data.items;
    expect(h).toMatchObject({ id: limit.id, open_price: '58900', open_tick_id: crossed });
    expect((await post(u.token, 'close', { id: limit.id })).body.code).toBe(1);
  });

  it('a close that meets a trigger the watcher has just kept (a take profit it could not settle) settles that trigger (regression: 2414 "already closed" while it still held)', async () => {
    await tick('60000');
    await watch();
    const u = await trader('1000');
    const p = (await open(u.token, { side: 'long', lots: '1', take_profit: '61000', stop_loss: '50000' })).body.data;
    const fired = await tick('61500');
    await tick('60500');
    const marks = t.app.get(MarkPriceService);
    const now = marks.now.bind(marks);
    // Between the close's read of the position and its update, the watcher reaches the take profit, cannot
    // settle it (the treasury short), keeps it on the position and moves its cursor past it.
    const meanwhile = jest.spyOn(marks, 'now').mockImplementationOnce(async (market: MarketInfo) => {
      await t.ds.query(`UPDATE lever_positions SET trigger_tick_id = $2, trigger_reason = 'take_profit' WHERE id = $1`, [p.id, fired]);
      await t.ds.query('UPDATE lever_cursors SET tick_id = GREATEST(tick_id, $2) WHERE market_id = $1', [BTC_MARKET, fired]);
      return now(market);
    });
    try {
      expect((await post(u.token, 'close', { id: p.id })).body).toMatchObject({
        code: 1,
        data: { status: 'closed', close_reason: 'take_profit', close_price: '61500', close_tick_id: fired, pnl: '2.5' },
      });
    } finally {
      meanwhile.mockRestore();
    }
    expect(await lever(u.user.id)).toEqual({ available: '1002.4', frozen: '0' });
  });

  it('an order sent twice at the same moment with one client id opens one position; both answers are it', async () => {
    await tick('60000');
    const u = await trader('1000');
    const both = await Promise.all([1, 2].map(() => open(u.token, { side: 'long', lots: '1', take_profit: '70000', stop_loss: '50000', client_id: 'same-1' })));
    expect(both.map((r) => r.body.code)).toEqual([1, 1]);
    expect(both[0].body.data.id).toBe(both[1].body.data.id);
    expect((await t.ds.query('SELECT COUNT(*)::int AS n FROM lever_positions WHERE user_id = $1', [u.user.id]))[0].n).toBe(1);
    expect(await lever(u.user.id)).toEqual({ available: '989.9', frozen: '10' });
    // A later retry is answered with it too, before the take profit is checked against the price now
    // (regression: once the price had passed 70000, the retry of a position that was opened heard 2412).
    await tick('71000');
    const later = await open(u.token, { side: 'long', lots: '1', take_profit: '70000', stop_loss: '50000', client_id: 'same-1' });
    expect(later.body).toMatchObject({ code: 1, data: { id: both[0].body.data.id } });
    expect(await lever(u.user.id)).toEqual({ available: '989.9', frozen: '10' });

    // The twin reads the price after the first has opened and the market has crossed the stop loss:
    // the refusal it would answer (2412) gives way to the first's position (regression: 2412).
    await tick('60000');
    const body = { side: 'long', lots: '1', take_profit: '70000', stop_loss: '59000', client_id: 'same-2' };
    let release!: () => void;
    let reached!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const at = new Promise<void>((r) => (reached = r));
    const marks = t.app.get(MarkPriceService);
    const real = marks.now.bind(marks);
    const spy = jest.spyOn(marks, 'now').mockImplementationOnce(async (...a) => {
      reached();
      await held;
      return real(...a);
    });
    try {
      const twin = open(u.token, body).then((r) => r.body);
      await at;
      const first = (await open(u.token, body)).body;
      expect(first).toMatchObject({ code: 1, data: { open_price: '60000' } });
      await tick('58000');
      release();
      expect(await twin).toMatchObject({ code: 1, data: { id: first.data.id } });
    } finally {
      release();
      spy.mockRestore();
    }
    expect((await t.ds.query('SELECT COUNT(*)::int AS n FROM lever_positions WHERE user_id = $1', [u.user.id]))[0].n).toBe(2);
  });

  it('a gap past the margin loses the margin only: the account never goes negative', async () => {
    await tick('60000');
    await watch();
    const u = await trader('101');
    await open(u.token, { side: 'long', lots: '10', take_profit: '70000', stop_loss: '1' });
    await tick('50000');
    await watch();
    const [p] = (await post(u.token, 'my_trade', { status: 'closed' })).body.data.items;
    expect(p).toMatchObject({ close_reason: 'liquidation', pnl: '-100' });
    expect(await lever(u.user.id)).toEqual({ available: '0', frozen: '0' });
  });

  it('a limit order fills only on a tick recorded after it was placed, whatever the clocks say of their times (regression: a tick stamped ahead of the database filled it at that earlier price)', async () => {
    await tick('60000');
    await watch();
    // Recorded before the order, stamped 2 s ahead of it: the sampler's clock ahead of the database's.
    await tick('57000', new Date(Date.now() + 2000));
    const u = await trader('1000');
    const limit = (await open(u.token, { type: 'limit', price: '59000', side: 'long', lots: '10', take_profit: '65000', stop_loss: '55000' })).body.data;
    await watch();
    expect((await post(u.token, 'my_trade', { status: 'pending' })).body.data.items.map((p: { id: string }) => p.id)).toEqual([limit.id]);
    await tick('58990', new Date(Date.now() + 2100));
    await watch();
    const [h] = (await post(u.token, 'my_trade', { status: 'holding' })).body.data.items;
    expect(h).toMatchObject({ id: limit.id, open_price: '58990' });
  });

  it('a limit order freezes margin and fee, opens on the tick that crosses its price, and cancels exactly', async () => {
    await tick('60000');
    await watch();
    const u = await trader('1000');
    const placed = (await open(u.token, { type: 'limit', price: '59000', side: 'long', lots: '10', take_profit: '65000', stop_loss: '55000' })).body;
    expect(placed.message).toBe('Order placed');
    const limit = placed.data;
    expect(limit).toMatchObject({ status: 'pending', target_price: '59000' });
    expect(await lever(u.user.id)).toEqual({ available: '899', frozen: '101' });
    await tick('59500');
    await watch();
    expect((await post(u.token, 'my_trade', { status: 'pending' })).body.data.total).toBe(1);
    await tick('58990');
    await watch();
    const [h] = (await post(u.token, 'my_trade', { status: 'holding' })).body.data.items;
    expect(h).toMatchObject({ id: limit.id, open_price: '58990' });
    expect(await lever(u.user.id)).toEqual({ available: '899', frozen: '100' });

    const other = (await open(u.token, { type: 'limit', price: '50000', side: 'long', lots: '5', take_profit: '65000', stop_loss: '45000' })).body.data;
    expect(await lever(u.user.id)).toEqual({ available: '848.5', frozen: '150.5' });
    // Closing an order that has not opened says to cancel it.
    expect((await post(u.token, 'close', { id: other.id })).body).toMatchObject({ code: 2414, message: 'This order has not opened yet: cancel it instead' });
    expect((await post(u.token, 'cancel', { id: other.id })).body.code).toBe(1);
    expect((await post(u.token, 'cancel', { id: other.id })).body).toMatchObject({ code: 2414, message: 'This position is already closed or cancelled' });
    expect(await lever(u.user.id)).toEqual({ available: '899', frozen: '100' });
    const stranger = await trader('10');
    expect((await post(stranger.token, 'close', { id: h.id })).body.code).toBe(2413);
    expect((await post(u.token, 'tpsl', { id: h.id, take_profit: '57000', stop_loss: '55000' })).body.code).toBe(2412);
    expect((await post(u.token, 'tpsl', { id: h.id, take_profit: '64000', stop_loss: '56000' })).body.data).toMatchObject({
      take_profit: '64000',
      stop_loss: '56000',
    });
  });

  it('a seeded random run of 1,000 contract operations keeps the trial balance exact', async () => {
    const svc = t.app.get(LeverService);
    let seed = 777;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const users = await Promise.all(Array.from({ length: 8 }, () => trader('5000')));
    let price = 60000;
    await tick(String(price));
    await watch();
    let ops = 0;
    for (let i = 0; i < 1000; i++) {
      const u = users[Math.floor(rand() * users.length)];
      const r = rand();
      if (r < 0.1) {
        price = Math.max(1000, Math.round(price * (1 + (rand() - 0.5) * 0.06)));
        await tick(String(price));
        await watch();
      } else if (r < 0.6) {
        const side = rand() < 0.5 ? 'long' : 'short';
        const limit = rand() < 0.3;
        const ref = limit ? Math.round(price * (1 + (rand() - 0.5) * 0.02)) : price;
        const tp = side === 'long' ? ref * 1.03 : ref * 0.97;
        const sl = side === 'long' ? ref * 0.98 : ref * 1.02;
        await svc
          .submit(u.user.id, {
            symbol: 'BTC/USDT',
            side,
            type: limit ? 'limit' : 'market',
            lots: String(1 + Math.floor(rand() * 20)),
            multiple: [5, 10, 20, 50, 100][Math.floor(rand() * 5)],
            price: String(ref),
            take_profit: String(Math.round(tp)),
            stop_loss: String(Math.round(sl)),
          })
          .catch(() => undefined);
      } else {
        const [p] = await t.ds.query(
          `SELECT id::text, status FROM lever_positions WHERE user_id = $1 AND status IN ('pending', 'holding') ORDER BY random() LIMIT 1`,
          [u.user.id],
        );
        if (p) await (p.status === 'holding' ? svc.close(u.user.id, p.id) : svc.cancel(u.user.id, p.id)).catch(() => undefined);
      }
      ops++;
    }
    expect(ops).toBe(1000);
    const tb = await t.app.get(TrialBalanceService).compute();
    expect(tb.ok).toBe(true);
    const [{ closed }] = await t.ds.query(`SELECT COUNT(*)::int AS closed FROM lever_positions WHERE status = 'closed'`);
    expect(closed).toBeGreaterThan(50);
  });
});

describe('the contract watcher after Redis lost its data (real PostgreSQL + Redis + BullMQ)', () => {
  let t: TestApp;
  const check = QueuesService.schedulerCheckMs;
  beforeAll(async () => {
    QueuesService.schedulerCheckMs = 500;
    t = await startTestApp();
  });
  afterAll(async () => {
    QueuesService.schedulerCheckMs = check;
    await t.close();
  });
  const tick = tickRecorder(() => t, BTC_MARKET);

  // Found by `npm run test:chaos` (Redis down 10 s, no persistence): the job scheduler that drives
  // the watcher lives only in Redis, so after the restart nothing ran it again, and no position was
  // liquidated until the process restarted.
  it('comes back by itself: the job scheduler is re-created and ticks are watched again', async () => {
    const redis = new Redis(REDIS_URL);
    const connection = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
    const queue = new Queue('lever-watch', { connection, prefix: `${t.config.redisPrefix}bull` });
    const cursor = async () =>
      (await t.ds.query('SELECT tick_id::text FROM lever_cursors WHERE market_id = $1', [BTC_MARKET]))[0]?.tick_id as string | undefined;
    const until = async (what: string, test: () => Promise<boolean>) => {
      for (let i = 0; i < 100; i++) {
        if (await test()) return;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`timed out waiting for ${what}`);
    };
    try {
      const first = await tick('60000');
      await until('the watcher to run', async () => (await cursor()) === first);
      // Redis loses everything of this app's queues (as a restart without persistence does).
      const keys = await redis.keys(`${t.config.redisPrefix}bull:*`);
      await redis.del(...keys);
      expect(await queue.getJobScheduler('lever-watch-every-second')).toBeUndefined();
      await until('the scheduler to be re-created', async () => !!(await queue.getJobScheduler('lever-watch-every-second')));
      const latest = await tick('60001');
      await until('the watcher to watch the new tick', async () => (await cursor()) === latest);
    } finally {
      await queue.close();
      connection.disconnect();
      redis.disconnect();
    }
  });
});
