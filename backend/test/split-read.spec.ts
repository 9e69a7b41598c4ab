import { runLoadScript } from './support/load-script';

/**
 * Split roles, read-your-writes on an api process (load-tests/split-read.mjs on the built code):
 * the engine's projector lingers 3 s, yet the owner's `coin/list` through the api process shows the
 * order it just placed within half of that: the api process asks the engine not to linger.
 */
describe('split roles: an api process does not wait out the projector linger for its own writes', () => {
  it('shows each new order on the next read at once', async () => {
    const { code, out } = await runLoadScript('split-read.mjs');
    if (code !== 0) process.stderr.write(out.slice(-20_000));
    expect(out).toMatch(/^split read: 3 of 3 reads within 1500 ms$/m);
    expect(code).toBe(0);
  }, 180_000);
});
