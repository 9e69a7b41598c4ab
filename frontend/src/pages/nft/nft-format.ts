import { isAmount, isPositive, mul, sub } from '../../components/decimal';
import { amountText } from '../../components/format';

/** Prices are shown truncated (spec), as exact as the market takes them (up to 8 decimals), without trailing zeros: "97.5". */
export const nftPrice = (price: string | null | undefined) => amountText(price ?? '0');

/** The seller's share of a price after the fee, truncated like the server's (fee to 8 decimals). */
export const proceedsOf = (price: string, feeRate: string) => sub(price, mul(price, feeRate, 8), 8);

/** A valid asking price: above 0, at most 8 decimals, at most 12 integer digits. */
export const isPrice = (v: string) => isAmount(v) && isPositive(v) && /^\d{1,12}(\.\d{1,8})?$/.test(v.trim());
