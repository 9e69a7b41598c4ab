import { ColumnOptions } from 'typeorm';

/** Money and quantities: numeric in the database, decimal strings in TypeScript (never floats). */
export const MONEY: ColumnOptions = { type: 'numeric', precision: 36, scale: 18, default: 0 };
/** Rates and fee ratios. */
export const RATE: ColumnOptions = { type: 'numeric', precision: 12, scale: 8, default: 0 };
/** bigint ids come back from pg as strings; keep them as strings end to end. */
export const CREATED_AT: ColumnOptions = { name: 'created_at', type: 'timestamptz', default: () => 'now()' };
