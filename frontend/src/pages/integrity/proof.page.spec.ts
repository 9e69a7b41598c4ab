import { buildTree, proofFor, type TreeLeaf } from '@kestrel/contracts';
import { formatUnits, judge } from './proof.page';

const salt = (n: number) => n.toString(16).padStart(2, '0').repeat(32);
const leaves: TreeLeaf[] = [
  { salt: salt(1), balances: [150000000n, 0n] },
  { salt: salt(2), balances: [0n, 2500000000n] },
  { salt: salt(3), balances: [1n, 1n] },
  { salt: salt(4), balances: [99n, 0n] },
  { salt: salt(5), balances: [7n, 3n] },
];
const tree = buildTree(leaves);
const currencies = [1, 3];
const published = [{ root: tree.root, currencies, totals: tree.totals.map(String), watermark: { seq: '9', ledgerEntryId: '42' }, time: new Date().toISOString() }];
const proof = (i: number) => proofFor(tree, i, currencies, leaves[i]);

describe('the verification screen judges a proof in the browser', () => {
  it('verifies every user of a small tree against the published root and totals', () => {
    for (let i = 0; i < leaves.length; i++) expect(judge(proof(i), published)).toMatchObject({ ok: true });
  });

  it('a changed balance fails at the last step (the root no longer matches)', () => {
    const p = proof(0);
    const v = judge({ ...p, balances: ['150000001', '0'] }, published);
    expect(v).toMatchObject({ ok: false, failedStep: p.path.length, reason: 'rootMismatch' });
  });

  it('a negative balance fails at step 0, a bad sibling sum at its step', () => {
    expect(judge({ ...proof(1), balances: ['-1', '0'] }, published)).toMatchObject({ ok: false, failedStep: 0, reason: 'negative' });
    const p = proof(2);
    const path = p.path.map((s, i) => (i === 0 ? { ...s, sums: ['-5', '0'] } : s));
    expect(judge({ ...p, path }, published)).toMatchObject({ ok: false, failedStep: 1, reason: 'negative' });
  });

  it('an unpublished root or different totals fail at the root', () => {
    expect(judge(proof(3), [])).toMatchObject({ ok: false, reason: 'notPublished' });
    expect(judge(proof(3), [{ ...published[0], totals: ['1', '1'] }])).toMatchObject({ ok: false, reason: 'totals' });
  });

  it('formats units at the currency precision without floats', () => {
    expect(formatUnits('150000000', 8)).toBe('1.5');
    expect(formatUnits('123456789012345678901234', 8)).toBe('1,234,567,890,123,456.78901234');
    expect(formatUnits('0', 8)).toBe('0');
    expect(formatUnits('1', 8)).toBe('0.00000001');
    expect(formatUnits('2500', 0)).toBe('2,500');
  });
});
