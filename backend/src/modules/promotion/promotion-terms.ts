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
 * "ana.lopez@example.com" → "an***@example.com", short names keep their first character.
 */
export function maskAccount(account: string): string {
  const at = account.indexOf('@');
  if (at > 0) return `${account.slice(0, Math.min(2, at - 1) || 1)}***${account.slice(at)}`;
  if (account.length > 7) return `${account.slice(0, 3)}****${account.slice(-4)}`;
  return `${account.slice(0, 1)}***`;
}
