// npm run bench:targets — the Spot core v2 targets as docs/performance.md's sittings measure them:
// each target's run just after its own `npm run bench:floor` (F = the floor's orders/s), judged by
// the issue's rules:
//
//   core    BENCH_RATE=5000 npm run bench:core                     ≥ 0.97 × 5,000/s, p99 ≤ 20 ms
//   http    BENCH_RATE=<0.3 F> npm run bench:api                   ≥ 0.97 × offered, p99 ≤ 50 ms and
//                                                                  cancels' p99 ≤ 50 ms
//   closed  npm run bench:api                                      ≥ 0.45 F, projector lag p99 ≤ 500 ms,
//                                                                  trial balance exact
//   plain   BENCH_TRANSPORT=plain BENCH_RATE=<0.6 F> npm run bench:api   as http
//   ws      BENCH_TRANSPORT=ws BENCH_RATE=<0.6 F> npm run bench:api      as http (Socket.IO)
//
// Options:
//   --rounds N         rounds of the kinds below, one after the other (default 1; a round takes ~6 min)
//   --kinds a,b,…      which targets, in this order (default core,http,closed,plain,ws)
//   --out DIR          where each run's output is kept: DIR/r<round>-<kind>.floor.log and .log
//                      (default a new folder under the system's temp folder)
//   --judge DIR        run nothing: judge the logs already in DIR (e.g. an earlier --out) again
//
// Prints a line per run as it ends, then per target the runs that met and each run's figures. Last
// line: `targets: core <m>/<n> http <m>/<n> closed <m>/<n> plain <m>/<n> ws <m>/<n>` (the kinds run).
// The builds are made once, before the first run. Bounded: it stops after its rounds.
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SERVER_NODE_ARGS } from './lib/stack.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const KINDS = ['core', 'http', 'closed', 'plain', 'ws'];
const CORE_RATE = 5000;

/** How each kind is run, given the floor F just before it: the script, its node arguments and environment. */
const RUNS = {
  core: () => ({ script: 'bench-core.mjs', nodeArgs: SERVER_NODE_ARGS, env: { BENCH_RATE: String(CORE_RATE) } }),
  http: (f) => ({ script: 'bench-api.mjs', env: { BENCH_RATE: String(Math.floor((f * 3) / 10)) } }),
  closed: () => ({ script: 'bench-api.mjs', env: {} }),
  plain: (f) => ({ script: 'bench-api.mjs', env: { BENCH_TRANSPORT: 'plain', BENCH_RATE: String(Math.floor((f * 6) / 10)) } }),
  ws: (f) => ({ script: 'bench-api.mjs', env: { BENCH_TRANSPORT: 'ws', BENCH_RATE: String(Math.floor((f * 6) / 10)) } }),
};

function options(argv) {
  const o = { rounds: 1, kinds: KINDS, out: undefined, judge: undefined };
  for (let i = 0; i < argv.length; i++) {
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`${argv[i]} needs a value`);
      return argv[++i];
    };
    if (argv[i] === '--rounds') o.rounds = Number(value());
    else if (argv[i] === '--kinds') o.kinds = value().split(',');
    else if (argv[i] === '--out') o.out = value();
    else if (argv[i] === '--judge') o.judge = value();
    else throw new Error(`unknown option ${argv[i]} (--rounds N, --kinds ${KINDS.join(',')}, --out DIR, --judge DIR)`);
  }
  if (!Number.isInteger(o.rounds) || o.rounds < 1 || o.rounds > 50) throw new Error('--rounds is a whole number from 1 to 50');
  const unknown = o.kinds.filter((k) => !KINDS.includes(k));
  if (unknown.length || !o.kinds.length) throw new Error(`--kinds takes ${KINDS.join(', ')} (not ${unknown.join(', ') || 'nothing'})`);
  return o;
}

/** Whether `achieved` (orders/s, a whole number) is at least `percent` % of `of`, in whole numbers (no rounding at the edge). */
const atLeast = (achieved, percent, of) => achieved * 100 >= percent * of;

const number = (text, re) => {
  const m = re.exec(text);
  return m ? Number(m[1]) : undefined;
};

/**
 * One run's figures from its logs, and whether it met its target (`met`), or why it cannot be
 * judged (`error`: a log missing, or without its last line).
 */
export function judge(dir, round, kind) {
  const base = join(dir, `r${round}-${kind}`);
  if (!existsSync(`${base}.floor.log`) || !existsSync(`${base}.log`)) return { round, kind, error: 'no log' };
  const floor = readFileSync(`${base}.floor.log`, 'utf8');
  const text = readFileSync(`${base}.log`, 'utf8');
  const f = number(floor, /^floor: (\d+) orders\/s/m);
  if (f === undefined) return { round, kind, error: 'the floor printed no `floor:` line' };
  const run = { round, kind, f, idle: number(text, /machine idle (\d+) %/), k: number(text, /K = ([\d.]+)/) };
  if (kind === 'core') {
    const m = /^core: (\d+) orders\/s p99 ([\d.]+) ms/m.exec(text);
    if (!m) return { ...run, error: 'no `core:` line' };
    const [achieved, p99] = [Number(m[1]), Number(m[2])];
    return { ...run, offered: CORE_RATE, achieved, p99, met: atLeast(achieved, 97, CORE_RATE) && p99 <= 20 };
  }
  const m = /^orders: (\d+)\/s p99 ([\d.]+) ms cancels p99 ([\d.]+) ms/m.exec(text);
  if (!m) return { ...run, error: 'no `orders:` line' };
  const [achieved, p99, cancelsP99] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (kind === 'closed') {
    const lagP99 = number(text, /^projector lag ms: p50 [\d.]+ p99 ([\d.]+)/m);
    const balance = /^trial balance after the run: (\S+)/m.exec(text)?.[1];
    const met = atLeast(achieved, 45, f) && lagP99 !== undefined && lagP99 <= 500 && balance === 'exact';
    return { ...run, achieved, p99, cancelsP99, lagP99, balance, met };
  }
  const offered = number(text, /open loop, (\d+) orders\/s offered/);
  if (offered === undefined) return { ...run, error: 'no `open loop` line' };
  return { ...run, offered, achieved, p99, cancelsP99, met: atLeast(achieved, 97, offered) && p99 <= 50 && cancelsP99 <= 50 };
}

/** A run's figures in one line, as the tables of docs/performance.md give them. */
export function describe(r) {
  const head = `r${r.round} ${r.kind}`;
  if (r.error) return `${head}: not judged (${r.error})`;
  const verdict = r.met ? 'met' : 'missed';
  const k = r.k === undefined ? '' : `, K ${r.k.toFixed(2)}`;
  const idle = r.idle === undefined ? '' : `, ${r.idle} % idle`;
  const ms = (v) => v.toFixed(1);
  if (r.kind === 'core') return `${head}: ${verdict}: ${r.achieved}/s of ${r.offered} p99 ${ms(r.p99)} ms (F ${r.f}${idle})`;
  if (r.kind === 'closed')
    return `${head}: ${verdict}: ${r.achieved}/s = ${(r.achieved / r.f).toFixed(3)} F (F ${r.f}${k}${idle}), lag p99 ${r.lagP99 === undefined ? '?' : ms(r.lagP99)} ms, trial balance ${r.balance ?? '?'}`;
  return `${head}: ${verdict}: ${r.achieved}/s of ${r.offered} = ${(r.achieved / r.offered).toFixed(3)} × p99 ${ms(r.p99)} ms cancels p99 ${ms(r.cancelsP99)} ms (F ${r.f}${k}${idle})`;
}

/** Runs `node [args] load-tests/<script>` with `env` added, its output (both streams) into `file`; resolves to its exit code. */
function runInto(file, script, nodeArgs, env) {
  return new Promise((done, fail) => {
    const log = createWriteStream(file);
    const child = spawn(process.execPath, [...nodeArgs, join(root, 'load-tests', script)], { cwd: root, env: { ...process.env, ...env } });
    child.stdout.pipe(log, { end: false });
    child.stderr.pipe(log, { end: false });
    child.on('error', fail);
    child.on('close', (code) => log.end(() => done(code)));
  });
}

async function measure(o) {
  const dir = o.out ?? mkdtempSync(join(tmpdir(), 'kestrel-targets-'));
  mkdirSync(dir, { recursive: true });
  console.log(`[targets] ${o.rounds} round(s) of ${o.kinds.join(', ')}; logs in ${dir}`);
  const build = spawnSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  if (build.status !== 0) throw new Error('npm run build failed');
  const runs = [];
  for (let round = 1; round <= o.rounds; round++)
    for (const kind of o.kinds) {
      const base = join(dir, `r${round}-${kind}`);
      await runInto(`${base}.floor.log`, 'bench-http-floor.mjs', [], {});
      const f = number(readFileSync(`${base}.floor.log`, 'utf8'), /^floor: (\d+) orders\/s/m);
      if (f !== undefined) {
        const { script, nodeArgs = [], env } = RUNS[kind](f);
        await runInto(`${base}.log`, script, nodeArgs, env);
      }
      const r = judge(dir, round, kind);
      console.log(`[targets] ${new Date().toISOString().slice(11, 16)} ${describe(r)}`);
      runs.push(r);
    }
  return runs;
}

function report(o, runs) {
  console.log('');
  for (const kind of o.kinds) {
    const mine = runs.filter((r) => r.kind === kind);
    console.log(`${kind}: met in ${mine.filter((r) => r.met).length} of ${mine.length}`);
    for (const r of mine) console.log(`  ${describe(r)}`);
  }
  console.log(
    `targets: ${o.kinds.map((k) => `${k} ${runs.filter((r) => r.kind === k && r.met).length}/${runs.filter((r) => r.kind === k).length}`).join(' ')}`,
  );
}

async function main() {
  const o = options(process.argv.slice(2));
  if (o.judge) {
    // The rounds are those whose logs are there (r1, r2, … up to the first missing for every kind).
    const runs = [];
    for (let round = 1; o.kinds.some((k) => existsSync(join(o.judge, `r${round}-${k}.floor.log`))); round++)
      for (const kind of o.kinds) runs.push(judge(o.judge, round, kind));
    if (!runs.length) throw new Error(`no r1-<kind>.floor.log in ${o.judge}`);
    report(o, runs);
    return;
  }
  report(o, await measure(o));
}

if (process.argv[1] === fileURLToPath(import.meta.url))
  main().catch((err) => {
    console.error(`[targets] ${err.message}`);
    process.exit(1);
  });
