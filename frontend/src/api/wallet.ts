import { get, post } from './client';
import type { Page } from './trading';

/** Wallet, funding, address book, flash exchange, pricing and verification calls (docs/api.md). */
export type AccountType = 'coin' | 'option' | 'lever' | 'trust';
export const ACCOUNTS: AccountType[] = ['coin', 'option', 'lever', 'trust'];
/** An account named in a link's query (`?account=lever`), or undefined when it names none of ours. */
export const accountParam = (v: string | null): AccountType | undefined => (ACCOUNTS.includes(v as AccountType) ? (v as AccountType) : undefined);

export interface Pricing {
  code: string;
  name: string;
  symbol: string;
  rate: string;
}
export interface WalletItem {
  currency_id: number;
  symbol: string;
  total: string;
  available: string;
  frozen: string;
  value: string;
  /** The coin's display decimals (amounts come without trailing zeros). */
  decimals: number;
}
export interface WalletList {
  pricing: Pricing;
  total_value: string;
  accounts: Array<{ account: AccountType; total_value: string; items: WalletItem[] }>;
}
export interface LedgerLine {
  id: string;
  account: AccountType;
  currency_id: number;
  symbol: string;
  code: number;
  code_name: string;
  amount: string;
  available_change: string;
  frozen_change: string;
  balance_after: string;
  ref: string | null;
  created_at: string;
}
export interface WalletDetail {
  account: AccountType;
  currency_id: number;
  symbol: string;
  total: string;
  available: string;
  frozen: string;
  log: Page<LedgerLine>;
}
export interface UserCurrency {
  currency_id: number;
  symbol: string;
  available: string;
  frozen: string;
  min_deposit: string;
  min_withdraw: string;
  withdraw_fee: string;
  chains: Array<{ chain: string; deposit_available: boolean }>;
}
export interface TransferOptions {
  accounts: AccountType[];
  currencies: Array<{
    currency_id: number;
    symbol: string;
    available: Partial<Record<AccountType, string>>;
    routes: Array<{ from: AccountType; to: AccountType }>;
  }>;
}
export interface Transfer {
  transfer_id: string;
  currency_id: number;
  symbol: string;
  from: AccountType;
  to: AccountType;
  amount: string;
  created_at: string;
}
export interface DepositAddress {
  currency_id: number;
  symbol: string;
  chain: string;
  address: string;
  min_deposit: string;
  /** The coin's decimals: a report with more is refused. */
  decimals: number;
  chains: Array<{ chain: string; available: boolean }>;
}
export type ReviewStatus = 'review' | 'passed' | 'rejected';
export interface FundingRecord {
  id: string;
  currency_id: number;
  symbol: string;
  chain: string;
  address: string;
  amount: string;
  fee: string;
  actual_amount: string;
  remark?: string | null;
  image_url?: string | null;
  status: ReviewStatus;
  reason: string | null;
  tx_hash?: string | null;
  created_at: string;
  reviewed_at: string | null;
}
export interface WithdrawInfo {
  currency_id: number;
  symbol: string;
  chains: string[];
  available: string;
  /** The coin's display decimals. */
  decimals: number;
  fee: string;
  min_amount: string;
  requests_per_day: number;
  remaining_requests_today: number;
  daily_limit_usdt: string;
  remaining_amount_today_usdt: string;
  verification_level: number;
  has_fund_password: boolean;
  arrival_hours: number;
}
export interface AddressEntry {
  id: string;
  currency_id: number;
  symbol: string;
  chain: string;
  address: string;
  remark: string | null;
  created_at: string;
}
export interface FlashQuote {
  quote_id: string;
  from_currency_id: number;
  from_symbol: string;
  to_currency_id: number;
  to_symbol: string;
  amount: string;
  rate: string;
  fee: string;
  receive: string;
  expires_at: string;
  /** Seconds the quote is good for, as it was given (fpjy/quote): counted from its arrival, not by the phone's clock. */
  expires_in?: number;
  created_at?: string;
}
export interface FiatRate {
  code: string;
  name: string;
  symbol: string;
  rate: string;
}
export type KycState = 'unverified' | 'review' | 'verified' | 'rejected';
export interface KycStates {
  basic: KycState;
  advanced: KycState;
  basic_reason: string | null;
  advanced_reason: string | null;
}

/** How many transfers a page of `wallet/history` holds. */
export const TRANSFERS_PAGE = 50;
/** How many flash exchanges a page of `fpjy/list` holds. */
export const CONVERSIONS_PAGE = 20;

export const walletApi = {
  list: (pricing: string) => post<WalletList>('wallet/list', { pricing }),
  detail: (account: AccountType, currencyId: number, page = 1) => post<WalletDetail>('wallet/detail', { account, currency_id: currencyId, page }),
  log: (params: { code?: number; currency_id?: number; account?: AccountType; page?: number; limit?: number }) => get<Page<LedgerLine>>('wallet/log', params),
  history: (page = 1) => get<Page<Transfer>>('wallet/history', { page, limit: TRANSFERS_PAGE }),
  currencies: () => get<UserCurrency[]>('currency/user_currency_list'),
  /** `quiet`: a screen that only looks whether a coin can move (the asset detail's Transfer button) shows no error. */
  transferOptions: (quiet = false) => post<TransferOptions>('wallet/curChange', undefined, { quiet }),
  transfer: (form: { from: AccountType; to: AccountType; currency_id: number; amount: string; client_id: string }) =>
    post<{ transfer_id: string; duplicate: boolean }>('wallet/change', form),
  depositAddress: (currencyId: number, chain: string) => post<DepositAddress>('wallet/get_in_address', { currency_id: currencyId, chain }, { quiet: true }),
  deposit: (form: { currency_id: number; chain: string; amount: string; image_id: string; client_id: string }) =>
    post<{ deposit_id: string; duplicate: boolean }>('wallet/charge_req', form),
  deposits: (page = 1, limit = 50) => get<Page<FundingRecord>>('charge_mention/log2', { page, limit }),
  withdrawals: (page = 1, limit = 50) => get<Page<FundingRecord>>('charge_mention/log3', { page, limit }),
  /** One withdrawal of the user's, by id (null: none of that id). */
  withdrawal: (id: string) => get<Page<FundingRecord>>('charge_mention/log3', { id, limit: 1 }).then((p) => p.items[0] ?? null),
  withdrawInfo: (currencyId: number) => post<WithdrawInfo>('wallet/get_info', { currency_id: currencyId }),
  /** The coin and chain come from the address-book entry. */
  withdraw: (form: { address_id: string; amount: string; password: string; remark?: string; client_id: string }) =>
    post<{ withdrawal_id: string; duplicate: boolean }>('wallet/out', form),
  addresses: (currencyId?: number) => post<AddressEntry[]>('wallet/get_address', { currency_id: currencyId }),
  addAddress: (form: { currency_id: number; chain: string; address: string; password: string; code: string; channel: 'sms' | 'email'; remark?: string }) =>
    post<AddressEntry>('wallet/addaddress', form),
  deleteAddress: (id: string) => post<string>('wallet/deladdress', { id }),
  /** The coins the flash desk converts (the others are refused with 2214). */
  flashCoins: () => get<Array<{ currency_id: number; symbol: string }>>('fpjy/coins'),
  quote: (form: { from_currency_id: number; to_currency_id: number; amount: string }) => post<FlashQuote>('fpjy/quote', form),
  convert: (quoteId: string) => post<FlashQuote & { duplicate?: boolean }>('fpjy/convert', { quote_id: quoteId }),
  conversions: (page = 1) => get<Page<FlashQuote>>('fpjy/list', { page, limit: CONVERSIONS_PAGE }),
  rates: () => get<FiatRate[]>('coin/rate/list', undefined, { quiet: true }),
  kyc: () => get<KycStates>('user/real_name'),
  submitBasic: (form: { country: string; name: string; id_number: string; address: string; front_image: string; back_image: string; hand_image: string }) =>
    post<KycStates>('user/real_name', form),
  submitAdvanced: (form: { id_type: string; id_number: string; front_image: string; back_image?: string; hand_image: string }) =>
    post<KycStates>('user/real_name2', form),
};
