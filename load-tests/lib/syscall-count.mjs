// BENCH_SYSCALLS=1: the system calls each role makes per order over the measured window, counted by
// Linux `perf stat` (counting only: no samples are written, so the load barely notices it, unlike
// BENCH_PERF's `perf record`). On a virtual machine every entry into the kernel is dear (the
// forty-first sitting's profile), and a request's share of them is fixed by the transport: a read
// and a write on each side per message, unless two messages share one call. Roles as in
// lib/machine-profile.mjs: the server's main thread, its other threads, the generator, PostgreSQL.
// Needs `perf` (Debian's linux-perf) and root; without them the bench says so and goes on.
import { perfFor, threadRoles } from './machine-profile.mjs';

/** The calls counted by name (x86-64 Linux); the rest are counted together as `other`. */
const KINDS = [
  ['writes', ['writev', 'write', 'sendto', 'sendmsg']],
  ['reads', ['read', 'readv', 'recvfrom', 'recvmsg']],
  ['epoll', ['epoll_pwait', 'epoll_wait']],
  ['futex', ['futex']],
  ['fdatasync', ['fdatasync', 'fsync']],
];
const TOTAL = 'raw_syscalls:sys_enter';
const EVENTS = [TOTAL, ...KINDS.flatMap(([, calls]) => calls.map((c) => `syscalls:sys_enter_${c}`))];

/** Starts `perf stat -a --per-thread` for `seconds`; `report(units)` (after the window, while the processes still run) resolves to the line to print. */
export function countSyscalls(seconds, { server, generator }) {
  const stat = perfFor(seconds, ['stat', '-x', ',', '-a', '--per-thread', '-e', EVENTS.join(',')]);
  return {
    async report(units) {
      if (!(await stat.done)) return 'system calls per order: not counted (`perf stat` failed: is linux-perf installed and are we root?)';
      const role = threadRoles({ server, generator });
      const roleOf = (comm, tid) => role.get(tid) ?? (comm === 'postgres' ? 'PostgreSQL' : undefined);
      // Each line `<comm>-<tid>,<count>,,<event>,…` (a comm may itself hold dashes).
      const roles = new Map();
      for (const line of stat.stderr().split('\n')) {
        const m = /^(.*)-(\d+),(\d+),[^,]*,([^,]+),/.exec(line);
        if (!m) continue;
        const role = roleOf(m[1], Number(m[2]));
        if (!role) continue;
        const counts = roles.get(role) ?? new Map();
        const event = m[4] === TOTAL ? 'all' : m[4].replace('syscalls:sys_enter_', '');
        counts.set(event, (counts.get(event) ?? 0) + Number(m[3]));
        roles.set(role, counts);
      }
      const per = (n) => (n / units).toFixed(2);
      const parts = ['server main', 'server other', 'generator', 'PostgreSQL']
        .filter((r) => roles.has(r))
        .map((r) => {
          const counts = roles.get(r);
          const all = counts.get('all') ?? 0;
          let named = 0;
          const kinds = KINDS.map(([kind, calls]) => {
            const n = calls.reduce((a, c) => a + (counts.get(c) ?? 0), 0);
            named += n;
            return [kind, n];
          }).filter(([, n]) => n / units >= 0.005);
          return `${r} ${per(all)} (${[...kinds.map(([k, n]) => `${k} ${per(n)}`), `other ${per(all - named)}`].join(', ')})`;
        });
      return `system calls per order (perf stat, ${seconds} s): ${parts.join('; ')}`;
    },
  };
}
