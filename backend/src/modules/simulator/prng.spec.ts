import * as crypto from 'node:crypto';
import { secureRandom } from './prng';

jest.mock('node:crypto', () => {
  const actual = jest.requireActual('node:crypto');
  return { ...actual, randomFillSync: jest.fn(actual.randomFillSync) };
});
const randomFillSync = crypto.randomFillSync as unknown as jest.Mock;

describe('secure simulator randomness (regression: unseeded runs used mulberry32, whose 32-bit state public order sizes give away)', () => {
  afterEach(() => randomFillSync.mockImplementation(jest.requireActual('node:crypto').randomFillSync));

  it('every draw comes from the operating system’s CSPRNG, 53 bits each, in [0, 1)', () => {
    randomFillSync.mockClear();
    randomFillSync.mockImplementation((words: Uint32Array) => words.fill(0xffffffff));
    const high = secureRandom();
    expect(high()).toBe((2 ** 53 - 1) / 2 ** 53);
    randomFillSync.mockImplementation((words: Uint32Array) => words.fill(0));
    expect(secureRandom()()).toBe(0);
    randomFillSync.mockImplementation((words: Uint32Array) => words.fill(0x00000020, 0, 1).fill(0x00000040, 1, 2));
    expect(secureRandom()()).toBe((67108864 + 1) / 2 ** 53);
    expect(randomFillSync).toHaveBeenCalledTimes(3);
  });

  it('is read in blocks, and sources share no sequence', () => {
    randomFillSync.mockClear();
    const a = secureRandom();
    const b = secureRandom();
    const xs = Array.from({ length: 20000 }, () => a());
    const ys = Array.from({ length: 1000 }, () => b());
    expect(randomFillSync.mock.calls.length).toBeLessThan(100);
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true);
    expect(new Set(xs).size).toBe(xs.length);
    expect(ys).not.toEqual(xs.slice(0, 1000));
    // Finer than 2^-32 (a 32-bit generator's grid).
    expect(xs.some((x) => !Number.isInteger(x * 2 ** 32))).toBe(true);
    const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
    expect(Math.abs(mean - 0.5)).toBeLessThan(0.02);
  });
});
