import type { BookSnapshot, SnapshotOrder } from './types';
import { isPositiveInt, stpCode } from './validation';

/**
 * A snapshot comes from our own `snapshot()` via storage; a malformed one is an operator or
 * storage fault, not a business outcome, so restoring it throws rather than guessing.
 */
export function assertValidSnapshot(s: BookSnapshot): void {
  if (s === null || typeof s !== 'object' || s.version !== 1) throw new Error('snapshot: unsupported version');
  if (!Number.isSafeInteger(s.tradeSeq) || s.tradeSeq < 0) throw new Error('snapshot: bad tradeSeq');
  if (!Array.isArray(s.bids) || !Array.isArray(s.asks)) throw new Error('snapshot: bids/asks must be arrays');
  const seen = new Set<number>();
  const check = (orders: SnapshotOrder[], better: (a: number, b: number) => boolean): void => {
    for (let i = 0; i < orders.length; i++) {
      const o = orders[i];
      if (!isPositiveInt(o.id) || seen.has(o.id)) throw new Error(`snapshot: bad or duplicate id ${String(o.id)}`);
      seen.add(o.id);
      if (!Number.isSafeInteger(o.owner) || o.owner < 0) throw new Error(`snapshot: bad owner on ${o.id}`);
      if (!isPositiveInt(o.price) || !isPositiveInt(o.qty)) throw new Error(`snapshot: bad price/qty on ${o.id}`);
      if (!Number.isSafeInteger(o.filled) || o.filled < 0) throw new Error(`snapshot: bad filled on ${o.id}`);
      if (stpCode(o.stp) < 0 || typeof o.postOnly !== 'boolean') throw new Error(`snapshot: bad flags on ${o.id}`);
      if (i > 0 && better(o.price, orders[i - 1].price)) throw new Error(`snapshot: orders out of priority at ${o.id}`);
    }
  };
  check(s.bids, (a, b) => a > b);
  check(s.asks, (a, b) => a < b);
  if (s.bids.length > 0 && s.asks.length > 0 && s.bids[0].price >= s.asks[0].price) throw new Error('snapshot: crossed book');
}
