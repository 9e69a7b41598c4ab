// Reads V8 CPU profiles of a benchmark's server (`BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=<dir>"`:
// one file per thread, the main thread's first) and prints each function's own time per acknowledged
// order, over the profile's busiest 20 s (the load; setup and shutdown left out):
//
//   node load-tests/lib/cpu-profile.mjs <profile> <orders> [<profile B> <orders B>] [--top N] [--by-package]
//
// --by-package sums the functions' time by where they live: an npm package (socket.io-parser, pg,
// …), a folder of the project's build (modules/engine, infra/http, the matching engine's files), a
// part of Node (node:events, …) or a native entry ((garbage collector), writev, …).
//
// With two profiles it prints both and their difference, largest differences first (e.g. the closed
// loop against the open loop). <orders> is the bench's "acknowledged orders" figure.
import { readFileSync } from 'node:fs';

const WINDOW_S = 20;
const WRITES = /^(writev|write|writeBuffer|writeUtf8String|writeLatin1String)$/;

/** A frame's place: its npm package, its folder in a build (two levels), Node's module, or the native function's name. */
function placeOf(f) {
  const pkg = f.url.match(/node_modules\/((@[^/]+\/)?[^/]+)/);
  if (pkg) return pkg[1];
  if (f.url.includes('/dist/'))
    return f.url
      .replace(/.*\/dist\//, '')
      .split('/')
      .slice(0, 2)
      .join('/');
  if (f.url.startsWith('node:')) return f.url.split('/').slice(0, 2).join('/');
  return f.url || f.functionName || '(anonymous)';
}

function load(file, orders, byPlace) {
  const p = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const at = [];
  let t = p.startTime;
  for (const d of p.timeDeltas) at.push((t += d));
  const idle = (i) => byId.get(p.samples[i]).callFrame.functionName === '(idle)';
  // The busiest window: the most non-idle samples in WINDOW_S consecutive seconds.
  const perSecond = [];
  at.forEach((ts, i) => {
    if (idle(i)) return;
    const s = Math.floor((ts - p.startTime) / 1e6);
    perSecond[s] = (perSecond[s] ?? 0) + 1;
  });
  let from = 0;
  let best = -1;
  for (let s = 0; s + WINDOW_S <= Math.max(perSecond.length, WINDOW_S); s++) {
    let sum = 0;
    for (let k = s; k < s + WINDOW_S; k++) sum += perSecond[k] ?? 0;
    if (sum > best) [best, from] = [sum, s];
  }
  const lo = p.startTime + from * 1e6;
  const hi = lo + WINDOW_S * 1e6;
  const self = new Map();
  let busy = 0;
  let writes = 0;
  at.forEach((ts, i) => {
    if (ts < lo || ts >= hi || idle(i)) return;
    const f = byId.get(p.samples[i]).callFrame;
    const key = byPlace ? placeOf(f) : `${f.functionName || '(anonymous)'} ${f.url.split('/').slice(-2).join('/')}:${f.lineNumber + 1}`;
    const us = p.timeDeltas[i] ?? 0;
    self.set(key, (self.get(key) ?? 0) + us);
    busy += us;
    if (!f.url && WRITES.test(f.functionName)) writes += us;
  });
  return { self, busy, writes, orders };
}

const args = process.argv.slice(2);
const topAt = args.indexOf('--top');
const top = topAt >= 0 ? Number(args.splice(topAt, 2)[1]) : 40;
const byAt = args.indexOf('--by-package');
const byPlace = byAt >= 0;
if (byPlace) args.splice(byAt, 1);
if (args.length !== 2 && args.length !== 4) {
  console.error('usage: node load-tests/lib/cpu-profile.mjs <profile> <orders> [<profile B> <orders B>] [--top N] [--by-package]');
  process.exit(2);
}
const a = load(args[0], Number(args[1]), byPlace);
const b = args.length === 4 ? load(args[2], Number(args[3]), byPlace) : undefined;
const per = (x, k) => (x.self.get(k) ?? 0) / x.orders;
const f = (n) => n.toFixed(2).padStart(8);
console.log(`busy µs per order: ${f(a.busy / a.orders)}${b ? ` ${f(b.busy / b.orders)} (B)` : ''}`);
// A sample is taken when the profiler's signal reaches the thread, and a thread that is not running
// gets it when it runs again. A write (to a socket, mostly) that wakes a sleeping peer (PostgreSQL's backend, the
// load generator) lets that peer preempt the writer on a busy machine, so the samples of such a
// write include the time the thread then spent off the CPU: an upper bound on the system call's
// own cost (`perf trace -s -p <pid>` measures that), and `cores used` is the thread's CPU.
const writes = (x) => x.writes / x.orders;
console.log(`of which in writes (with the time off the CPU after waking a peer): ${f(writes(a))}${b ? ` ${f(writes(b))} (B)` : ''}`);
const keys = [...new Set([...a.self.keys(), ...(b ? b.self.keys() : [])])];
const rank = b ? (k) => Math.abs(per(b, k) - per(a, k)) : (k) => per(a, k);
keys.sort((x, y) => rank(y) - rank(x));
for (const k of keys.slice(0, top)) console.log(b ? `${f(per(a, k))}${f(per(b, k))}${f(per(b, k) - per(a, k))}  ${k}` : `${f(per(a, k))}  ${k}`);
