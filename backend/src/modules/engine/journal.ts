import type { Command, Side } from '@kestrel/matching-engine';

/**
 * One journaled order command (event type `OrderCommand` on stream `engine:<market id>`). It holds
 * everything the engine needs, so replaying the stream rebuilds the book exactly.
 */
export type JournalEntry =
  | { kind: 'place'; orderId: number; userId: number; side: Side; type: 'limit' | 'market'; price: number; qty: number; quoteBudget: number; ts: number }
  | { kind: 'cancel'; orderId: number; userId: number; ts: number };

export const journalStream = (marketId: number) => `engine:${marketId}`;

/** Self-trade prevention for every account: an incoming order removes the owner's own resting order. */
export const STP = 'cancel-maker' as const;

export function toCommand(e: JournalEntry): Command {
  if (e.kind === 'cancel') return { type: 'cancel', id: e.orderId, ts: e.ts };
  return {
    type: 'place',
    id: e.orderId,
    owner: e.userId,
    side: e.side,
    kind: e.type,
    price: e.type === 'limit' ? e.price : undefined,
    qty: e.qty || undefined,
    quoteBudget: e.quoteBudget || undefined,
    worstPrice: e.type === 'market' && e.price ? e.price : undefined,
    tif: e.type === 'limit' ? 'GTC' : 'IOC',
    stp: STP,
    ts: e.ts,
  } as Command;
}
