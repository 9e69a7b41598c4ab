/**
 * Building blocks of the fast book.
 *
 * - OrderNode: a pooled resting order in an intrusive doubly linked FIFO (one per level).
 * - Level: one price level: FIFO head/tail and the total open quantity.
 * - Ladder: the levels of one side, found by price in O(1) once the price's chunk is known.
 *   Keys are price for bids and -price for asks, so "better" is "greater key" on both sides.
 *   Keys are grouped in chunks of 32 consecutive keys: a chunk holds a 32-bit occupancy mask
 *   and 32 level slots, and the chunks sit in an array sorted by chunk key, best last. Adding
 *   or removing a level touches one slot and one bit; only the first/last level of a 32-tick
 *   range moves the chunk array, and the touch is always the last chunk's highest bit.
 *   Any safe-integer price works: nothing is sized by the price range, only by chunks in use.
 */

/** Packed into OrderNode.flags: side (bit 0), STP mode (bits 1-2), post-only (bit 3). */
export const FLAG_SELL = 1;
export const FLAG_STP_SHIFT = 1;
export const FLAG_POST_ONLY = 8;

export class OrderNode {
  id = 0;
  owner = 0;
  /** Open quantity in lots. */
  qty = 0;
  /** Lots filled over the order's life. */
  filled = 0;
  flags = 0;
  prev: OrderNode | null = null;
  next: OrderNode | null = null;
  /** The level it rests on (its price is derived from the level's key); null when not resting. */
  level: Level | null = null;
}

export class Level {
  key = 0;
  total = 0;
  head: OrderNode | null = null;
  tail: OrderNode | null = null;
}

const CHUNK = 32;
/** Pools are bounded so a one-off spike does not pin memory forever. */
const LEVEL_POOL_MAX = 1 << 12;
const CHUNK_POOL_MAX = 256;

export class Chunk {
  key = 0;
  bits = 0;
  readonly slots: (Level | null)[] = [];

  constructor() {
    // Pushed one by one so the array stays packed (new Array(32) would be holey).
    for (let i = 0; i < CHUNK; i++) this.slots.push(null);
  }
}

/** Chunk key of a level key; floor so negative (ask) keys group correctly. */
function chunkKeyOf(key: number): number {
  return Math.floor(key / CHUNK);
}

export class Ladder {
  /** Sorted by chunk key ascending: the best chunk is last. */
  readonly chunks: Chunk[] = [];
  private readonly freeChunks: Chunk[] = [];
  private readonly freeLevels: Level[] = [];

  /** The best level, or null if the side is empty. */
  best(): Level | null {
    const n = this.chunks.length;
    if (n === 0) return null;
    const c = this.chunks[n - 1];
    return c.slots[31 - Math.clz32(c.bits)];
  }

  /** The level at `key`, creating it (from the pool) if missing. */
  obtain(key: number): Level {
    const ck = chunkKeyOf(key);
    const slot = key - ck * CHUNK;
    const chunks = this.chunks;
    const n = chunks.length;
    let c: Chunk;
    if (n > 0 && chunks[n - 1].key === ck) {
      c = chunks[n - 1];
    } else {
      const i = this.lowerBound(ck);
      if (i < n && chunks[i].key === ck) {
        c = chunks[i];
      } else {
        c = this.freeChunks.pop() ?? new Chunk();
        c.key = ck;
        insertAt(chunks, i, c);
      }
    }
    const existing = c.slots[slot];
    if (existing !== null) return existing;
    const fresh = this.freeLevels.pop() ?? new Level();
    fresh.key = key;
    c.slots[slot] = fresh;
    c.bits |= 1 << slot;
    return fresh;
  }

  /** Removes an emptied level; drops its chunk when that empties. */
  remove(level: Level): void {
    const key = level.key;
    level.head = null;
    level.tail = null;
    level.total = 0;
    if (this.freeLevels.length < LEVEL_POOL_MAX) this.freeLevels.push(level);
    const ck = chunkKeyOf(key);
    const slot = key - ck * CHUNK;
    const chunks = this.chunks;
    const n = chunks.length;
    const i = chunks[n - 1].key === ck ? n - 1 : this.lowerBound(ck);
    const c = chunks[i];
    c.slots[slot] = null;
    c.bits &= ~(1 << slot);
    if (c.bits !== 0) return;
    if (i === n - 1) chunks.pop();
    else {
      for (let j = i; j < n - 1; j++) chunks[j] = chunks[j + 1];
      chunks.pop();
    }
    if (this.freeChunks.length < CHUNK_POOL_MAX) this.freeChunks.push(c);
  }

  /** Index of the first chunk whose key >= ck; gallops from the best end, where activity clusters. */
  private lowerBound(ck: number): number {
    const chunks = this.chunks;
    const n = chunks.length;
    let hi = n;
    let lo = n - 1;
    let step = 1;
    while (lo >= 0 && chunks[lo].key >= ck) {
      hi = lo;
      step <<= 1;
      lo = hi - step;
    }
    if (lo < -1) lo = -1;
    // Invariant: chunks[lo].key < ck (or lo = -1), chunks[hi].key >= ck (or hi = n).
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (chunks[mid].key >= ck) hi = mid;
      else lo = mid;
    }
    return hi;
  }

  /** Calls fn for each level from best to worst until it returns false (queries, not the hot path). */
  walk(fn: (level: Level) => boolean): void {
    const chunks = this.chunks;
    for (let i = chunks.length - 1; i >= 0; i--) {
      const c = chunks[i];
      let bits = c.bits;
      while (bits !== 0) {
        const slot = 31 - Math.clz32(bits);
        bits &= ~(1 << slot);
        if (!fn(c.slots[slot] as Level)) return;
      }
    }
  }

  clear(): void {
    this.chunks.length = 0;
  }
}

function insertAt<T>(arr: T[], i: number, item: T): void {
  let j = arr.length;
  arr.push(item);
  // Shift by hand: splice allocates its result array.
  for (; j > i; j--) arr[j] = arr[j - 1];
  arr[i] = item;
}
