import fc from 'fast-check';
import { Balance, BalanceStore, Delta, FastBalances, ReferenceBalances } from './balances';

/** 10^18 whole units in ledger units (10^-18). */
const E18 = 10n ** 36n;

/**
 * One suite, run against the fast store and the obviously-right reference: both must pass every
 * case, and a property checks that they agree on random change sequences.
 */
type StoreFactory = (initial?: Iterable<[string, Balance]>) => BalanceStore;

const STORES: [string, StoreFactory][] = [
  ['FastBalances', (initial) => new FastBalances(initial)],
  ['ReferenceBalances', (initial) => new ReferenceBalances(initial)],
];

const d = (key: string, available: bigint, frozen = 0n): Delta => ({ key, available, frozen });
const b = (available: bigint, frozen = 0n): Balance => ({ available, frozen });

describe.each(STORES)('%s', (_name: string, make: StoreFactory) => {
  let s: BalanceStore;
  beforeEach(() => {
    s = make();
  });

  it('an untouched account is zero and not listed', () => {
    expect(s.get('a')).toEqual(b(0n));
    expect(s.entries()).toEqual([]);
  });

  it('a credit creates the account', () => {
    expect(s.apply([d('a', 10n)])).toBe(true);
    expect(s.get('a')).toEqual(b(10n));
    expect(s.entries()).toEqual([['a', b(10n)]]);
  });

  it('a debit within available is accepted, down to exactly zero', () => {
    s.apply([d('a', 10n)]);
    expect(s.apply([d('a', -4n)])).toBe(true);
    expect(s.get('a')).toEqual(b(6n));
    expect(s.apply([d('a', -6n)])).toBe(true);
    expect(s.get('a')).toEqual(b(0n));
  });

  it('a debit below zero is refused and changes nothing', () => {
    s.apply([d('a', 10n)]);
    expect(s.apply([d('a', -11n)])).toBe(false);
    expect(s.get('a')).toEqual(b(10n));
    expect(s.entries()).toEqual([['a', b(10n)]]);
  });

  it('a refused debit on a new account does not create it', () => {
    expect(s.apply([d('a', -1n)])).toBe(false);
    expect(s.entries()).toEqual([]);
  });

  it('freezes (available to frozen) and releases', () => {
    s.apply([d('a', 10n)]);
    expect(s.apply([d('a', -7n, 7n)])).toBe(true);
    expect(s.get('a')).toEqual(b(3n, 7n));
    // Cannot freeze more than is available.
    expect(s.apply([d('a', -4n, 4n)])).toBe(false);
    expect(s.get('a')).toEqual(b(3n, 7n));
    expect(s.apply([d('a', 7n, -7n)])).toBe(true);
    expect(s.get('a')).toEqual(b(10n, 0n));
  });

  it('frozen may not go negative, even when available would cover it', () => {
    s.apply([d('a', 10n, 2n)]);
    expect(s.apply([d('a', 5n, -3n)])).toBe(false);
    expect(s.get('a')).toEqual(b(10n, 2n));
  });

  it('a multi-account change is all or nothing: one short leg refuses every leg', () => {
    s.apply([d('a', 5n), d('b', 5n)]);
    expect(s.apply([d('a', -5n), d('b', -6n), d('c', 11n)])).toBe(false);
    expect(s.entries()).toEqual([
      ['a', b(5n)],
      ['b', b(5n)],
    ]);
    expect(s.apply([d('a', -5n), d('b', -5n), d('c', 10n)])).toBe(true);
    expect(s.entries()).toEqual([
      ['a', b(0n)],
      ['b', b(0n)],
      ['c', b(10n)],
    ]);
  });

  it('the same account twice in one change nets out (3 + 5 - 7 = 1 is fine)', () => {
    s.apply([d('a', 3n)]);
    expect(s.apply([d('a', 5n), d('a', -7n)])).toBe(true);
    expect(s.get('a')).toEqual(b(1n));
    // The net is what counts, in either order: 1 - 2 + 1 = 0.
    expect(s.apply([d('a', -2n), d('a', 1n)])).toBe(true);
    expect(s.get('a')).toEqual(b(0n));
    expect(s.apply([d('a', 4n), d('a', -5n)])).toBe(false);
    expect(s.get('a')).toEqual(b(0n));
  });

  it('balances of 10^18 whole units and past are held exactly (no ceiling: the ledger’s balance columns are unbounded), and the zero floor still holds', () => {
    const big = 6n * 10n ** 35n; // 6 × 10^17 whole units
    expect(s.apply([d('a', big)])).toBe(true);
    expect(s.apply([d('a', big), d('b', 1n)])).toBe(true);
    expect(s.get('a')).toEqual(b(2n * big));
    // Available to frozen, past 10^18 in frozen too; a credit to frozen on top of it.
    expect(s.apply([d('a', -2n * big, 2n * big)])).toBe(true);
    expect(s.apply([d('a', 0n, E18)])).toBe(true);
    expect(s.get('a')).toEqual(b(0n, 2n * big + E18));
    expect(s.apply([d('a', -1n, 0n)])).toBe(false);
    expect(s.apply([d('a', 0n, -(2n * big + E18) - 1n)])).toBe(false);
    expect(s.entries()).toEqual([
      ['a', b(0n, 2n * big + E18)],
      ['b', b(1n)],
    ]);
  });

  it('an empty change is accepted and touches nothing', () => {
    expect(s.apply([])).toBe(true);
    expect(s.entries()).toEqual([]);
  });

  it('lists entries sorted by key (string order), as copies', () => {
    s.apply([d('user:2:coin:1', 1n), d('system:0:spot-fee:3', 2n), d('user:10:coin:1', 3n)]);
    const e = s.entries();
    expect(e.map(([k]) => k)).toEqual(['system:0:spot-fee:3', 'user:10:coin:1', 'user:2:coin:1']);
    // Mutating what entries() returned must not reach the store.
    (e[0][1] as { available: bigint }).available = 999n;
    expect(s.get('system:0:spot-fee:3')).toEqual(b(2n));
  });

  it('starts from initial balances (a snapshot) and goes on from them', () => {
    const t = make([
      ['b', b(4n, 1n)],
      ['a', b(0n, 6n)],
    ]);
    expect(t.entries()).toEqual([
      ['a', b(0n, 6n)],
      ['b', b(4n, 1n)],
    ]);
    expect(t.apply([d('a', 6n, -6n)])).toBe(true);
    expect(t.apply([d('b', -5n)])).toBe(false);
    expect(t.get('a')).toEqual(b(6n, 0n));
    expect(t.get('b')).toEqual(b(4n, 1n));
  });
});

describe('property: FastBalances and ReferenceBalances agree', () => {
  const KEYS = ['a', 'b', 'c', 'd'];
  // Mostly small credits and debits around zero so both outcomes are common.
  const amount = fc.oneof(
    { weight: 4, arbitrary: fc.bigInt({ min: -20n, max: 20n }) },
    { weight: 1, arbitrary: fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }) },
    // Around half of 10^18 whole units, so balances past 10^18 are common.
    { weight: 1, arbitrary: fc.bigInt({ min: E18 / 2n - 20n, max: E18 / 2n + 20n }) },
  );
  const delta = fc.record({ key: fc.constantFrom(...KEYS), available: amount, frozen: fc.oneof(fc.constant(0n), amount) });
  const change = fc.array(delta, { minLength: 1, maxLength: 4 });

  it('gives the same answers and entries on random changes, and never a negative balance', () => {
    fc.assert(
      fc.property(fc.array(change, { maxLength: 60 }), (changes) => {
        const fast = new FastBalances();
        const ref = new ReferenceBalances();
        for (const c of changes) {
          expect(fast.apply(c)).toBe(ref.apply(c));
          const e = fast.entries();
          expect(e).toEqual(ref.entries());
          for (const [, x] of e) {
            expect(x.available >= 0n).toBe(true);
            expect(x.frozen >= 0n).toBe(true);
          }
          for (const k of KEYS) expect(fast.get(k)).toEqual(ref.get(k));
        }
      }),
      { numRuns: 300 },
    );
  });
});
