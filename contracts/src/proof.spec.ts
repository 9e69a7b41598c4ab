import { sha256 } from '@noble/hashes/sha2';
import { bytesToHex, concatBytes, hexToBytes } from '@noble/hashes/utils';
import { amountBytes, buildTree, EMPTY_ROOT, isPublishedRoot, LiabilityProof, proofFor, TreeLeaf, verifyProof } from './proof';

/** A deterministic PRNG (mulberry32) so that a failure can be replayed. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const CURRENCIES = [1, 2, 3];

function randomLeaves(n: number, seed: number): TreeLeaf[] {
  const r = rng(seed);
  const u32 = () => BigInt(Math.floor(r() * 2 ** 32));
  const hex = () => Array.from({ length: 32 }, () => Math.floor(r() * 256).toString(16).padStart(2, '0')).join('');
  return Array.from({ length: n }, () => ({
    salt: hex(),
    // Units at 8 decimals: from zero to large (up to ~1.8e19 units), many zeros.
    balances: CURRENCIES.map(() => (r() < 0.3 ? 0n : (u32() << 32n) | u32())),
  }));
}

const proofs = (leaves: TreeLeaf[]): LiabilityProof[] => {
  const tree = buildTree(leaves);
  return leaves.map((leaf, i) => proofFor(tree, i, CURRENCIES, leaf));
};

describe('proof of liabilities: the Merkle sum tree', () => {
  const leaves = randomLeaves(10_000, 42);
  const tree = buildTree(leaves);
  const all = leaves.map((leaf, i) => proofFor(tree, i, CURRENCIES, leaf));

  it('every one of 10,000 random users has a proof that verifies against the root', () => {
    for (const p of all) {
      const v = verifyProof(p);
      expect(v.ok).toBe(true);
      expect(v.root).toBe(tree.root);
    }
    // 10,000 leaves: 14 levels; the paths of the carried-up tail are shorter.
    expect(Math.max(...all.map((p) => p.path.length))).toBe(14);
  });

  it('the root sums are the totals of every balance', () => {
    const totals = CURRENCIES.map((_, c) => leaves.reduce((s, l) => s + l.balances[c], 0n));
    expect(tree.totals).toEqual(totals);
  });

  it('changing any balance makes verification fail at the last step (root mismatch)', () => {
    const r = rng(7);
    for (let k = 0; k < 200; k++) {
      const i = Math.floor(r() * all.length);
      const c = Math.floor(r() * CURRENCIES.length);
      const p = structuredClone(all[i]);
      p.balances[c] = (BigInt(p.balances[c]) + 1n).toString();
      const v = verifyProof(p);
      expect(v.ok).toBe(false);
      expect(v.reason).toBe('root-mismatch');
      expect(v.failedStep).toBe(p.path.length);
    }
  });

  it('changing a sibling sum, a sibling hash, a side or the salt fails', () => {
    const p = all[1234];
    const sums = structuredClone(p);
    sums.path[3].sums[0] = (BigInt(sums.path[3].sums[0]) + 1n).toString();
    expect(verifyProof(sums).ok).toBe(false);
    const hash = structuredClone(p);
    hash.path[0].hash = (hash.path[0].hash[0] === '0' ? '1' : '0') + hash.path[0].hash.slice(1);
    expect(verifyProof(hash).ok).toBe(false);
    const side = structuredClone(p);
    side.path[5].side = side.path[5].side === 'left' ? 'right' : 'left';
    expect(verifyProof(side).ok).toBe(false);
    const salt = structuredClone(p);
    salt.salt = 'ff' + salt.salt.slice(2);
    expect(verifyProof(salt).ok).toBe(false);
  });

  it('dropping a user gives another root: the old proofs no longer verify against it', () => {
    for (const drop of [0, 4999, 9999]) {
      const rest = leaves.filter((_, i) => i !== drop);
      const other = buildTree(rest);
      expect(other.root).not.toBe(tree.root);
      // The dropped user's proof leads to the old root, not the published one.
      const mine = structuredClone(all[drop]);
      mine.root = other.root;
      expect(verifyProof(mine).ok).toBe(false);
      // And a neighbour's old proof fails against the new root too.
      const neighbour = structuredClone(all[drop === 0 ? 1 : drop - 1]);
      neighbour.root = other.root;
      expect(verifyProof(neighbour).ok).toBe(false);
    }
  });

  it('a proof that drops a path step fails', () => {
    const p = structuredClone(all[10]);
    p.path.splice(2, 1);
    expect(verifyProof(p).ok).toBe(false);
  });

  it('a negative balance cannot be built, and a proof that shows one fails at the leaf', () => {
    const bad = leaves.slice(0, 5).map((l) => ({ ...l, balances: [...l.balances] }));
    bad[2].balances[1] = -1n;
    expect(() => buildTree(bad)).toThrow(/negative/);
    const p = structuredClone(all[0]);
    p.balances[0] = '-5';
    const v = verifyProof(p);
    expect(v).toMatchObject({ ok: false, failedStep: 0, reason: 'negative' });
  });

  it('a negative sum in a step (hiding a negative balance in a sibling) fails at that step', () => {
    const p = structuredClone(all[77]);
    p.path[4].sums[2] = '-1000';
    expect(verifyProof(p)).toMatchObject({ ok: false, failedStep: 5, reason: 'negative' });
    expect(verifyProof(p).steps).toHaveLength(4);
  });

  it('amounts must fit 16 bytes', () => {
    expect(() => amountBytes(1n << 128n)).toThrow(/16 bytes/);
    expect(bytesToHex(amountBytes((1n << 128n) - 1n))).toBe('f'.repeat(32));
    expect(bytesToHex(amountBytes(258n))).toBe('0'.repeat(28) + '0102');
    const p = structuredClone(all[3]);
    p.balances[0] = (1n << 128n).toString();
    expect(verifyProof(p)).toMatchObject({ ok: false, failedStep: 0, reason: 'overflow' });
  });

  it('malformed proofs fail without throwing', () => {
    expect(verifyProof(null)).toMatchObject({ ok: false, reason: 'malformed' });
    expect(verifyProof({ ...all[0], salt: 'xyz' })).toMatchObject({ ok: false, failedStep: 0, reason: 'malformed' });
    expect(verifyProof({ ...all[0], balances: ['1'] })).toMatchObject({ ok: false, failedStep: 0, reason: 'length' });
    expect(verifyProof({ ...all[0], balances: ['1.5', '0', '0'] })).toMatchObject({ ok: false, reason: 'malformed' });
    const p = structuredClone(all[0]);
    (p.path[1] as { side: string }).side = 'up';
    expect(verifyProof(p)).toMatchObject({ ok: false, failedStep: 2, reason: 'malformed' });
  });

  it('follows the documented encoding byte for byte (independent recomputation of a 3-leaf tree)', () => {
    const three = randomLeaves(3, 9);
    const t = buildTree(three);
    const sums = (xs: readonly bigint[]) => concatBytes(...xs.map((x) => hexToBytes(x.toString(16).padStart(32, '0'))));
    const leaf = (l: TreeLeaf) => sha256(concatBytes(Uint8Array.of(0), hexToBytes(l.salt), sums(l.balances)));
    const s01 = three[0].balances.map((x, i) => x + three[1].balances[i]);
    const n01 = sha256(concatBytes(Uint8Array.of(1), leaf(three[0]), sums(three[0].balances), leaf(three[1]), sums(three[1].balances)));
    // The third leaf is carried up, then joined with n01 at the next level.
    const root = sha256(concatBytes(Uint8Array.of(1), n01, sums(s01), leaf(three[2]), sums(three[2].balances)));
    expect(t.root).toBe(bytesToHex(root));
    expect(t.path(2)).toEqual([{ side: 'left', hash: bytesToHex(n01), sums: s01.map(String) }]);
    expect(t.path(0)[0]).toEqual({ side: 'right', hash: bytesToHex(leaf(three[1])), sums: three[1].balances.map(String) });
  });

  it('one leaf: the root is its hash and the path is empty; no leaf: the empty root', () => {
    const [p] = proofs(randomLeaves(1, 3));
    expect(p.path).toEqual([]);
    expect(verifyProof(p).ok).toBe(true);
    const none = buildTree([], 2);
    expect(none.root).toBe(EMPTY_ROOT);
    expect(none.totals).toEqual([0n, 0n]);
  });

  it('tells whether a proof leads to a published root', () => {
    const roots = [{ root: tree.root, currencies: CURRENCIES }];
    expect(isPublishedRoot(all[0], roots)).toBe(true);
    expect(isPublishedRoot({ ...all[0], root: EMPTY_ROOT }, roots)).toBe(false);
    expect(isPublishedRoot({ ...all[0], currencies: [1, 3, 2] }, roots)).toBe(false);
  });
});
