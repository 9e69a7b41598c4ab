import type { Lang } from '../../infra/i18n/catalogue';
import { translate } from '../../infra/i18n/i18n';

/**
 * Ledger entry codes. 20…802 are the spec's (§3); 900+ are our documented extensions
 * (docs/api.md, "Ledger codes"). Never renumber: stored entries carry them.
 */
export enum LedgerCode {
  LeverageDeduction = 20,
  LeverageFee = 21,
  LeverageIncrease = 22,
  ClosingFunds = 30,
  LockDeduction = 40,
  LockReturn = 41,
  WithdrawalIncrease = 100,
  WithdrawalDeduction = 101,
  NewCoinSubscription = 103,
  DepositIncrease = 200,
  DepositDecrease = 201,
  FuturesDeduction = 300,
  FuturesIncrease = 301,
  EtfDeduction = 400,
  EtfFee = 401,
  EtfIncrease = 402,
  FlashExchangeDeduction = 500,
  FlashExchangeIncrease = 501,
  TransferDeduction = 502,
  TransferIncrease = 503,
  CoinTradeDeduction = 600,
  CoinTradeFee = 601,
  CoinTradeIncrease = 602,
  NftDeduction = 700,
  NftFee = 701,
  NftIncrease = 702,
  LoanDeduction = 800,
  LoanFee = 801,
  LoanIncrease = 802,
  /** Extension: money brought in by the operator (e.g. the market maker's float). */
  SystemFunding = 900,
  /** Extension: available → frozen for a pending order or request. */
  Freeze = 901,
  /** Extension: frozen → available when it is cancelled or rejected. */
  Unfreeze = 902,
  /** Extension: a wealth product's daily interest, from the house's reserve (treasury frozen) to the trust account. */
  WealthInterest = 903,
  /** Extension: a wealth product's early-redemption penalty, from the trust account to the house (treasury). */
  WealthPenalty = 904,
  /** Extension: a referral rebate, a share of an invitee's trading fee from the fee account (spot-fee or fees) to the inviter's trade account. */
  ReferralRebate = 905,
}

export const LEDGER_CODES: readonly LedgerCode[] = Object.values(LedgerCode).filter((v): v is LedgerCode => typeof v === 'number');

export function isLedgerCode(value: number): value is LedgerCode {
  return LEDGER_CODES.includes(value as LedgerCode);
}

export function ledgerCodeName(code: LedgerCode, lang: Lang): string {
  return translate(lang, `ledger.${code}` as Parameters<typeof translate>[1]);
}

/** The four user accounts of the spec, plus the system's own. */
export const USER_ACCOUNT_TYPES = ['coin', 'option', 'lever', 'trust'] as const;
export type UserAccountType = (typeof USER_ACCOUNT_TYPES)[number];
/**
 * `external` mirrors money outside the exchange (may be negative); `fees` holds fee revenue;
 * `treasury` is the house's float (options reserve, contracts, the desk's source); `transit`
 * holds money between a database account and the sequencer (an outbox command on its way);
 * `spot-fee` (spot trading fees) and `desk` (the flash-exchange desk) are owned by the sequencer;
 * `ieo` is an IEO issuer's account (owner id = the project): its coin's supply and its proceeds;
 * `loan-pool` is the lending pool (a database account): loans are paid out of it, repayments and interest come back to it.
 * `nft` is an NFT collection's issuer account (owner id = the collection, a database account): its primary sales' proceeds.
 */
export type SystemAccountType = 'external' | 'fees' | 'treasury' | 'transit' | 'spot-fee' | 'desk' | 'ieo' | 'loan-pool' | 'nft';
export type AccountType = UserAccountType | SystemAccountType;

export type OwnerType = 'user' | 'system';
export const SYSTEM_OWNER_ID = 0;
