import { BlockedWatch } from './projection-replica';

describe('BlockedWatch: when a projection blocked on the watermark row is reported', () => {
  it('first after firstMs, then every everyMs, with the time blocked so far', () => {
    const w = new BlockedWatch(1000, 10_000);
    expect(w.blocked(5000)).toBeUndefined();
    expect(w.blocked(5200)).toBeUndefined();
    expect(w.blocked(6000)).toBe(1000);
    expect(w.blocked(6200)).toBeUndefined();
    expect(w.blocked(15_999)).toBeUndefined();
    expect(w.blocked(16_000)).toBe(11_000);
  });

  it('starts again after a projection went through', () => {
    const w = new BlockedWatch(1000, 10_000);
    w.blocked(0);
    expect(w.blocked(1500)).toBe(1500);
    w.clear();
    expect(w.blocked(2000)).toBeUndefined();
    expect(w.blocked(2999)).toBeUndefined();
    expect(w.blocked(3000)).toBe(1000);
  });
});
