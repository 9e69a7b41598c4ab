import fc from 'fast-check';
import { IdMap } from './id-map';

/** Compares every observable of the table with a `Map` holding the same entries. */
function expectSame(t: IdMap<string>, m: Map<number, string>): void {
  expect(t.size).toBe(m.size);
  for (const [k, v] of m) {
    expect(t.has(k)).toBe(true);
    expect(t.get(k)).toBe(v);
  }
  expect([...t.values()].sort()).toEqual([...m.values()].sort());
}

describe('IdMap', () => {
  it('sets, gets, replaces and deletes like a Map', () => {
    const t = new IdMap<string>();
    expect(t.get(1)).toBeUndefined();
    expect(t.has(1)).toBe(false);
    expect(t.set(1, 'a')).toBe(t);
    t.set(2, 'b');
    t.set(1, 'A');
    expect(t.size).toBe(2);
    expect(t.get(1)).toBe('A');
    expect(t.delete(1)).toBe(true);
    expect(t.delete(1)).toBe(false);
    expect(t.get(1)).toBeUndefined();
    expect(t.get(2)).toBe('b');
    expect(t.size).toBe(1);
    t.clear();
    expect(t.size).toBe(0);
    expect(t.get(2)).toBeUndefined();
    expect([...t.values()]).toEqual([]);
  });

  it('finds nothing for what is not an id (the empty slot is marked -1)', () => {
    const t = new IdMap<string>();
    t.set(0, 'zero');
    for (const bad of [-1, 1.5, Number.NaN, Infinity, -0.5]) {
      expect(t.has(bad)).toBe(false);
      expect(t.get(bad)).toBeUndefined();
      expect(t.delete(bad)).toBe(false);
    }
    expect(t.get(0)).toBe('zero');
    expect(t.get(-0)).toBe('zero');
  });

  it('refuses to store a key that is not a non-negative safe integer', () => {
    const t = new IdMap<string>();
    for (const bad of [-1, 1.5, Number.NaN, 2 ** 53]) expect(() => t.set(bad, 'x')).toThrow(RangeError);
    expect(t.size).toBe(0);
  });

  it('keeps ids above 2^32 apart from those with the same low bits', () => {
    const t = new IdMap<string>();
    const ids = [7, 7 + 2 ** 32, 7 + 2 ** 33, Number.MAX_SAFE_INTEGER, 2 ** 32];
    ids.forEach((id, i) => t.set(id, `v${i}`));
    ids.forEach((id, i) => expect(t.get(id)).toBe(`v${i}`));
    t.delete(7 + 2 ** 32);
    expect(t.get(7)).toBe('v0');
    expect(t.get(7 + 2 ** 33)).toBe('v2');
    expect(t.size).toBe(4);
  });

  it('under steady churn (a book that keeps its size) does not grow its table', () => {
    const t = new IdMap<number>();
    const m = new Map<number, number>();
    let next = 1;
    for (; next <= 1000; next++) {
      t.set(next, next);
      m.set(next, next);
    }
    const grown = (t as unknown as { keys: Float64Array }).keys;
    // A window of ~1,000 live ids sliding over 200,000 inserts, the oldest ones left behind at random.
    let seed = 1;
    const rand = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    let oldest = 1;
    let differences = 0;
    for (let i = 0; i < 200_000; i++, next++) {
      t.set(next, next);
      m.set(next, next);
      const victim = next - 1 - Math.floor(rand() * 3000);
      if (t.delete(victim) !== m.delete(victim)) differences++;
      if (m.size > 1000) {
        while (!m.has(oldest)) oldest++;
        t.delete(oldest);
        m.delete(oldest);
      }
    }
    expect(differences).toBe(0);
    expect((t as unknown as { keys: Float64Array }).keys).toBe(grown);
    expectSame(t as unknown as IdMap<string>, m as unknown as Map<number, string>);
  });

  it('matches a Map on random streams of sets and deletes (fast-check)', () => {
    const op = fc.oneof(
      fc.record({ t: fc.constant('set' as const), id: fc.nat(200), v: fc.string({ maxLength: 3 }) }),
      fc.record({ t: fc.constant('delete' as const), id: fc.nat(200) }),
      fc.record({
        t: fc.constant('set' as const),
        id: fc.constantFrom(2 ** 32, 2 ** 32 + 1, 2 ** 40 + 3, Number.MAX_SAFE_INTEGER),
        v: fc.string({ maxLength: 3 }),
      }),
      fc.record({ t: fc.constant('clear' as const) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 400 }), (ops) => {
        const t = new IdMap<string>();
        const m = new Map<number, string>();
        for (const o of ops) {
          if (o.t === 'set') {
            t.set(o.id, o.v);
            m.set(o.id, o.v);
          } else if (o.t === 'delete') {
            expect(t.delete(o.id)).toBe(m.delete(o.id));
          } else {
            t.clear();
            m.clear();
          }
          expect(t.size).toBe(m.size);
        }
        expectSame(t, m);
      }),
      { numRuns: 300 },
    );
  });
});
