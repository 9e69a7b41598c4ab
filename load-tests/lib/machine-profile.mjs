// BENCH_PERF=<file>: the whole machine's CPU over the measured window, by role, from Linux `perf`
// (`perf record -a`, on-CPU samples of every process and the kernel, idle included), where the V8
// profiles (`--cpu-prof`) see only JavaScript threads and count time off the CPU inside a system
// call as that call's. Printed as one line of roles (the server's main thread, its busiest other
// thread — the projection replica —, its other threads, the generator, PostgreSQL, idle, the rest),
// each as a share of the machine's cores, its CPU ms per order and the part of it in the kernel; then
// one line of what PostgreSQL's share went to (its executor's main steps, inclusive). Needs `perf`
// (Debian's linux-perf) and root; without them the bench says so and goes on.
import { spawn, spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { threadTimes } from './stack.mjs';

/** PostgreSQL's steps reported inclusively (a sample counts for every step on its stack). */
const PG_STEPS = [
  ['CopyFrom', 'COPY'],
  ['ExecInsertIndexTuples', 'index inserts'],
  ['standard_ExecutorRun', 'statements'],
  ['CommitTransactionCommand', 'commits'],
  ['InputFunctionCall', 'text input'],
  ['pg_plan_queries', 'planning'],
  ['pq_getbyte', 'reading the client'],
];

/** A process's thread ids (none once it has ended). */
const tasks = (pid) => [...threadTimes(pid).keys()];

/**
 * The server's and the generator's threads by role: the server's main thread, its other threads
 * (ranked by `weight` when given: the heaviest is 'server busiest other', the projection replica's)
 * and the generator's. Other threads have no role here (PostgreSQL's are known by their name).
 */
export function threadRoles({ server, generator }, weight) {
  const role = new Map(tasks(generator).map((tid) => [tid, 'generator']));
  const others = tasks(server).filter((tid) => tid !== server);
  if (weight) others.sort((a, b) => weight(b) - weight(a));
  others.forEach((tid, i) => role.set(tid, weight && i === 0 ? 'server busiest other' : 'server other'));
  if (server !== undefined) role.set(server, 'server main');
  return role;
}

/**
 * Runs `perf <args> -- sleep <seconds>`: `done` resolves to whether it succeeded (false without
 * perf or without the right to use it), `stderr()` is what it printed there (perf stat's counts).
 */
export function perfFor(seconds, args) {
  const perf = spawn('perf', [...args, '--', 'sleep', String(seconds)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  perf.stderr.on('data', (d) => (stderr += d));
  const done = new Promise((resolve) => {
    perf.on('error', () => resolve(false));
    perf.on('close', (code) => resolve(code === 0));
  });
  return { done, stderr: () => stderr };
}

/** Starts `perf record -a` for `seconds`; `report(units)` (after the window, while the processes still run) resolves to the lines to print. */
export function machineProfile(file, seconds, { server, generator }) {
  const recorded = perfFor(seconds, ['record', '-a', '-g', '-F', '999', '-o', file]).done;
  return {
    async report(units) {
      if (!(await recorded)) return 'machine by role: no profile (`perf record -a` failed: is linux-perf installed and are we root?)';
      const perf = (args) => spawnSync('perf', ['report', '-i', file, '--stdio', ...args], { encoding: 'utf8', maxBuffer: 1 << 28 }).stdout ?? '';
      // Each line `  12.34%  <tid>:<comm>  <dso>`: a share of all samples (every core, idle included), per thread.
      const threads = new Map();
      for (const line of perf(['--no-children', '--sort', 'pid,dso', '-g', 'none']).split('\n')) {
        const m = /^\s*([\d.]+)%\s+(\d+):(\S+)\s+(.*\S)\s*$/.exec(line);
        if (!m) continue;
        const [, pct, tid, comm, dso] = m;
        const t = threads.get(Number(tid)) ?? { comm, all: 0, kernel: 0 };
        t.all += Number(pct);
        if (dso.includes('kernel')) t.kernel += Number(pct);
        threads.set(Number(tid), t);
      }
      const role = threadRoles({ server, generator }, (tid) => threads.get(tid)?.all ?? 0);
      const shares = new Map();
      for (const [tid, t] of threads) {
        const name = role.get(tid) ?? (t.comm === 'postgres' ? 'PostgreSQL' : t.comm === 'swapper' ? 'idle' : 'other');
        const s = shares.get(name) ?? { all: 0, kernel: 0 };
        s.all += t.all;
        s.kernel += t.kernel;
        shares.set(name, s);
      }
      const total = [...shares.values()].reduce((a, s) => a + s.all, 0) || 100;
      const cores = availableParallelism();
      const order = ['server main', 'server busiest other', 'server other', 'generator', 'PostgreSQL', 'idle', 'other'];
      const roles = order
        .filter((n) => shares.has(n))
        .map((n) => {
          const s = shares.get(n);
          const share = s.all / total;
          const ms = (share * cores * seconds * 1000) / units;
          return (
            `${n} ${(100 * share).toFixed(1)} %` +
            (n === 'idle' ? '' : ` (${ms.toFixed(3)} ms/order, kernel ${((100 * s.kernel) / (s.all || 1)).toFixed(0)} %)`)
          );
        });
      const pg = shares.get('PostgreSQL')?.all;
      const steps = [];
      if (pg) {
        const inclusive = perf(['--children', '--comm', 'postgres', '--sort', 'sym', '-g', 'none']);
        for (const [fn, label] of PG_STEPS) {
          const m = new RegExp(`^\\s*([\\d.]+)%\\s+[\\d.]+%\\s+\\[\\.\\]\\s+${fn}\\s*$`, 'm').exec(inclusive);
          if (m) steps.push(`${label} ${((100 * Number(m[1])) / pg).toFixed(0)} %`);
        }
      }
      return [
        `machine by role (perf, ${seconds} s, share of ${cores} cores): ${roles.join(', ')}`,
        ...(steps.length ? [`PostgreSQL's share (inclusive): ${steps.join(', ')}`] : []),
      ].join('\n');
    },
  };
}
