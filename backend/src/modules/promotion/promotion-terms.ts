import { money, truncate } from '../../infra/money';

/** Rebates are truncated to 8 decimals (a coin never shows more). */
export const REBATE_DECIMALS = 8;
export const DEFAULT_PROMOTION_SETTINGS = { ratio: '0.2', partner_ratio: '0.4' };
export type PromotionSettings = typeof DEFAULT_PROMOTION_SETTINGS;

/** fee × ratio, truncated (never more than the fee). */
export function rebateOf(fee: string, ratio: string): string {
  return truncate(money(fee).times(ratio), REBATE_DECIMALS);
}

/**
 * Masks an account for lists other users see: "13800138000" → "138****8000",
 * "ana.lopez@example.com" → "an***@example.com", short names keep their first character. A
 * number keeps at least four of its characters hidden, as the eleven-digit mask does: "91234567"
 * → "91****67" (showing seven of its eight digits would leave ten guesses).
 */
export function maskAccount(account: string): string {
  const at = account.indexOf('@');
  if (at > 0) return `${account.slice(0, Math.min(2, at - 1) || 1)}***${account.slice(at)}`;
  if (account.length > 7) {
    const shown = Math.min(7, account.length - 4);
    const head = Math.min(3, Math.floor(shown / 2));
    return `${account.slice(0, head)}****${account.slice(account.length - (shown - head))}`;
  }
  return `${account.slice(0, 1)}***`;
}
