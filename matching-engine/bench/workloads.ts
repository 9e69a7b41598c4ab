import { FastBook } from '../src';
import type { CancelReason, Command, DoneStatus, EventSink, PlaceCommand, Side } from '../src';
import { Prng } from './prng';

/**
 * Seeded workload generators. Each stream is generated once, outside any timing, by driving a
 * shadow FastBook so cancels and amends target orders that are really live (as a trading
 * client would); both books under test then get the very same command array.
 */
export interface Workload {
  readonly name: string;
  readonly description: string;
  readonly commands: Command[];
  /** The first `load` commands only build the initial book (all rest, nothing crosses). */
  readonly load: number;
  /** What the generated flow actually contains, measured on the shadow book. */
  readonly mix: string;
}

const TS0 = 1_700_000_000_000;

/** Tracks live orders of the shadow book from its events, with O(1) random pick and removal. */
class LiveSet implements EventSink {
  ids: number[] = [];
  private pos = new Map<number, number>();
  rested = 0;
  cancelledResting = 0;
  filledResting = 0;
  trades = 0;
  makersFilledThisCommand = 0;

  add(id: number): void {
    if (this.pos.has(id)) return;
    this.pos.set(id, this.ids.length);
    this.ids.push(id);
  }

  remove(id: number): boolean {
    const i = this.pos.get(id);
    if (i === undefined) return false;
    const last = this.ids.pop() as number;
    if (last !== id) {
      this.ids[i] = last;
      this.pos.set(last, i);
    }
    this.pos.delete(id);
    return true;
  }

  pick(rng: Prng): number | undefined {
    return this.ids.length === 0 ? undefined : this.ids[rng.int(0, this.ids.length - 1)];
  }

  accepted(): void {}
  rejected(): void {}
  amended(): void {}
  trade(_ts: number, _t: number, makerId: number, _mo: number, _tid: number, _to: number, _s: Side, _p: number, _q: number, makerRemaining: number): void {
    this.trades++;
    if (makerRemaining === 0 && this.remove(makerId)) {
      this.filledResting++;
      this.makersFilledThisCommand++;
    }
  }
  cancelled(_ts: number, id: number, _o: number, _r: CancelReason): void {
    if (this.remove(id)) this.cancelledResting++;
  }
  done(_ts: number, id: number, _o: number, status: DoneStatus): void {
    if (status === 'resting') {
      if (!this.pos.has(id)) this.rested++;
      this.add(id);
    } else if (this.remove(id)) {
      this.filledResting++;
    }
  }
}

class Builder {
  readonly commands: Command[] = [];
  readonly live = new LiveSet();
  readonly shadow = new FastBook(this.live);
  nextId = 1;
  counts = { gtc: 0, ioc: 0, market: 0, cancel: 0, amend: 0, amendPrice: 0 };
  takerSweeps: number[] = [];

  private push(cmd: Command): void {
    this.commands.push(cmd);
    this.live.makersFilledThisCommand = 0;
    this.shadow.process(cmd);
  }

  place(side: Side, price: number, qty: number, tif: 'GTC' | 'IOC' = 'GTC'): void {
    const cmd: PlaceCommand = {
      type: 'place',
      id: this.nextId++,
      owner: 1 + (this.nextId % 64),
      side,
      kind: 'limit',
      price,
      qty,
      tif,
      stp: 'none',
      ts: TS0 + this.commands.length,
    };
    if (tif === 'GTC') this.counts.gtc++;
    else this.counts.ioc++;
    this.push(cmd);
    if (tif === 'IOC') this.takerSweeps.push(this.live.makersFilledThisCommand);
  }

  market(side: Side, qty: number): void {
    this.counts.market++;
    this.push({
      type: 'place',
      id: this.nextId++,
      owner: 1 + (this.nextId % 64),
      side,
      kind: 'market',
      qty,
      tif: 'IOC',
      stp: 'none',
      ts: TS0 + this.commands.length,
    });
    this.takerSweeps.push(this.live.makersFilledThisCommand);
  }

  cancel(id: number): void {
    this.counts.cancel++;
    this.push({ type: 'cancel', id, ts: TS0 + this.commands.length });
  }

  amend(id: number, price: number | undefined, qty: number | undefined): void {
    this.counts.amend++;
    if (price !== undefined) this.counts.amendPrice++;
    this.push({ type: 'amend', id, price, qty, ts: TS0 + this.commands.length });
  }

  mix(load: number): string {
    const c = this.counts;
    const flow = this.commands.length - load;
    const pct = (n: number) => `${((100 * n) / flow).toFixed(1)}%`;
    const sweeps = this.takerSweeps;
    const avgSweep = sweeps.reduce((a, b) => a + b, 0) / Math.max(1, sweeps.length);
    const maxSweep = sweeps.reduce((a, b) => Math.max(a, b), 0);
    const book = this.shadow.depth(1_000_000);
    return (
      `flow ${flow} msgs: GTC ${pct(c.gtc - load)}, IOC ${pct(c.ioc)}, market ${pct(c.market)}, cancel ${pct(c.cancel)}, amend ${pct(c.amend)} ` +
      `(price ${pct(c.amendPrice)}); rested ${this.live.rested}, of which cancelled ${((100 * this.live.cancelledResting) / this.live.rested).toFixed(1)}%, ` +
      `filled ${((100 * this.live.filledResting) / this.live.rested).toFixed(1)}%; trades ${this.live.trades}; makers filled per taker avg ${avgSweep.toFixed(2)} max ${maxSweep}; ` +
      `end book ${this.shadow.orderCount} orders on ${book.bids.length + book.asks.length} levels`
    );
  }
}

/** Maker order size in lots: mostly small, occasionally large. */
function makerQty(rng: Prng): number {
  return 1 + Math.min(200, Math.floor(Math.exp(1.2 + 0.9 * rng.normal())));
}

/**
 * 1. "normal": GBM mid price, power-law distance from the touch, ~95% of resting orders end
 * cancelled, ~15% of new orders IOC, ~20% of resting orders amended.
 */
export function normalWorkload(seed: number, flow = 200_000): Workload {
  const rng = new Prng(seed);
  const b = new Builder();
  const target = 5_000;
  let mid = 100_000;
  const sigma = 3e-6;
  // Makers quote relative to the fair price but never through the other side of the book.
  const passive = (side: Side) => {
    const d = rng.powerLaw(0.9, 3_000);
    if (side === 'buy') return Math.min(Math.floor(mid), b.shadow.bestAsk() ?? Infinity) - 1 - d;
    return Math.max(Math.ceil(mid), b.shadow.bestBid() ?? 0) + 1 + d;
  };
  for (let i = 0; i < target; i++) {
    const side: Side = rng.chance(0.5) ? 'buy' : 'sell';
    b.place(side, passive(side), makerQty(rng));
  }
  const load = b.commands.length;
  for (let i = 0; i < flow; i++) {
    mid *= Math.exp(sigma * rng.normal());
    const r = rng.next();
    const pressure = b.live.ids.length / target;
    if (r < 0.075) {
      const side: Side = rng.chance(0.5) ? 'buy' : 'sell';
      const touch = side === 'buy' ? (b.shadow.bestAsk() ?? Math.ceil(mid)) : (b.shadow.bestBid() ?? Math.floor(mid));
      const px = side === 'buy' ? touch + rng.int(0, 2) : touch - rng.int(0, 2);
      b.place(side, px, 1 + rng.powerLaw(2, 40), 'IOC');
    } else if (r < 0.16) {
      const id = b.live.pick(rng);
      const o = id === undefined ? undefined : b.shadow.order(id);
      if (id === undefined || o === undefined) continue;
      if (rng.chance(0.5)) b.amend(id, passive(o.side), undefined);
      else b.amend(id, undefined, rng.chance(0.7) ? Math.max(1, Math.floor(o.qty * (0.2 + 0.7 * rng.next()))) : o.qty + rng.int(1, 10));
    } else if (r < 0.16 + 0.41 * pressure) {
      const id = b.live.pick(rng);
      if (id !== undefined) b.cancel(id);
    } else {
      const side: Side = rng.chance(0.5) ? 'buy' : 'sell';
      b.place(side, passive(side), makerQty(rng));
    }
  }
  return {
    name: 'normal',
    description: `GBM mid (sigma ${sigma}/msg), power-law depth, ${target} resting orders loaded, then ${flow} msgs`,
    commands: b.commands,
    load,
    mix: b.mix(load),
  };
}

/**
 * 2. exchange-core's benchmark mix: 9% GTC, 3% IOC, 6% cancel, 82% move (price amend),
 * about 1,000 resting orders spread over about 750 price levels.
 */
export function exchangeCoreWorkload(seed: number, flow = 1_000_000): Workload {
  const rng = new Prng(seed);
  const b = new Builder();
  const target = 1_000;
  const range = 750;
  const mid = 100_000;
  const priceAt = (side: Side, depth: number) => (side === 'buy' ? mid - depth : mid + depth);
  for (let i = 0; i < target; i++) {
    const side: Side = rng.chance(0.5) ? 'buy' : 'sell';
    b.place(side, priceAt(side, rng.int(1, range)), rng.int(1, 20));
  }
  const load = b.commands.length;
  for (let i = 0; i < flow; i++) {
    const r = rng.next();
    const live = b.live.ids.length;
    // Keep the book near its target size by swapping a GTC for a cancel (or back) at the edges.
    const tooBig = live > 1.2 * target;
    const tooSmall = live < 0.8 * target;
    if ((r < 0.09 && !tooBig) || (r >= 0.12 && r < 0.18 && tooSmall)) {
      const side: Side = rng.chance(0.5) ? 'buy' : 'sell';
      b.place(side, priceAt(side, rng.int(1, range)), rng.int(1, 20));
    } else if (r >= 0.09 && r < 0.12) {
      const side: Side = rng.chance(0.5) ? 'buy' : 'sell';
      const touch = side === 'buy' ? (b.shadow.bestAsk() ?? mid) : (b.shadow.bestBid() ?? mid);
      b.place(side, side === 'buy' ? touch + rng.int(0, 5) : touch - rng.int(0, 5), rng.int(5, 40), 'IOC');
    } else if (r < 0.18) {
      const id = b.live.pick(rng);
      if (id !== undefined) b.cancel(id);
    } else {
      const id = b.live.pick(rng);
      const o = id === undefined ? undefined : b.shadow.order(id);
      if (id === undefined || o === undefined) continue;
      const depth = o.side === 'buy' ? mid - o.price : o.price - mid;
      // Random walk of the quote, clamped to the band; a move just past the mid crosses.
      let next = depth + rng.int(-12, 12);
      if (next < -1) next = -1;
      if (next > range) next = range;
      if (next === depth) next = depth === range ? depth - 1 : depth + 1;
      b.amend(id, priceAt(o.side, next), undefined);
    }
  }
  return {
    name: 'exchange-core',
    description: `exchange-core mix around a fixed mid, ${target} resting orders over +/-${range} ticks, then ${flow} msgs`,
    commands: b.commands,
    load,
    mix: b.mix(load),
  };
}

/** 3. Deep static book: ~20,000 orders on 60 levels, then aggressive takers, cancels and refills. */
export function deepWorkload(seed: number, flow = 120_000): Workload {
  const rng = new Prng(seed);
  const b = new Builder();
  const target = 20_000;
  const levels = 30;
  const mid = 100_000;
  const priceAt = (side: Side, level: number) => (side === 'buy' ? mid - level : mid + level);
  for (let i = 0; i < target; i++) {
    const side: Side = rng.chance(0.5) ? 'buy' : 'sell';
    b.place(side, priceAt(side, rng.int(1, levels)), rng.int(1, 20));
  }
  const load = b.commands.length;
  for (let i = 0; i < flow; i++) {
    const r = rng.next();
    if (r < 0.25) {
      // Takers: heavy-tailed size, so most take one or two makers and a few sweep a level or more.
      const side: Side = rng.chance(0.5) ? 'buy' : 'sell';
      const qty = 1 + rng.powerLaw(1.1, 4_000);
      if (rng.chance(0.5)) b.market(side, qty);
      else b.place(side, priceAt(side === 'buy' ? 'sell' : 'buy', levels), qty, 'IOC');
    } else if (r < 0.5 || b.live.ids.length >= target) {
      const id = b.live.pick(rng);
      if (id !== undefined) b.cancel(id);
    } else {
      const side: Side = rng.chance(0.5) ? 'buy' : 'sell';
      b.place(side, priceAt(side, rng.int(1, levels)), rng.int(1, 20));
    }
  }
  return {
    name: 'deep',
    description: `${target} resting orders on ${2 * levels} levels, then ${flow} msgs of takers, cancels and refills`,
    commands: b.commands,
    load,
    mix: b.mix(load),
  };
}
