import { ClosedOwners } from './closed-owners';

describe('ClosedOwners', () => {
  it('answers the owner of a closed order until an order `size` ids younger takes its slot', () => {
    const closed = new ClosedOwners(4);
    closed.set(1, 10);
    closed.set(2, 20);
    expect(closed.get(1)).toBe(10);
    expect(closed.get(2)).toBe(20);
    expect(closed.get(3)).toBeUndefined();
    expect(closed.get(5)).toBeUndefined(); // slot 1 holds order 1, not 5
    closed.set(5, 50);
    expect(closed.get(5)).toBe(50);
    expect(closed.get(1)).toBeUndefined(); // forgotten: the caller reads the order's row
    expect(closed.get(0)).toBeUndefined(); // an empty slot names no order
  });
});
