import { ColumnOptions } from 'typeorm';

/** Money and quantities: numeric in the database, decimal strings in TypeScript (never floats). */
export const MONEY: ColumnOptions = { type: 'numeric', precision: 36, scale: 18, default: 0 };
/** An amount that may be absent (null), e.g. a ledger posting's balance after on a row projected before it was stored there. */
export const MONEY_OR_NULL: ColumnOptions = { type: 'numeric', precision: 36, scale: 18, nullable: true };
/**
 * A balance is a sum of postings, each below 10^18 whole units, with no bound of its own: unbounded
 * numeric (migration BalancesUnbounded; numeric(36,18) stopped the projection for good at 10^18).
 */
export const BALANCE: ColumnOptions = { type: 'numeric', default: 0 };
/** A balance after a posting kept in another row (a spot trade's, a spot order's): null on rows projected before it was stored there. */
export const BALANCE_OR_NULL: ColumnOptions = { type: 'numeric', nullable: true };
/** Rates and fee ratios. */
export const RATE: ColumnOptions = { type: 'numeric', precision: 12, scale: 8, default: 0 };
/** bigint ids come back from pg as strings; keep them as strings end to end. */
export const CREATED_AT: ColumnOptions = { name: 'created_at', type: 'timestamptz', default: () => 'now()' };
