import { GbmPrice } from './gbm';
import { mulberry32 } from './prng';

describe('simulator price path', () => {
  it('is reproducible from its seed', () => {
    const a = new GbmPrice(100, 0.8, mulberry32(7));
    const b = new GbmPrice(100, 0.8, mulberry32(7));
    for (let i = 0; i < 1000; i++) expect(a.step(1)).toBe(b.step(1));
  });

  it('moves by about σ·√dt per step', () => {
    const p = new GbmPrice(100, 0.8, mulberry32(1));
    const returns: number[] = [];
    let prev = p.price;
    for (let i = 0; i < 20000; i++) {
      const next = p.step(1);
      returns.push(Math.log(next / prev));
      prev = next;
    }
    const sd = Math.sqrt(returns.reduce((s, r) => s + r * r, 0) / returns.length);
    const expected = 0.8 * Math.sqrt(1 / (365 * 24 * 3600));
    expect(sd / expected).toBeGreaterThan(0.95);
    expect(sd / expected).toBeLessThan(1.05);
  });
});
