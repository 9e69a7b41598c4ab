/** The key of an empty slot (ids are non-negative). */
const EMPTY = -1;
const MIN_CAPACITY = 16;

/**
 * A map from an order id (a non-negative safe integer) to a value, for state that churns: every
 * resting order goes in when it rests and out when it fills or is cancelled.
 *
 * An open-addressed table: the keys in a Float64Array, the values in an array beside it, linear
 * probing from a Fibonacci hash of the id (consecutive ids land far apart), and backward-shift
 * deletion, so a delete leaves no tombstone and a steady number of entries never rebuilds the
 * table. A `Map` with the same churn allocates a new hash table every few thousand inserts (V8's
 * ordered hash tables rebuild to drop deleted entries), and the one in use lives until the next
 * rebuild, long enough to be promoted to the old generation: under `BENCH_TRANSPORT=ws npm run
 * bench:api` the book's index and the sequencer's live orders were ~7 % of what the server's main
 * thread promoted. This table allocates only when it grows (at half full, doubling).
 *
 * Iteration (`values`) is in table order, not insertion order; callers that need an order sort.
 */
export class IdMap<V> {
  private keys!: Float64Array;
  private vals!: (V | undefined)[];
  /** 32 less the table's size in bits: the hash's top bits pick the home slot. */
  private shift!: number;
  private mask!: number;
  private count = 0;

  constructor(capacity = MIN_CAPACITY) {
    let size = MIN_CAPACITY;
    while (size < capacity * 2) size *= 2;
    this.allocate(size);
  }

  get size(): number {
    return this.count;
  }

  has(id: number): boolean {
    return this.find(id) >= 0;
  }

  get(id: number): V | undefined {
    const i = this.find(id);
    return i >= 0 ? this.vals[i] : undefined;
  }

  set(id: number, value: V): this {
    if (!(Number.isSafeInteger(id) && id >= 0)) throw new RangeError(`IdMap: ${id} is not an id (a non-negative safe integer)`);
    const keys = this.keys;
    const mask = this.mask;
    let i = this.home(id);
    for (;;) {
      const k = keys[i];
      if (k === EMPTY) break;
      if (k === id) {
        this.vals[i] = value;
        return this;
      }
      i = (i + 1) & mask;
    }
    if ((this.count + 1) * 2 > keys.length) {
      this.grow();
      return this.set(id, value);
    }
    keys[i] = id;
    this.vals[i] = value;
    this.count++;
    return this;
  }

  delete(id: number): boolean {
    let i = this.find(id);
    if (i < 0) return false;
    const keys = this.keys;
    const vals = this.vals;
    const mask = this.mask;
    // Backward shift: each entry after the hole that could sit in it (its home is not in the
    // cyclic run between the hole and itself) moves back, so every lookup still finds its key
    // before the first empty slot.
    let j = i;
    for (;;) {
      j = (j + 1) & mask;
      const k = keys[j];
      if (k === EMPTY) break;
      const h = this.home(k);
      if (i <= j ? i < h && h <= j : i < h || h <= j) continue;
      keys[i] = k;
      vals[i] = vals[j];
      i = j;
    }
    keys[i] = EMPTY;
    vals[i] = undefined;
    this.count--;
    return true;
  }

  clear(): void {
    this.keys.fill(EMPTY);
    this.vals.fill(undefined);
    this.count = 0;
  }

  *values(): IterableIterator<V> {
    const keys = this.keys;
    for (let i = 0; i < keys.length; i++) if (keys[i] !== EMPTY) yield this.vals[i] as V;
  }

  /** The slot holding `id`, or -1. */
  private find(id: number): number {
    const keys = this.keys;
    const mask = this.mask;
    let i = this.home(id);
    for (;;) {
      const k = keys[i];
      // Empty first: an id of -1 (EMPTY) is in no slot.
      if (k === EMPTY) return -1;
      if (k === id) return i;
      i = (i + 1) & mask;
    }
  }

  /** The id's home slot: the top bits of a Fibonacci hash of its low and high 32 bits. */
  private home(id: number): number {
    const lo = id >>> 0;
    const hi = (id / 4294967296) >>> 0;
    return Math.imul(lo ^ Math.imul(hi, 0x85ebca6b), 0x9e3779b1) >>> this.shift;
  }

  /** An empty table of `size` slots (a power of two). */
  private allocate(size: number): void {
    this.keys = new Float64Array(size).fill(EMPTY);
    this.vals = new Array<V | undefined>(size).fill(undefined);
    this.mask = size - 1;
    this.shift = 32 - Math.log2(size);
    this.count = 0;
  }

  private grow(): void {
    const keys = this.keys;
    const vals = this.vals;
    this.allocate(keys.length * 2);
    for (let i = 0; i < keys.length; i++) if (keys[i] !== EMPTY) this.set(keys[i], vals[i] as V);
  }
}
