import type { AmendCommand, PlaceCommand, RejectCode } from './types';

/** Numeric codes used inside the books; strings only at the edges. */
export const BUY = 0;
export const SELL = 1;

export const STP_NONE = 0;
export const STP_CANCEL_TAKER = 1;
export const STP_CANCEL_MAKER = 2;
export const STP_CANCEL_BOTH = 3;

export const STP_NAMES = ['none', 'cancel-taker', 'cancel-maker', 'cancel-both'] as const;

export function stpCode(mode: unknown): number {
  switch (mode) {
    case 'none':
      return STP_NONE;
    case 'cancel-taker':
      return STP_CANCEL_TAKER;
    case 'cancel-maker':
      return STP_CANCEL_MAKER;
    case 'cancel-both':
      return STP_CANCEL_BOTH;
    default:
      return -1;
  }
}

/** Safe positive integer: every price, quantity and budget the engine accepts. */
export function isPositiveInt(x: unknown): x is number {
  return Number.isSafeInteger(x) && (x as number) > 0;
}

/**
 * Stateless checks of a place command, shared by both books so they reject identically;
 * book-dependent checks (duplicate id, post-only cross) live in each book.
 * Returns null when the command is well formed.
 */
export function validatePlace(cmd: PlaceCommand): RejectCode | null {
  if (!isPositiveInt(cmd.id)) return 'INVALID_ID';
  if (!Number.isSafeInteger(cmd.owner) || cmd.owner < 0) return 'INVALID_OWNER';
  if (cmd.side !== 'buy' && cmd.side !== 'sell') return 'INVALID_SIDE';
  if (stpCode(cmd.stp) < 0) return 'INVALID_STP';
  const tif = cmd.tif;
  if (tif !== 'GTC' && tif !== 'IOC' && tif !== 'FOK') return 'INVALID_TIF';
  if (cmd.postOnly !== undefined && typeof cmd.postOnly !== 'boolean') return 'INVALID_POST_ONLY';
  if (cmd.kind === 'limit') {
    if (!isPositiveInt(cmd.price)) return 'INVALID_PRICE';
    if (!isPositiveInt(cmd.qty)) return 'INVALID_QTY';
    if (cmd.quoteBudget !== undefined) return 'INVALID_QUOTE_BUDGET';
    if (cmd.worstPrice !== undefined) return 'INVALID_WORST_PRICE';
    // A post-only order must be able to rest; IOC/FOK never do.
    if (cmd.postOnly === true && tif !== 'GTC') return 'INVALID_POST_ONLY';
    return null;
  }
  if (cmd.kind === 'market') {
    if (cmd.price !== undefined && cmd.price !== 0) return 'INVALID_PRICE';
    if (tif === 'GTC') return 'INVALID_TIF';
    if (cmd.postOnly === true) return 'INVALID_POST_ONLY';
    if (cmd.worstPrice !== undefined && !isPositiveInt(cmd.worstPrice)) return 'INVALID_WORST_PRICE';
    if (cmd.quoteBudget !== undefined) {
      if (cmd.side !== 'buy' || !isPositiveInt(cmd.quoteBudget)) return 'INVALID_QUOTE_BUDGET';
      if (cmd.qty !== undefined && cmd.qty !== 0) return 'INVALID_QTY';
      // "All or nothing" has no meaning for a budget that lots rarely divide exactly.
      if (tif === 'FOK') return 'INVALID_TIF';
      return null;
    }
    if (!isPositiveInt(cmd.qty)) return 'INVALID_QTY';
    return null;
  }
  return 'INVALID_KIND';
}

export function validateAmend(cmd: AmendCommand): RejectCode | null {
  if (cmd.price === undefined && cmd.qty === undefined) return 'INVALID_AMEND';
  if (cmd.price !== undefined && !isPositiveInt(cmd.price)) return 'INVALID_PRICE';
  if (cmd.qty !== undefined && !isPositiveInt(cmd.qty)) return 'INVALID_QTY';
  return null;
}

/**
 * floor(a / b) for safe non-negative integers. The double quotient can round up across an
 * integer boundary for large operands, so correct it with an exact product check.
 */
export function floorDiv(a: number, b: number): number {
  let q = Math.floor(a / b);
  if (q * b > a) q--;
  return q;
}
