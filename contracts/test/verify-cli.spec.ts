import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildTree, proofFor, type ProofRoot, type TreeLeaf } from '../src/proof';

/** The standalone verifier as a user runs it: `node contracts/bin/kestrel-verify-proof.js proof.json`. */
const BIN = join(__dirname, '../bin/kestrel-verify-proof.js');
const run = (...args: string[]) => spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 60_000 });

describe('kestrel-verify-proof (CLI)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kestrel-proof-'));
  const salt = (n: number) => n.toString(16).padStart(2, '0').repeat(32);
  const leaves: TreeLeaf[] = [1, 2, 3, 4, 5].map((n) => ({ salt: salt(n), balances: [BigInt(n) * 10n ** 18n, BigInt(n) * 123n] }));
  const tree = buildTree(leaves);
  const proof = proofFor(tree, 4, [1, 3], leaves[4]);
  const file = join(dir, 'proof.json');
  writeFileSync(file, JSON.stringify(proof));
  const root: ProofRoot = { root: tree.root, currencies: [1, 3], totals: tree.totals.map(String), watermark: { seq: '7', ledgerEntryId: '42' }, time: new Date(0).toISOString() };

  it('prints each step and "verified", exit code 0', () => {
    const r = run(file);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('step 0  leaf');
    expect(r.stdout).toContain(`step 1  sibling left`);
    expect(r.stdout.trim().split('\n').pop()).toBe('verified');
  });

  it('a tampered proof: "FAILED at step N: reason", exit code 1', () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ ...proof, balances: ['5000000000000000001', '615'] }));
    const r = run(bad);
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(new RegExp(`FAILED at step ${proof.path.length}: computed root [0-9a-f]{64} differs`));
    const negative = join(dir, 'negative.json');
    writeFileSync(negative, JSON.stringify({ ...proof, path: [{ ...proof.path[0], sums: ['-1', '0'] }] }));
    expect(run(negative).stdout).toContain('FAILED at step 1: step 1 sums[0] is negative');
  });

  it('--roots: the root must be a published one (a file of roots or an /api answer)', () => {
    const roots = join(dir, 'roots.json');
    writeFileSync(roots, JSON.stringify({ type: 'ok', code: 1, message: 'Success', data: { items: [root], total: 1, page: 1, limit: 20 } }));
    const ok = run(file, '--roots', roots);
    expect(ok.status).toBe(0);
    expect(ok.stdout).toContain('the root is published');
    const other = join(dir, 'other-roots.json');
    writeFileSync(other, JSON.stringify([{ ...root, root: 'ab'.repeat(32) }]));
    const r = run(file, '--roots', other);
    expect(r.status).toBe(1);
    expect(r.stdout).toContain('is not among the 1 published roots');
  });

  it('usage and unreadable files exit 1', () => {
    expect(run().status).toBe(1);
    expect(run(join(dir, 'missing.json')).status).toBe(1);
  });
});
