import type { EventSink } from './event-sink';
import type { CancelReason, CommandType, DoneStatus, EngineEvent, OrderKind, RejectCode, Side } from './types';

/**
 * FNV-1a 64-bit over ASCII text, in four 16-bit limbs so it stays exact without BigInt
 * (prime = 2^40 + 0x1b3, so h * prime = h * 0x1b3 + (h << 40)).
 */
export class Fnv1a64 {
  private h0 = 0x2325;
  private h1 = 0x8422;
  private h2 = 0x9ce4;
  private h3 = 0xcbf2;

  update(text: string): this {
    let h0 = this.h0;
    let h1 = this.h1;
    let h2 = this.h2;
    let h3 = this.h3;
    for (let i = 0; i < text.length; i++) {
      // Canonical lines are ASCII; mask keeps the byte semantics if they ever are not.
      h0 ^= text.charCodeAt(i) & 0xff;
      const t0 = h0 * 0x1b3;
      let t1 = h1 * 0x1b3;
      let t2 = h2 * 0x1b3 + (h0 << 8);
      let t3 = h3 * 0x1b3 + (h1 << 8);
      t1 += t0 >>> 16;
      h0 = t0 & 0xffff;
      t2 += t1 >>> 16;
      h1 = t1 & 0xffff;
      t3 += t2 >>> 16;
      h2 = t2 & 0xffff;
      h3 = t3 & 0xffff;
    }
    this.h0 = h0;
    this.h1 = h1;
    this.h2 = h2;
    this.h3 = h3;
    return this;
  }

  digest(): string {
    return [this.h3, this.h2, this.h1, this.h0].map((limb) => limb.toString(16).padStart(4, '0')).join('');
  }
}

/** One line per event, fields in a fixed order: the canonical form that the hash covers. */
export function canonicalEvent(e: EngineEvent): string {
  switch (e.type) {
    case 'accepted':
      return `A,${e.ts},${e.id},${e.owner},${e.side},${e.kind},${e.price},${e.qty},${e.quoteBudget}\n`;
    case 'rejected':
      return `R,${e.ts},${e.id},${e.command},${e.code}\n`;
    case 'trade':
      return `T,${e.ts},${e.tradeId},${e.makerId},${e.makerOwner},${e.takerId},${e.takerOwner},${e.takerSide},${e.price},${e.qty},${e.makerRemaining}\n`;
    case 'cancelled':
      return `C,${e.ts},${e.id},${e.owner},${e.reason},${e.qty}\n`;
    case 'amended':
      return `M,${e.ts},${e.id},${e.owner},${e.oldPrice},${e.oldQty},${e.price},${e.qty},${e.priorityKept ? 1 : 0}\n`;
    case 'done':
      return `D,${e.ts},${e.id},${e.owner},${e.status},${e.filledQty},${e.remainingQty},${e.quoteLeft}\n`;
  }
}

/** Deterministic 16-hex-digit hash of an event stream (replay checks, tests). */
export function hashEvents(events: readonly EngineEvent[]): string {
  const h = new Fnv1a64();
  for (const e of events) h.update(canonicalEvent(e));
  return h.digest();
}

/** Sink that hashes as it goes, without keeping events; equals hashEvents over the same stream. */
export class HashingSink implements EventSink {
  private readonly h = new Fnv1a64();
  count = 0;

  digest(): string {
    return this.h.digest();
  }

  private line(e: EngineEvent): void {
    this.count++;
    this.h.update(canonicalEvent(e));
  }

  accepted(ts: number, id: number, owner: number, side: Side, kind: OrderKind, price: number, qty: number, quoteBudget: number): void {
    this.line({ type: 'accepted', ts, id, owner, side, kind, price, qty, quoteBudget });
  }

  rejected(ts: number, id: number, command: CommandType, code: RejectCode): void {
    this.line({ type: 'rejected', ts, id, command, code });
  }

  trade(
    ts: number,
    tradeId: number,
    makerId: number,
    makerOwner: number,
    takerId: number,
    takerOwner: number,
    takerSide: Side,
    price: number,
    qty: number,
    makerRemaining: number,
  ): void {
    this.line({ type: 'trade', ts, tradeId, makerId, makerOwner, takerId, takerOwner, takerSide, price, qty, makerRemaining });
  }

  cancelled(ts: number, id: number, owner: number, reason: CancelReason, qty: number): void {
    this.line({ type: 'cancelled', ts, id, owner, reason, qty });
  }

  amended(ts: number, id: number, owner: number, oldPrice: number, oldQty: number, price: number, qty: number, priorityKept: boolean): void {
    this.line({ type: 'amended', ts, id, owner, oldPrice, oldQty, price, qty, priorityKept });
  }

  done(ts: number, id: number, owner: number, status: DoneStatus, filledQty: number, remainingQty: number, quoteLeft: number): void {
    this.line({ type: 'done', ts, id, owner, status, filledQty, remainingQty, quoteLeft });
  }
}
