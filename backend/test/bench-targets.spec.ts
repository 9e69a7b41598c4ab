import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runLoadScript } from './support/load-script';

// `npm run bench:targets` (load-tests/targets.mjs) judges each run by the Spot core v2 issue's
// rules. Its `--judge DIR` mode runs nothing and judges the logs in DIR: here, logs written with
// the lines the benchmarks print (figures at and just past each rule's edge, and logs that are not
// the run their target asks for).
const floorLog = (f: number) =>
  `[bench] floor: 400 concurrent clients for 20 s against a do-nothing server\n` +
  `cores used (of 2): postgres 0.00 (0.000 ms/order), generator 1.03 (0.103 ms/order), server 0.50 (0.050 ms/order); machine idle 22 %, steal 0 %\n` +
  `floor: ${f} orders/s p99 61.9 ms (14298 requests/s)\n`;
const cores = 'cores used (of 2): postgres 0.37 (0.076 ms/order), server 0.91 (0.187 ms/order); machine idle 15 %, steal 0 %\n';
const coreLog = (n: number, p99: string) =>
  `[bench] making 100 funded traders…\n[bench] warm-up 3 s, then 5000 orders/s offered (open loop) for 20 s\n${cores}trial balance after the run: exact\ncore: ${n} orders/s p99 ${p99} ms\n`;
const TRANSPORTS = {
  http: 'HTTP, a pool of 400 connections',
  plain: 'plain WebSocket /api/coin/ws, 100 connections',
  ws: 'Socket.IO `order` messages, 100 sockets (wire)',
};
const apiLog = (transport: keyof typeof TRANSPORTS, load: string, last: string, balance = 'exact', lag = '200.0') =>
  `Kestrel is up\n[bench] making 100 funded traders…\n[bench] transport: ${TRANSPORTS[transport]}\n[bench] warm-up 3 s\n[bench] load: ${load}\n${cores}` +
  `stack CPU in floor-generator units: K = 4.61 (stack 0.386 ms/order over bench:floor's generator 0.084)\n` +
  `projector lag ms: p50 69.9 p99 ${lag} max 600; journal write ms p50 1.9 p99 17 max 64.2\ntrial balance after the run: ${balance}\n${last}\n`;
const openLog = (transport: keyof typeof TRANSPORTS, offered: number, n: number, p99: string, cancels: string) =>
  apiLog(
    transport,
    `open loop, ${offered} orders/s offered (+2143 cancels/s), at most 400 in flight, 20 s`,
    `orders: ${n}/s p99 ${p99} ms cancels p99 ${cancels} ms`,
  );
const closedLog = (n: number, lag: string, balance: string) =>
  apiLog('http', 'closed loop, 400 concurrent clients for 20 s', `orders: ${n}/s p99 88.9 ms cancels p99 89.1 ms`, balance, lag);

describe('bench:targets judges runs by the issue’s rules (--judge)', () => {
  let dir: string;
  const write = (round: number, kind: string, floor: string, log?: string) => {
    writeFileSync(join(dir, `r${round}-${kind}.floor.log`), floor);
    if (log !== undefined) writeFileSync(join(dir, `r${round}-${kind}.log`), log);
  };
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'targets-spec-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('meets each target at its edge, misses just past it, and judges no log that is not the run its target asks for', async () => {
    // F = 10,000 throughout: the HTTP open loop is offered 3,000/s, the socket loops 6,000/s.
    const F = floorLog(10000);
    // Round 1: every figure at its rule's edge (0.97 × offered, 20 and 50 ms, 0.45 F, lag 500 ms).
    write(1, 'core', F, coreLog(4850, '20.0'));
    write(1, 'http', F, openLog('http', 3000, 2910, '50.0', '50.0'));
    write(1, 'closed', F, closedLog(4500, '500.0', 'exact'));
    write(1, 'plain', F, openLog('plain', 6000, 5820, '49.9', '12.0'));
    write(1, 'ws', F, openLog('ws', 6000, 6000, '30.0', '30.0'));
    // Round 2: each just past one rule (the rate; the cancels' p99; p99).
    write(2, 'core', F, coreLog(4849, '12.0'));
    write(2, 'http', F, openLog('http', 3000, 2909, '30.0', '30.0'));
    write(2, 'closed', F, closedLog(4499, '200.0', 'exact'));
    write(2, 'plain', F, openLog('plain', 6000, 6000, '30.0', '50.1'));
    write(2, 'ws', F, openLog('ws', 6000, 6000, '50.1', '30.0'));
    // Round 3: the core's p99 past 20 ms, the closed loop's lag past 500 ms; the Socket.IO run left no log.
    write(3, 'core', F, coreLog(5000, '20.1'));
    write(3, 'http', F, openLog('http', 3000, 3000, '20.0', '20.0'));
    write(3, 'closed', F, closedLog(6000, '500.1', 'exact'));
    write(3, 'plain', F, openLog('plain', 6000, 5999, '20.0', '20.0'));
    write(3, 'ws', F);
    // Round 5 (no round 4): the trial balance wrong; a log holding two runs (the last one counts); an
    // HTTP run offered the wrong rate; a "plain" log from the Socket.IO transport; an open floor.
    write(5, 'core', F, coreLog(5000, '12.0') + coreLog(5000, '25.0'));
    write(5, 'http', F, openLog('http', 2500, 2500, '20.0', '20.0'));
    write(5, 'closed', F, closedLog(6000, '200.0', 'WRONG {"USDT":"1"}'));
    write(5, 'plain', F, openLog('ws', 6000, 6000, '20.0', '20.0'));
    write(5, 'ws', '[bench] open floor: 6000 requests/s offered\nopen floor: 6000 orders/s p99 2.0 ms\n', openLog('ws', 6000, 6000, '20.0', '20.0'));

    const r = await runLoadScript('targets.mjs', ['--judge', dir]);
    expect(r.stderr).toBe('');
    // Runs that could not be judged make the exit code 1.
    expect(r.code).toBe(1);
    const lines = r.stdout.trim().split('\n');
    expect(lines.pop()).toBe('targets: core 1/4 http 2/3 (+1 not judged) closed 1/4 plain 2/3 (+1 not judged) ws 1/2 (+2 not judged)');
    const verdict = (round: number, kind: string) => {
      const line = lines.find((l) => l.startsWith(`  r${round} ${kind}: `));
      return line?.slice(`  r${round} ${kind}: `.length).split(': ')[0];
    };
    expect([1, 2, 3, 5].map((round) => ['core', 'http', 'closed', 'plain', 'ws'].map((kind) => verdict(round, kind)))).toEqual([
      ['met', 'met', 'met', 'met', 'met'],
      ['missed', 'missed', 'missed', 'missed', 'missed'],
      ['missed', 'met', 'missed', 'met', 'not judged (no log)'],
      [
        'missed',
        'not judged (offered 2500, not 0.3 F = 3000/s)',
        'missed',
        'not judged (not the plain transport)',
        'not judged (the floor printed no `floor:` line)',
      ],
    ]);
    // Ratios are rounded down: a run just short of an edge does not print as on it.
    expect(lines).toContain('  r2 http: missed: 2909/s of 3000 = 0.969 × p99 30.0 ms cancels p99 30.0 ms (F 10000, K 4.61, 15 % idle)');
    expect(lines).toContain('  r2 closed: missed: 4499/s = 0.449 F (F 10000, K 4.61, 15 % idle), lag p99 200.0 ms, trial balance exact');
    expect(lines).toContain('  r5 core: missed: 5000/s of 5000 p99 25.0 ms (F 10000, 15 % idle)');
    expect(lines).toContain('http: met in 2 of 3 (1 more not judged)');

    // --kinds picks targets out of the folder.
    const some = await runLoadScript('targets.mjs', ['--judge', dir, '--kinds', 'closed,core']);
    expect({ code: some.code, last: some.stdout.trim().split('\n').pop() }).toEqual({ code: 0, last: 'targets: closed 1/4 core 1/4' });
  }, 30_000);

  it('refuses options it does not know or that do not go together, and a folder without logs', async () => {
    const refusal = async (args: string[]) => {
      const r = await runLoadScript('targets.mjs', args);
      return { code: r.code, stderr: r.stderr.trim() };
    };
    expect(await refusal(['--kinds', 'core,fast'])).toEqual({ code: 1, stderr: '[targets] --kinds takes core, http, closed, plain, ws (not fast)' });
    expect(await refusal(['--kinds', 'core,core'])).toEqual({ code: 1, stderr: '[targets] --kinds names each kind once' });
    expect(await refusal(['--judge', dir, '--rounds', '2'])).toEqual({
      code: 1,
      stderr: '[targets] --judge runs nothing: --rounds and --out do not go with it',
    });
    expect(await refusal(['--rounds', '0'])).toEqual({ code: 1, stderr: '[targets] --rounds is a whole number from 1 to 50' });
    expect(await refusal(['--judge', dir])).toEqual({ code: 1, stderr: `[targets] no r<round>-<kind>.floor.log or .log in ${dir}` });
  }, 30_000);
});
