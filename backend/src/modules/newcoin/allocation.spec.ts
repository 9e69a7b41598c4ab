import fc from 'fast-check';
import { UNIT, units, unitsString } from '../../infra/money';
import { allocate } from './allocation';

const sub = (id: string, quantity: string, price: string) => ({ id, quantity: units(quantity), payment: (units(quantity) * units(price)) / UNIT });

describe('IEO allocation rule', () => {
  it('not oversubscribed: everyone gets what they asked for, nothing is refunded', () => {
    const r = allocate([sub('1', '100', '0.5'), sub('2', '250', '0.5')], units('1000'), units('0.5'), 2);
    expect(r.rows.map((x) => [unitsString(x.allocation), unitsString(x.paid), unitsString(x.refund)])).toEqual([
      ['100', '50', '0'],
      ['250', '125', '0'],
    ]);
    expect(unitsString(r.ratio)).toBe('1');
    expect(unitsString(r.remainder)).toBe('0');
  });

  it('oversubscribed: pro rata, truncated to the precision; the remainder goes to no one', () => {
    // 3 ask 1 each for a supply of 2 at 0 decimals: 2/3 → 0 each; remainder 2.
    const r = allocate([sub('1', '1', '1'), sub('2', '1', '1'), sub('3', '1', '1')], units('2'), units('1'), 0);
    expect(r.rows.map((x) => unitsString(x.allocation))).toEqual(['0', '0', '0']);
    expect(unitsString(r.remainder)).toBe('2');
    expect(unitsString(r.refunded)).toBe('3');
    // 2 decimals: 0.66 each, remainder 0.02, ratio 0.66666666.
    const d = allocate([sub('1', '1', '1'), sub('2', '1', '1'), sub('3', '1', '1')], units('2'), units('1'), 2);
    expect(d.rows.map((x) => unitsString(x.allocation))).toEqual(['0.66', '0.66', '0.66']);
    expect(unitsString(d.remainder)).toBe('0.02');
    expect(unitsString(d.ratio)).toBe('0.66666666');
  });

  it('property: allocations never exceed the supply or a request, and refund + allocation × price = payment', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 10_000_000 }), { minLength: 1, maxLength: 50 }),
        fc.integer({ min: 1, max: 100_000_000 }),
        fc.integer({ min: 1, max: 10_000_000 }),
        fc.integer({ min: 0, max: 8 }),
        (qs, supplyRaw, priceRaw, decimals) => {
          const scale = 10n ** BigInt(18 - decimals);
          const price = BigInt(priceRaw) * 10n ** 10n; // up to 8 decimals
          const subs = qs.map((q, i) => ({ id: String(i), quantity: BigInt(q) * scale, payment: (BigInt(q) * scale * price) / UNIT }));
          const r = allocate(subs, BigInt(supplyRaw) * scale, price, decimals);
          expect(r.allocated).toBeLessThanOrEqual(BigInt(supplyRaw) * scale);
          r.rows.forEach((row, i) => {
            expect(row.allocation).toBeLessThanOrEqual(subs[i].quantity);
            expect(row.allocation % scale).toBe(0n);
            expect(row.refund + (row.allocation * price) / UNIT).toBe(subs[i].payment);
            expect(row.refund).toBeGreaterThanOrEqual(0n);
          });
          expect(r.refunded + r.proceeds).toBe(r.payments);
        },
      ),
    );
  });
});
