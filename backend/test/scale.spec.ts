import { runLoadScript } from './support/load-script';

/**
 * "Scale beyond one process" in `npm test`: the multi-process run of `npm run test:scale`
 * (load-tests/scale.mjs) on the built code — 3 api + 2 engine + 1 worker processes, orders across
 * api processes, a socket push across processes, kill -9 of the active engine under load and
 * SIGSTOP past the lease with fencing. A shorter lease (2 s) keeps it quick.
 */
describe('scale: api × 3, engine × 2, worker (built server processes)', () => {
  it('takes over within 5 s with nothing lost or duplicated, and fences the paused engine', async () => {
    const { code, out } = await runLoadScript('scale.mjs', [], { ...process.env, SCALE_LEASE_MS: '2000' });
    if (code !== 0) process.stderr.write(out.slice(-20_000));
    expect(out).toMatch(/^scale: take-over \d+\.\d s, 0 lost, 0 duplicated$/m);
    expect(out).not.toMatch(/^FAIL /m);
    expect(code).toBe(0);
  }, 300_000);
});
