/**
 * Engine benchmark: prints figures, asserts nothing. `npm run bench:engine` from the root.
 *
 * For each seeded workload, in this one process: the same command array goes through our
 * FastBook and through npm nodejs-order-book. Reported per book:
 *  - msg/s: commands / wall time; a run replays the whole stream on a fresh book (again on
 *    another fresh book until >= MIN_RUN_SECONDS have passed); median of RUNS runs after one
 *    warm-up run (JIT), runs of the two books interleaved so machine noise hits both;
 *  - p50/p99/p99.9 latency: a separate run timing every command with process.hrtime.bigint
 *    (includes the timer's own cost, printed as "timer overhead");
 *  - heap bytes per resting order: heapUsed after gc() with K books holding the workload's
 *    initial resting orders, minus heapUsed before, over K x orders.
 */
import { cpus } from 'node:os';
import { FastBook, HashingSink } from '../src';
import type { CancelReason, Command, DoneStatus, EventSink, OrderKind, RejectCode, Side } from '../src';
import { newNobBook, runNob, runNobTimed, toNob } from './nob-adapter';
import type { NobProgram } from './nob-adapter';
import { deepWorkload, exchangeCoreWorkload, normalWorkload } from './workloads';
import type { Workload } from './workloads';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const SEED = Number(process.env.BENCH_SEED ?? 20_251_121);
const HEAP_SAMPLE_ORDERS = 60_000;
/** A timed run repeats the whole stream on fresh books until this much time has passed, so short runs are not dominated by timer and post-GC noise. */
const MIN_RUN_SECONDS = 0.3;

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with node --expose-gc (npm run bench does)');

/** The bench's sink: counts and sums, allocates nothing, one class so the engine's call sites stay monomorphic. */
class CountingSink implements EventSink {
  events = 0;
  trades = 0;
  tradedQty = 0;
  rejects = 0;
  accepted(_ts: number, _id: number, _o: number, _s: Side, _k: OrderKind, _p: number, _q: number, _b: number): void {
    this.events++;
  }
  rejected(_ts: number, _id: number, _c: string, _code: RejectCode): void {
    this.events++;
    this.rejects++;
  }
  trade(_ts: number, _t: number, _m: number, _mo: number, _tk: number, _to: number, _s: Side, _p: number, qty: number, _r: number): void {
    this.events++;
    this.trades++;
    this.tradedQty += qty;
  }
  cancelled(_ts: number, _id: number, _o: number, _r: CancelReason, _q: number): void {
    this.events++;
  }
  amended(_ts: number, _id: number, _o: number, _op: number, _oq: number, _p: number, _q: number, _k: boolean): void {
    this.events++;
  }
  done(_ts: number, _id: number, _o: number, _s: DoneStatus, _f: number, _r: number, _l: number): void {
    this.events++;
  }
}

function runOurs(book: FastBook, cmds: Command[], from: number, to: number): void {
  for (let i = from; i < to; i++) book.process(cmds[i]);
}

function runOursTimed(book: FastBook, cmds: Command[], lat: Float64Array): void {
  const hr = process.hrtime.bigint;
  for (let i = 0; i < cmds.length; i++) {
    const t0 = hr();
    book.process(cmds[i]);
    lat[i] = Number(hr() - t0);
  }
}

function seconds(t0: bigint): number {
  return Number(process.hrtime.bigint() - t0) / 1e9;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2;
}

function percentile(sorted: Float64Array, p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

interface BookResult {
  rates: number[];
  p50: number;
  p99: number;
  p999: number;
  heapPerOrder: number;
  endOrders: number;
}

interface Contender {
  throughputRun(): number;
  latencyRun(lat: Float64Array): void;
  heapPerOrder(): number;
  endOrders(): number;
}

function ours(w: Workload): Contender {
  const cmds = w.commands;
  let last: FastBook | undefined;
  return {
    throughputRun() {
      gc!();
      const t0 = process.hrtime.bigint();
      let passes = 0;
      let elapsed: number;
      do {
        const book = new FastBook(new CountingSink());
        runOurs(book, cmds, 0, cmds.length);
        last = book;
        passes++;
        elapsed = seconds(t0);
      } while (elapsed < MIN_RUN_SECONDS);
      return (passes * cmds.length) / elapsed;
    },
    latencyRun(lat) {
      const book = new FastBook(new CountingSink());
      gc!();
      runOursTimed(book, cmds, lat);
    },
    heapPerOrder() {
      const copies = Math.ceil(HEAP_SAMPLE_ORDERS / w.load);
      const books: FastBook[] = [];
      for (let k = 0; k < copies; k++) books.push(new FastBook(new CountingSink()));
      gc!();
      gc!();
      const before = process.memoryUsage().heapUsed;
      for (const b of books) runOurs(b, cmds, 0, w.load);
      gc!();
      gc!();
      const after = process.memoryUsage().heapUsed;
      const resting = books.reduce((s, b) => s + b.orderCount, 0);
      return (after - before) / resting;
    },
    endOrders: () => last?.orderCount ?? 0,
  };
}

function theirs(w: Workload, prog: NobProgram): Contender {
  let last: ReturnType<typeof newNobBook> | undefined;
  return {
    throughputRun() {
      gc!();
      const t0 = process.hrtime.bigint();
      let passes = 0;
      let elapsed: number;
      do {
        const book = newNobBook();
        runNob(book, prog, 0, prog.ops.length);
        last = book;
        passes++;
        elapsed = seconds(t0);
      } while (elapsed < MIN_RUN_SECONDS);
      return (passes * prog.ops.length) / elapsed;
    },
    latencyRun(lat) {
      const book = newNobBook();
      gc!();
      runNobTimed(book, prog, lat);
    },
    heapPerOrder() {
      const copies = Math.ceil(HEAP_SAMPLE_ORDERS / w.load);
      const books = Array.from({ length: copies }, () => newNobBook());
      gc!();
      gc!();
      const before = process.memoryUsage().heapUsed;
      for (const b of books) runNob(b, prog, 0, w.load);
      gc!();
      gc!();
      const after = process.memoryUsage().heapUsed;
      const resting = books.reduce((s, b) => s + Object.keys(b.orders).length, 0);
      return (after - before) / resting;
    },
    endOrders: () => (last === undefined ? 0 : Object.keys(last.orders).length),
  };
}

function measure(pair: [Contender, Contender], n: number): [BookResult, BookResult] {
  const rates: [number[], number[]] = [[], []];
  for (const c of pair) c.throughputRun(); // warm-up, discarded
  for (let r = 0; r < RUNS; r++) for (let k = 0; k < 2; k++) rates[k].push(pair[k].throughputRun());
  return pair.map((c, k) => {
    const lat = new Float64Array(n);
    c.latencyRun(lat);
    lat.sort();
    return {
      rates: rates[k],
      p50: percentile(lat, 0.5),
      p99: percentile(lat, 0.99),
      p999: percentile(lat, 0.999),
      heapPerOrder: c.heapPerOrder(),
      endOrders: c.endOrders(),
    };
  }) as [BookResult, BookResult];
}

function timerOverhead(): number {
  const hr = process.hrtime.bigint;
  const lat = new Float64Array(200_000);
  for (let i = 0; i < lat.length; i++) {
    const t0 = hr();
    lat[i] = Number(hr() - t0);
  }
  return median(Array.from(lat));
}

const fmtInt = (x: number) => Math.round(x).toLocaleString('en-US');
const fmtNs = (ns: number) => (ns >= 1_000 ? `${(ns / 1_000).toFixed(2)} us` : `${Math.round(ns)} ns`);

function eventHash(cmds: Command[]): string {
  const sink = new HashingSink();
  const book = new FastBook(sink);
  for (const c of cmds) book.process(c);
  return sink.digest();
}

function main(): void {
  const started = process.hrtime.bigint();
  console.log(
    `Kestrel matching-engine benchmark: node ${process.version}, ${cpus()[0]?.model ?? 'unknown cpu'} (${cpus().length} cpus), seed ${SEED}, ${RUNS} runs + 1 warm-up per book`,
  );
  console.log(`timer overhead (hrtime.bigint pair, median): ${fmtNs(timerOverhead())}`);
  const workloads = [normalWorkload(SEED), exchangeCoreWorkload(SEED + 1), deepWorkload(SEED + 2)];
  const summary: { name: string; ours: number; ratio: number }[] = [];
  for (const w of workloads) {
    const prog = toNob(w.commands);
    console.log(`\n== ${w.name}: ${w.description}`);
    console.log(`   ${w.mix}`);
    console.log(`   event hash (FastBook): ${eventHash(w.commands)}`);
    const [a, b] = measure([ours(w), theirs(w, prog)], w.commands.length);
    const ratio = median(a.rates) / median(b.rates);
    for (const [label, r] of [
      ['kestrel FastBook ', a],
      ['nodejs-order-book', b],
    ] as const) {
      console.log(
        `   ${label}  ${fmtInt(median(r.rates)).padStart(10)} msg/s  (runs: ${r.rates.map((x) => fmtInt(x)).join(', ')})  ` +
          `p50 ${fmtNs(r.p50)}  p99 ${fmtNs(r.p99)}  p99.9 ${fmtNs(r.p999)}  heap ${Math.round(r.heapPerOrder)} B/resting order  end book ${r.endOrders} orders`,
      );
    }
    console.log(`   ratio: x${ratio.toFixed(1)}`);
    summary.push({ name: w.name, ours: median(a.rates), ratio });
  }
  const worst = summary.reduce((m, s) => (s.ours < m.ours ? s : m));
  console.log(`\ntotal bench time ${seconds(started).toFixed(0)} s; worst scenario: ${worst.name}`);
  console.log(`worst-case: ${Math.round(worst.ours)} msg/s; vs nodejs-order-book x${worst.ratio.toFixed(1)}`);
}

main();
