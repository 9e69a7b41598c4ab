import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runLoadScript } from './support/load-script';

// `npm run bench:targets` (load-tests/targets.mjs) judges each run by the Spot core v2 issue's
// rules. Its `--judge DIR` mode runs nothing and judges the logs in DIR: here, logs written with
// the lines the benchmarks print (figures at and just past each rule's edge).
const floorLog = (f: number) =>
  `[bench] floor: 400 concurrent clients for 20 s against a do-nothing server\nfloor: ${f} orders/s p99 61.9 ms (14298 requests/s)\n`;
const coreLog = (n: number, p99: string) =>
  `cores used (of 2): postgres 0.39 (0.078 ms/order), redis 0.01 (0.001 ms/order), core 0.55 (0.111 ms/order); machine idle 48 %, steal 0 %\n` +
  `trial balance after the run: exact\ncore: ${n} orders/s p99 ${p99} ms\n`;
const openLog = (offered: number, n: number, p99: string, cancels: string) =>
  `[bench] load: open loop, ${offered} orders/s offered (+2143 cancels/s), at most 400 in flight, 20 s\n` +
  `cores used (of 2): postgres 0.37 (0.076 ms/order), generator 0.35 (0.071 ms/order), server 0.91 (0.187 ms/order); machine idle 15 %, steal 0 %\n` +
  `stack CPU in floor-generator units: K = 4.61 (stack 0.386 ms/order over bench:floor's generator 0.084)\n` +
  `trial balance after the run: exact\norders: ${n}/s p99 ${p99} ms cancels p99 ${cancels} ms\n`;
const closedLog = (n: number, lag: string, balance: string) =>
  `[bench] load: closed loop, 400 clients, 20 s\nprojector lag ms: p50 69.9 p99 ${lag} max 600; journal write ms p50 1.9 p99 17 max 64.2\n` +
  `trial balance after the run: ${balance}\norders: ${n}/s p99 88.9 ms cancels p99 89.1 ms\n`;

describe('bench:targets judges runs by the issue’s rules (--judge)', () => {
  let dir: string;
  const write = (round: number, kind: string, f: number, log: string) => {
    writeFileSync(join(dir, `r${round}-${kind}.floor.log`), floorLog(f));
    writeFileSync(join(dir, `r${round}-${kind}.log`), log);
  };
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'targets-spec-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('meets each target at its edge and misses just past it, one rule at a time', async () => {
    // Round 1: every figure at its rule's edge (0.97 × offered, 20 and 50 ms, 0.45 F, lag 500 ms).
    write(1, 'core', 9000, coreLog(4850, '20.0'));
    write(1, 'http', 10000, openLog(3000, 2910, '50.0', '50.0'));
    write(1, 'closed', 10000, closedLog(4500, '500.0', 'exact'));
    write(1, 'plain', 10000, openLog(6000, 5820, '49.9', '12.0'));
    write(1, 'ws', 10000, openLog(6000, 6000, '30.0', '30.0'));
    // Round 2: each just past one rule (the rate, p99, the cancels' p99, the lag, the trial balance).
    write(2, 'core', 9000, coreLog(4849, '12.0'));
    write(2, 'http', 10000, openLog(3000, 2909, '30.0', '30.0'));
    write(2, 'closed', 10000, closedLog(4600, '500.1', 'exact'));
    write(2, 'plain', 10000, openLog(6000, 6000, '30.0', '50.1'));
    write(2, 'ws', 10000, openLog(6000, 6000, '50.1', '30.0'));
    // Round 3: the closed loop's trial balance wrong; the core's p99 past 20 ms; the Socket.IO run's log missing.
    write(3, 'core', 9000, coreLog(5000, '20.1'));
    write(3, 'http', 10000, openLog(3000, 3000, '20.0', '20.0'));
    write(3, 'closed', 10000, closedLog(6000, '200.0', 'WRONG {"USDT":"1"}'));
    write(3, 'plain', 10000, openLog(6000, 5999, '20.0', '20.0'));
    writeFileSync(join(dir, 'r3-ws.floor.log'), floorLog(10000));

    const r = await runLoadScript('targets.mjs', ['--judge', dir]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines.pop()).toBe('targets: core 1/3 http 2/3 closed 1/3 plain 2/3 ws 1/3');
    const verdict = (round: number, kind: string) => lines.find((l) => l.startsWith(`  r${round} ${kind}: `))?.split(': ')[1];
    expect([1, 2, 3].map((round) => ['core', 'http', 'closed', 'plain', 'ws'].map((kind) => verdict(round, kind)))).toEqual([
      ['met', 'met', 'met', 'met', 'met'],
      ['missed', 'missed', 'missed', 'missed', 'missed'],
      ['missed', 'met', 'missed', 'met', 'not judged (no log)'],
    ]);
    expect(lines).toContain('  r1 closed: met: 4500/s = 0.450 F (F 10000), lag p99 500.0 ms, trial balance exact');
    expect(lines).toContain('  r2 plain: missed: 6000/s of 6000 = 1.000 × p99 30.0 ms cancels p99 50.1 ms (F 10000, K 4.61, 15 % idle)');
  }, 30_000);

  it('refuses options it does not know, and a folder without logs', async () => {
    const bad = await runLoadScript('targets.mjs', ['--kinds', 'core,fast']);
    expect({ code: bad.code, stderr: bad.stderr.trim() }).toEqual({ code: 1, stderr: '[targets] --kinds takes core, http, closed, plain, ws (not fast)' });
    const empty = await runLoadScript('targets.mjs', ['--judge', dir]);
    expect({ code: empty.code, stderr: empty.stderr.trim() }).toEqual({ code: 1, stderr: `[targets] no r1-<kind>.floor.log in ${dir}` });
  }, 30_000);
});
