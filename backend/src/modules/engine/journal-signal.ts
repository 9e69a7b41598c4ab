/**
 * How the host tells the projector thread that it journaled more, without a message per journal
 * row: the newest journaled batch is kept in shared memory, and the projector thread is woken (a
 * message: a system call and a thread wakeup, ~60 µs of the host's main thread under load) only
 * when it waits for work. While it projects or lingers it reads the head itself before waiting.
 *
 * The two sides publish before they look (the host: the head, then the idle flag; the projector:
 * the idle flag, then the head), with sequentially consistent atomics, so at least one of them
 * sees the other's write: a journaled batch is never left waiting for the projector's 200 ms
 * fallback read.
 */
export class JournalSignal {
  /** The newest journaled batch (a 64-bit integer: batch numbers outgrow 32 bits). */
  private readonly head: BigInt64Array;
  /** 1 while the projector waits for work (it must be woken), else 0. */
  private readonly idle: Int32Array;

  /** One side makes the buffer (`new JournalSignal()`), the other opens the same one (`new JournalSignal(buffer)`). */
  constructor(readonly buffer: SharedArrayBuffer = new SharedArrayBuffer(16)) {
    this.head = new BigInt64Array(buffer, 0, 1);
    this.idle = new Int32Array(buffer, 8, 1);
  }

  /** The host journaled up to `seq`: answers whether the projector must be woken (once per wait). */
  publish(seq: number): boolean {
    Atomics.store(this.head, 0, BigInt(seq));
    return Atomics.exchange(this.idle, 0, 0) === 1;
  }

  /** The projector is about to wait for work: answers the newest journaled batch (wake it if it has fewer). */
  waiting(): number {
    Atomics.store(this.idle, 0, 1);
    return Number(Atomics.load(this.head, 0));
  }

  /** The projector has work again: the host need not wake it. */
  working(): void {
    Atomics.store(this.idle, 0, 0);
  }
}
