import { runLoadScript } from './support/load-script';

// The fast, seeded subset of `npm run sim` (load-tests/sim.mjs) kept in `npm test`: the built
// stack on a fresh database, a few simulated users, a few hundred operations of every kind
// (spot, verification, deposits and withdrawals with operator decisions, transfers, flash
// exchange, contracts, options, wealth, IEO, loans, NFT, referrals), and after each batch the
// trial balance exact, every user account equal to its ledger sum, and the journal replayed
// independently giving the engine's snapshot hashes and the projection. Needs backend/dist
// (npm test builds first).
const runSim = (args: string[]) => runLoadScript('sim.mjs', args, { ...process.env, API_URL: '' });

describe('whole-venue simulation (seeded subset)', () => {
  it('600 operations of every kind from seed 1 leave the books exact and replay to the engine hashes', async () => {
    const r = await runSim(['--seed', '1', '--ops', '600', '--users', '6', '--check-every', '300', '--concurrency', '8', '--snapshot-every', '50']);
    const last = r.stdout.trim().split('\n').pop();
    expect({ last, stderr: r.code === 0 ? '' : r.stderr }).toEqual({ last: 'sim: 600 ops, 0 discrepancies, seed 1', stderr: '' });
    // The per-kind table: each kind's row `| kind | sent | ok | refused | idle |`. Every kind but
    // the rare ones was accepted at least once in this seed's 600 operations.
    const rows = new Map(
      r.stderr
        .split('\n')
        .filter((l) => /^\| [a-z_]+ \| \d+/.test(l))
        .map((l) => l.split('|').map((c) => c.trim()))
        .map((c) => [c[1], { sent: Number(c[2]), ok: Number(c[3]) }]),
    );
    const accepted = [...rows].filter(([, v]) => v.ok > 0).map(([k]) => k);
    expect(accepted).toEqual(
      expect.arrayContaining(['spot_limit', 'spot_cancel', 'kyc_submit', 'kyc_decide', 'deposit', 'deposit_decide', 'withdraw', 'withdraw_decide', 'transfer', 'flash', 'lever_open', 'option', 'wealth_buy', 'loan_apply', 'loan_decide', 'nft_buy', 'nft_list', 'referral', 'ieo_subscribe']),
    );
    // The journal was replayed through at least one engine snapshot.
    expect(r.stderr).toMatch(/\(([1-9]\d*) engine hashes compared\)/);
  }, 120_000);
});
