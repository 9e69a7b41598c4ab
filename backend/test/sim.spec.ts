import { spawn } from 'node:child_process';
import { join } from 'node:path';

// The fast, seeded subset of `npm run sim` (load-tests/sim.mjs) kept in `npm test`: the built
// stack on a fresh database, a few simulated traders, a few hundred operations, and the trial
// balance exact after each batch. Needs backend/dist (npm test builds first).
const root = join(__dirname, '..', '..');

function runSim(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(root, 'load-tests', 'sim.mjs'), ...args], { cwd: root, env: { ...process.env, API_URL: '' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('whole-venue simulation (seeded subset)', () => {
  it('600 operations from seed 1 leave the books exact', async () => {
    const r = await runSim(['--seed', '1', '--ops', '600', '--users', '6', '--check-every', '300', '--concurrency', '8']);
    const last = r.stdout.trim().split('\n').pop();
    expect({ last, stderr: r.code === 0 ? '' : r.stderr }).toEqual({ last: 'sim: 600 ops, 0 discrepancies, seed 1', stderr: '' });
  }, 120_000);
});
