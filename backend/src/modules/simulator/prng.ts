import { randomFillSync } from 'node:crypto';

/**
 * mulberry32: a small seeded PRNG, so a simulator run is reproducible from its seed. Its whole
 * state is 32 bits, which a few of its outputs (order sizes, public in trades and depth) give away:
 * only for an explicit MARKET_SIMULATOR_SEED (tests, demos), never the unseeded default.
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Words read from the operating system's CSPRNG at a time (two per draw). */
const SECURE_BLOCK_WORDS = 512;

/**
 * Uniforms in [0, 1) with 53 random bits each, from the operating system's cryptographically
 * secure generator (read in blocks): past draws tell nothing about coming ones. Each call makes a
 * source of its own.
 */
export function secureRandom(): () => number {
  const words = new Uint32Array(SECURE_BLOCK_WORDS);
  let next = words.length;
  return () => {
    if (next === words.length) {
      randomFillSync(words);
      next = 0;
    }
    const high = words[next++] >>> 5; // 27 bits
    const low = words[next++] >>> 6; // 26 bits
    return (high * 67108864 + low) / 9007199254740992;
  };
}

/** Standard normal from two uniforms (Box–Muller). */
export function gaussian(rand: () => number): number {
  const u = Math.max(rand(), Number.EPSILON);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rand());
}
