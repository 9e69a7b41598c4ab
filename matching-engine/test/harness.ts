import { EventCollector, FastBook, ReferenceBook } from '../src';
import type { AmendCommand, EngineEvent, OrderBook, OrderBookFactory, PlaceCommand, ResultCode, Side } from '../src';

export const BOOKS: [string, OrderBookFactory][] = [
  ['ReferenceBook', (sink) => new ReferenceBook(sink)],
  ['FastBook', (sink) => new FastBook(sink)],
];

type PlaceExtra = Partial<Omit<PlaceCommand, 'type' | 'id' | 'owner' | 'side'>>;

/** A book plus a collector, with terse command helpers that return the events of one command. */
export class Harness {
  readonly sink = new EventCollector();
  readonly book: OrderBook;
  ts = 1_000;
  lastCode: ResultCode = 'OK';

  constructor(factory: OrderBookFactory) {
    this.book = factory(this.sink);
  }

  run(cmd: Parameters<OrderBook['process']>[0]): EngineEvent[] {
    this.lastCode = this.book.process(cmd);
    return this.sink.drain();
  }

  limit(id: number, owner: number, side: Side, price: number, qty: number, extra: PlaceExtra = {}): EngineEvent[] {
    return this.run({ type: 'place', id, owner, side, kind: 'limit', price, qty, tif: 'GTC', stp: 'none', ts: ++this.ts, ...extra });
  }

  market(id: number, owner: number, side: Side, qty: number, extra: PlaceExtra = {}): EngineEvent[] {
    return this.run({ type: 'place', id, owner, side, kind: 'market', qty, tif: 'IOC', stp: 'none', ts: ++this.ts, ...extra });
  }

  quoteBuy(id: number, owner: number, quoteBudget: number, extra: PlaceExtra = {}): EngineEvent[] {
    return this.run({ type: 'place', id, owner, side: 'buy', kind: 'market', quoteBudget, tif: 'IOC', stp: 'none', ts: ++this.ts, ...extra });
  }

  cancel(id: number): EngineEvent[] {
    return this.run({ type: 'cancel', id, ts: ++this.ts });
  }

  amend(id: number, change: Omit<AmendCommand, 'type' | 'id' | 'ts'>): EngineEvent[] {
    return this.run({ type: 'amend', id, ts: ++this.ts, ...change });
  }
}

/** Events without ts, so expectations stay readable. */
export function strip(events: EngineEvent[]): Record<string, unknown>[] {
  return events.map(({ ts: _ts, ...rest }) => rest);
}

export function ofType<T extends EngineEvent['type']>(events: EngineEvent[], type: T): Extract<EngineEvent, { type: T }>[] {
  return events.filter((e): e is Extract<EngineEvent, { type: T }> => e.type === type);
}
