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
// (0.3 F and 0.6 F rounded down.) Options:
//   --rounds N         rounds of the kinds below, one after the other (default 1; a round takes ~6 min)
//   --kinds a,b,…      which targets, in this order (default core,http,closed,plain,ws)
//   --out DIR          where each run's output goes: DIR/r<round>-<kind>.floor.log and .log (default a
//                      new folder under the system's temp folder; a folder holding such logs is refused)
//   --judge DIR        run nothing: judge the logs in DIR again (every r<round>-<kind> there, or the
//                      --kinds given)
//
// The runs get the caller's environment without the settings that change what a benchmark measures
// (every BENCH_* but BENCH_PG_SERVER, and API_URL; their names are printed), and each log is checked
// to be the run its target asks for (the transport, the loop, the rate offered) before it is judged.
// Prints a line per run as it ends, then per target the runs that met and each run's figures. Last
// line: `targets: core <m>/<n> http <m>/<n> …` (the kinds judged; n counts the runs judged, and runs
// that could not be judged, a crash or a log missing, are added as `(+k not judged)` and make the
// exit code 1). The build is made once, before the first run. Bounded: each floor or run is stopped
// after 15 minutes, and the tool after its rounds.
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SERVER_NODE_ARGS } from './lib/stack.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const KINDS = ['core', 'http', 'closed', 'plain', 'ws'];
const CORE_RATE = 5000;
const RUN_TIMEOUT_MS = 15 * 60_000;
const LOG_NAME = /^r(\d+)-(core|http|closed|plain|ws)\.(?:floor\.)?log$/;
/** The process group of the floor or run going now: stopped with the tool (its own group does not get the terminal's Ctrl-C). */
let running;
for (const signal of ['SIGINT', 'SIGTERM'])
  process.on(signal, () => {
    if (running) killGroup(running);
    process.exit(1);
  });

function killGroup(pid) {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Nothing left in the group.
  }
}

/**
 * How each kind is run: the script, its node arguments, the transport it is given (BENCH_TRANSPORT)
 * and its log names, and the rate it is offered (BENCH_RATE): the core's fixed, the open loops'
 * `tenths` of F rounded down, the closed loop none.
 */
const RUNS = {
  core: { script: 'bench-core.mjs', nodeArgs: SERVER_NODE_ARGS, rate: CORE_RATE },
  http: { script: 'bench-api.mjs', transport: /^\[bench\] transport: HTTP,/m, tenths: 3 },
  closed: { script: 'bench-api.mjs', transport: /^\[bench\] transport: HTTP,/m },
  plain: { script: 'bench-api.mjs', env: { BENCH_TRANSPORT: 'plain' }, transport: /^\[bench\] transport: plain WebSocket/m, tenths: 6 },
  ws: { script: 'bench-api.mjs', env: { BENCH_TRANSPORT: 'ws' }, transport: /^\[bench\] transport: Socket\.IO/m, tenths: 6 },
};

/** The rate a kind is offered after a floor of F orders/s (the closed loop: none). */
const rateFor = (kind, f) => RUNS[kind].rate ?? (RUNS[kind].tenths === undefined ? undefined : Math.floor((f * RUNS[kind].tenths) / 10));

function options(argv) {
  const o = { rounds: undefined, kinds: undefined, out: undefined, judge: undefined };
  const here = process.env.INIT_CWD ?? process.cwd();
  for (let i = 0; i < argv.length; i++) {
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`${argv[i]} needs a value`);
      return argv[++i];
    };
    if (argv[i] === '--rounds') o.rounds = Number(value());
    else if (argv[i] === '--kinds') o.kinds = value().split(',');
    else if (argv[i] === '--out') o.out = resolve(here, value());
    else if (argv[i] === '--judge') o.judge = resolve(here, value());
    else throw new Error(`unknown option ${argv[i]} (--rounds N, --kinds ${KINDS.join(',')}, --out DIR, --judge DIR)`);
  }
  if (o.judge && (o.rounds !== undefined || o.out)) throw new Error('--judge runs nothing: --rounds and --out do not go with it');
  if (o.rounds !== undefined && (!Number.isInteger(o.rounds) || o.rounds < 1 || o.rounds > 50)) throw new Error('--rounds is a whole number from 1 to 50');
  if (o.kinds) {
    const unknown = o.kinds.filter((k) => !KINDS.includes(k));
    if (unknown.length || !o.kinds.length) throw new Error(`--kinds takes ${KINDS.join(', ')} (not ${unknown.join(', ') || 'nothing'})`);
    if (new Set(o.kinds).size !== o.kinds.length) throw new Error('--kinds names each kind once');
  }
  return o;
}

/** Whether `achieved` (orders/s, a whole number) is at least `percent` % of `of`, in whole numbers (no rounding at the edge). */
const atLeast = (achieved, percent, of) => achieved * 100 >= percent * of;

/** The number `re` captures first in `text`, or undefined. */
const number = (text, re) => {
  const m = re.exec(text);
  return m ? Number(m[1]) : undefined;
};

/** What follows the last line starting with `marker` (a log that holds two runs is judged by its last), or undefined. */
function lastRun(text, marker) {
  const at = text.lastIndexOf(`\n${marker}`);
  if (at >= 0) return text.slice(at + 1);
  return text.startsWith(marker) ? text : undefined;
}

/** A floor log's F (its last floor's orders/s) and steal, or undefined when it printed no `floor:` line. */
function floorOf(file) {
  const floor = lastRun(readFileSync(file, 'utf8'), '[bench] floor:');
  const f = floor === undefined ? undefined : number(floor, /^floor: (\d+) orders\/s/m);
  return f === undefined || f <= 0 ? undefined : { f, steal: number(floor, /steal (\d+) %/) };
}

/**
 * One run's figures from its logs and whether it met its target (`met`), or why it cannot be judged
 * (`error`: a log missing or cut short, or a run that is not the one its target asks for).
 */
function judge(dir, round, kind) {
  const base = join(dir, `r${round}-${kind}`);
  const run = { round, kind };
  if (!existsSync(`${base}.floor.log`)) return { ...run, error: 'no floor log' };
  const floor = floorOf(`${base}.floor.log`);
  if (!floor) return { ...run, error: 'the floor printed no `floor:` line' };
  const { f } = floor;
  run.f = f;
  run.floorSteal = floor.steal;
  if (!existsSync(`${base}.log`)) return { ...run, error: 'no log' };
  const text = lastRun(readFileSync(`${base}.log`, 'utf8'), '[bench] making ');
  if (text === undefined) return { ...run, error: 'not a benchmark’s log' };
  run.idle = number(text, /machine idle (\d+) %/);
  run.steal = number(text, /machine idle \d+ %, steal (\d+) %/);
  run.k = number(text, /K = ([\d.]+)/);
  const rate = rateFor(kind, f);
  if (kind === 'core') {
    const offered = number(text, /then (\d+) orders\/s offered \(open loop\)/);
    if (offered !== rate) return { ...run, error: `offered ${offered ?? 'no rate'}, not ${rate}/s` };
    const m = /^core: (\d+) orders\/s p99 ([\d.]+) ms/m.exec(text);
    if (!m) return { ...run, error: 'no `core:` line (the run did not finish)' };
    const [achieved, p99] = [Number(m[1]), Number(m[2])];
    return { ...run, offered, achieved, p99, met: atLeast(achieved, 97, CORE_RATE) && p99 <= 20 };
  }
  if (!RUNS[kind].transport.test(text)) return { ...run, error: `not the ${kind} transport` };
  const offered = number(text, /^\[bench\] load: open loop, (\d+) orders\/s offered/m);
  if (kind === 'closed' ? !/^\[bench\] load: closed loop,/m.test(text) : offered !== rate)
    return { ...run, error: kind === 'closed' ? 'not a closed loop' : `offered ${offered ?? 'no rate'}, not 0.${RUNS[kind].tenths} F = ${rate}/s` };
  const m = /^orders: (\d+)\/s p99 ([\d.]+) ms cancels p99 ([\d.]+) ms/m.exec(text);
  if (!m) return { ...run, error: 'no `orders:` line (the run did not finish)' };
  const [achieved, p99, cancelsP99] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (kind === 'closed') {
    const lagP99 = number(text, /^projector lag ms: p50 [\d.]+ p99 ([\d.]+)/m);
    const balance = /^trial balance after the run: (\S+)/m.exec(text)?.[1];
    if (lagP99 === undefined || balance === undefined) return { ...run, error: 'no projector lag or trial balance line' };
    return { ...run, achieved, p99, cancelsP99, lagP99, balance, met: atLeast(achieved, 45, f) && lagP99 <= 500 && balance === 'exact' };
  }
  return { ...run, offered, achieved, p99, cancelsP99, met: atLeast(achieved, 97, offered) && p99 <= 50 && cancelsP99 <= 50 };
}

/** A ratio rounded down to three decimals (a run just short of an edge does not print as on it). */
const down = (x) => (Math.floor(x * 1000) / 1000).toFixed(3);
const ms = (v) => v.toFixed(1);

/** A run's figures in one line. */
function describe(r) {
  const head = `r${r.round} ${r.kind}`;
  if (r.error) return `${head}: not judged (${r.error})`;
  const verdict = r.met ? 'met' : 'missed';
  const machine = [
    `F ${r.f}${r.floorSteal ? ` at ${r.floorSteal} % steal` : ''}`,
    r.k === undefined ? '' : `K ${r.k.toFixed(2)}`,
    r.idle === undefined ? '' : `${r.idle} % idle`,
    r.steal ? `${r.steal} % steal` : '',
  ]
    .filter(Boolean)
    .join(', ');
  if (r.kind === 'core') return `${head}: ${verdict}: ${r.achieved}/s of ${r.offered} p99 ${ms(r.p99)} ms (${machine})`;
  if (r.kind === 'closed')
    return `${head}: ${verdict}: ${r.achieved}/s = ${down(r.achieved / r.f)} F (${machine}), lag p99 ${ms(r.lagP99)} ms, trial balance ${r.balance}`;
  return `${head}: ${verdict}: ${r.achieved}/s of ${r.offered} = ${down(r.achieved / r.offered)} × p99 ${ms(r.p99)} ms cancels p99 ${ms(r.cancelsP99)} ms (${machine})`;
}

/** The caller's environment without the settings that change what a benchmark measures, and their names. */
function runEnvironment() {
  const env = { ...process.env };
  const dropped = Object.keys(env).filter((k) => (k.startsWith('BENCH_') && k !== 'BENCH_PG_SERVER') || k === 'API_URL');
  for (const k of dropped) delete env[k];
  return { env, dropped };
}

/**
 * Runs `node [args] load-tests/<script>` in its own process group, its output (both streams) into
 * `file`; resolves to how it ended. Whatever it leaves running in its group when it exits (a server
 * it did not stop) is killed, and so is the group after RUN_TIMEOUT_MS.
 */
function runInto(file, script, nodeArgs, env) {
  return new Promise((done, fail) => {
    const log = createWriteStream(file);
    const child = spawn(process.execPath, [...nodeArgs, join(root, 'load-tests', script)], {
      cwd: root,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    running = child.pid;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, RUN_TIMEOUT_MS);
    let ended;
    child.stdout.pipe(log, { end: false });
    child.stderr.pipe(log, { end: false });
    child.on('error', fail);
    child.on('exit', (code, signal) => {
      ended = { code, signal };
      killGroup(child.pid);
    });
    child.on('close', () => {
      clearTimeout(timer);
      running = undefined;
      log.end(() => done({ ...ended, timedOut }));
    });
  });
}

const ending = (what, e) =>
  e.timedOut
    ? `; the ${what} was stopped after ${RUN_TIMEOUT_MS / 60_000} min`
    : e.code
      ? `; the ${what} exited with code ${e.code}`
      : e.signal
        ? `; the ${what} ended by ${e.signal}`
        : '';

async function measure(o) {
  const dir = o.out ?? mkdtempSync(join(tmpdir(), 'kestrel-targets-'));
  mkdirSync(dir, { recursive: true });
  if (readdirSync(dir).some((name) => LOG_NAME.test(name))) throw new Error(`${dir} already holds runs' logs: give another --out`);
  const { env, dropped } = runEnvironment();
  console.log(`[targets] ${o.rounds} round(s) of ${o.kinds.join(', ')}; logs in ${dir}`);
  if (dropped.length) console.log(`[targets] left out of the runs' environment: ${dropped.join(', ')}`);
  const build = spawnSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: ['ignore', 2, 2] });
  if (build.error || build.status !== 0) throw new Error(`npm run build failed${build.error ? `: ${build.error.message}` : ''}`);
  const runs = [];
  for (let round = 1; round <= o.rounds; round++)
    for (const kind of o.kinds) {
      const base = join(dir, `r${round}-${kind}`);
      const floorEnded = await runInto(`${base}.floor.log`, 'bench-http-floor.mjs', [], env);
      const floor = floorOf(`${base}.floor.log`);
      let runEnded;
      if (floor) {
        const { script, nodeArgs = [], env: own } = RUNS[kind];
        const rate = rateFor(kind, floor.f);
        runEnded = await runInto(`${base}.log`, script, nodeArgs, { ...env, ...own, ...(rate === undefined ? {} : { BENCH_RATE: String(rate) }) });
      }
      const r = judge(dir, round, kind);
      if (r.error) r.error += runEnded ? ending('run', runEnded) : ending('floor', floorEnded);
      console.log(`[targets] ${new Date().toISOString().slice(11, 16)} ${describe(r)}`);
      runs.push(r);
    }
  return runs;
}

function report(kinds, runs) {
  console.log('');
  const counts = [];
  for (const kind of kinds) {
    const mine = runs.filter((r) => r.kind === kind);
    const judged = mine.filter((r) => !r.error);
    const met = judged.filter((r) => r.met).length;
    const notJudged = mine.length - judged.length;
    console.log(`${kind}: met in ${met} of ${judged.length}${notJudged ? ` (${notJudged} more not judged)` : ''}`);
    for (const r of mine) console.log(`  ${describe(r)}`);
    counts.push(`${kind} ${met}/${judged.length}${notJudged ? ` (+${notJudged} not judged)` : ''}`);
  }
  console.log(`targets: ${counts.join(' ')}`);
  if (runs.some((r) => r.error)) process.exitCode = 1;
}

async function main() {
  const o = options(process.argv.slice(2));
  if (o.judge) {
    if (!existsSync(o.judge)) throw new Error(`no folder ${o.judge}`);
    const found = new Map();
    for (const name of readdirSync(o.judge)) {
      const m = LOG_NAME.exec(name);
      if (m && (!o.kinds || o.kinds.includes(m[2]))) found.set(`${m[1]}-${m[2]}`, { round: Number(m[1]), kind: m[2] });
    }
    if (!found.size) throw new Error(`no r<round>-<kind>.floor.log or .log in ${o.judge}`);
    const kinds = o.kinds ?? KINDS.filter((k) => [...found.values()].some((r) => r.kind === k));
    const runs = [...found.values()]
      .sort((a, b) => a.round - b.round || KINDS.indexOf(a.kind) - KINDS.indexOf(b.kind))
      .map(({ round, kind }) => judge(o.judge, round, kind));
    report(kinds, runs);
    return;
  }
  o.rounds ??= 1;
  o.kinds ??= KINDS;
  report(o.kinds, await measure(o));
}

main().catch((err) => {
  console.error(`[targets] ${err.message}`);
  process.exit(1);
});
