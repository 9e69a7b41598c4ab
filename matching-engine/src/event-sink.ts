import type { CancelReason, CommandType, DoneStatus, EngineEvent, OrderKind, RejectCode, Side } from './types';

/**
 * Where a book writes its events. Positional arguments instead of event objects so the
 * matching hot path allocates nothing; EventCollector turns calls into EngineEvent objects
 * for hosts and tests that want them.
 */
export interface EventSink {
  accepted(ts: number, id: number, owner: number, side: Side, kind: OrderKind, price: number, qty: number, quoteBudget: number): void;
  rejected(ts: number, id: number, command: CommandType, code: RejectCode): void;
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
  ): void;
  cancelled(ts: number, id: number, owner: number, reason: CancelReason, qty: number): void;
  amended(ts: number, id: number, owner: number, oldPrice: number, oldQty: number, price: number, qty: number, priorityKept: boolean): void;
  done(ts: number, id: number, owner: number, status: DoneStatus, filledQty: number, remainingQty: number, quoteLeft: number): void;
}

/** Collects events as plain objects; `drain()` hands them over and starts a new batch. */
export class EventCollector implements EventSink {
  events: EngineEvent[] = [];

  drain(): EngineEvent[] {
    const out = this.events;
    this.events = [];
    return out;
  }

  accepted(ts: number, id: number, owner: number, side: Side, kind: OrderKind, price: number, qty: number, quoteBudget: number): void {
    this.events.push({ type: 'accepted', ts, id, owner, side, kind, price, qty, quoteBudget });
  }

  rejected(ts: number, id: number, command: CommandType, code: RejectCode): void {
    this.events.push({ type: 'rejected', ts, id, command, code });
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
    this.events.push({ type: 'trade', ts, tradeId, makerId, makerOwner, takerId, takerOwner, takerSide, price, qty, makerRemaining });
  }

  cancelled(ts: number, id: number, owner: number, reason: CancelReason, qty: number): void {
    this.events.push({ type: 'cancelled', ts, id, owner, reason, qty });
  }

  amended(ts: number, id: number, owner: number, oldPrice: number, oldQty: number, price: number, qty: number, priorityKept: boolean): void {
    this.events.push({ type: 'amended', ts, id, owner, oldPrice, oldQty, price, qty, priorityKept });
  }

  done(ts: number, id: number, owner: number, status: DoneStatus, filledQty: number, remainingQty: number, quoteLeft: number): void {
    this.events.push({ type: 'done', ts, id, owner, status, filledQty, remainingQty, quoteLeft });
  }
}

/** Discards everything; for hosts that only query the book. */
export class NullSink implements EventSink {
  accepted(): void {}
  rejected(): void {}
  trade(): void {}
  cancelled(): void {}
  amended(): void {}
  done(): void {}
}
