import { UNIT } from '../../infra/money';

/** One subscription, in ledger units (10^-18). */
export interface AllocationInput {
  readonly id: string;
  readonly quantity: bigint;
  readonly payment: bigint;
}

export interface AllocationRow {
  readonly id: string;
  readonly allocation: bigint;
  readonly paid: bigint;
  readonly refund: bigint;
}

export interface AllocationResult {
  readonly rows: AllocationRow[];
  readonly requested: bigint;
  readonly allocated: bigint;
  /** min(requested, supply) − allocated: lost to truncation; it stays with the issuer and is reported. */
  readonly remainder: bigint;
  /** supply / requested at 8 decimals (UNIT-scaled), or UNIT when not oversubscribed. */
  readonly ratio: bigint;
  readonly payments: bigint;
  readonly refunded: bigint;
  readonly proceeds: bigint;
}

/**
 * The allocation rule, pure (integers only): not oversubscribed → everyone gets what they asked
 * for; oversubscribed → each subscription gets quantity × supply / requested, truncated to the
 * coin's precision, so the sum never exceeds the supply. What is paid is allocation × price
 * (exact: quantities have at most 8 decimals and prices at most 8), the rest of the payment is
 * refunded, so refund + allocation × price = payment for every subscription.
 */
export function allocate(subs: readonly AllocationInput[], supply: bigint, price: bigint, decimals: number): AllocationResult {
  if (decimals < 0 || decimals > 18) throw new Error(`bad precision ${decimals}`);
  const step = 10n ** BigInt(18 - decimals);
  const requested = subs.reduce((s, x) => s + x.quantity, 0n);
  const over = requested > supply;
  let allocated = 0n;
  let payments = 0n;
  let proceeds = 0n;
  const rows = subs.map((s) => {
    const allocation = over ? ((s.quantity * supply) / (requested * step)) * step : s.quantity;
    const product = allocation * price;
    if (product % UNIT !== 0n) throw new Error(`allocation ${s.id}: allocation × price is not exact at 18 decimals`);
    const paid = product / UNIT;
    if (paid > s.payment) throw new Error(`allocation ${s.id}: pays more than was frozen`);
    allocated += allocation;
    payments += s.payment;
    proceeds += paid;
    return { id: s.id, allocation, paid, refund: s.payment - paid };
  });
  const filled = over ? supply : requested;
  return {
    rows,
    requested,
    allocated,
    remainder: filled - allocated,
    ratio: over ? ((supply * 10n ** 8n) / requested) * 10n ** 10n : UNIT,
    payments,
    refunded: payments - proceeds,
    proceeds,
  };
}
