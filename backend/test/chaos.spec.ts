import { runLoadScript } from './support/load-script';

/**
 * The fast subset of `npm run test:chaos` in `npm test`: `load-tests/chaos.mjs --fast` on the built
 * code, on its own PostgreSQL cluster and redis-server (never the shared ones): kill -9 of the
 * server and a restart, then a real PostgreSQL restart (a new postmaster pid, a connection refused
 * during the outage), under spot orders and 5 s options; every acknowledged order is in the books
 * once, every option delivered once on its recorded tick, the trial balance exact; the private
 * instances are stopped at the end.
 */
describe('chaos --fast: kill -9 and a PostgreSQL restart (private instances)', () => {
  it('loses nothing acknowledged and does nothing twice', async () => {
    const { code, out } = await runLoadScript('chaos.mjs', ['--fast']);
    if (code !== 0) process.stderr.write(out.slice(-20_000));
    expect(out).toMatch(/^chaos: 2 faults, 0 lost, 0 duplicated$/m);
    expect(out).not.toMatch(/^FAIL /m);
    expect(out).toMatch(/ok {3}PostgreSQL restarted \(a new postmaster pid\)/);
    expect(code).toBe(0);
  }, 240_000);
});
