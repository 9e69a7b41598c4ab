/**
 * Every route of the spec's §2 table, exactly as written (hash paths). The route table in
 * `routes.tsx` maps each to a screen; this file has no imports so the API client can use it.
 */
export const PATHS = {
  home: '/',
  homeAlias: '/pages/index/index',
  trade: '/pages/trade/index',
  kline: '/pages/trade/kline',
  lever: '/pages/lever/index',
  lever2: '/pages/lever/index2',
  lever3: '/pages/lever/index3',
  optionDetail: '/pages/option/detail',
  optionDetails: '/pages/option/details',
  optionDetails2: '/pages/option/details2',
  login: '/pages/user/login/login',
  register: '/pages/user/login/register',
  choose: '/pages/user/login/choose',
  forgetPassword: '/pages/user/login/forgetPassword',
  settings: '/pages/settings/index',
  language: '/pages/settings/language/language',
  account: '/pages/settings/account/index',
  security: '/pages/settings/security/index',
  changePassword: '/pages/settings/security/changePassword',
  changePayPassword: '/pages/settings/security/changePayPassword',
  notice: '/pages/notice/index',
  template: '/pages/template/index',
  ieo: '/pages/template/ieo',
  ieoBuy: '/pages/template/ieoBuy/ieoBuy',
  ieoDetails: '/pages/template/ieoBuy/ieoDetails/ieoDetails',
  verification: '/pages/verification/index',
  verificationBasic: '/pages/verification/basic',
  verificationAdvanced: '/pages/verification/advanced',
  assets: '/pages/assets/index',
  tradeAccount: '/pages/assets/tradeAccount',
  assetsRecord: '/pages/assets/record',
  transfer: '/pages/assets/transfer/index',
  transferRecord: '/pages/assets/transfer/record',
  deposit: '/pages/assets/deposit/index',
  depositCharge: '/pages/assets/deposit/charge',
  depositRedirect: '/pages/assets/deposit/redirect',
  withdraw: '/pages/assets/withdraw/index',
  withdrawDetail: '/pages/assets/withdraw/detail',
  address: '/pages/user/address/address',
  addressCreate: '/pages/user/address/create',
  addressIndex: '/pages/user/address/index',
  finance: '/pages/finance/index',
  financeLc: '/pages/finance/index_lc',
  financeBuy: '/pages/finance/buyPage',
  financeOrders: '/pages/finance/ordersPage',
  financeRule: '/pages/finance/rulePage',
  financeRuleLc: '/pages/finance/rulePage_lc',
  promotion: '/pages/promotion/index',
  helpCenter: '/pages/help/center/center',
  helpChat: '/pages/help/center/chat',
  helpDetail: '/pages/help/center/detail',
  helpCenterAlt: '/pages/help-center/center',
  helpChatAlt: '/pages/help-center/chat',
  helpDetailAlt: '/pages/help-center/detail',
  fpjy: '/pages/fpjy/fpjy',
  nft: '/pages/nft/index',
  nftOrder: '/pages/nft/order',
  nftDetail: '/pages/nft/detail',
  loan: '/pages/loan/index',
  loanOrder: '/pages/loan/order',
  loanBack: '/pages/loan/back',
  loanBackRec: '/pages/loan/back_rec',
  rate: '/pages/rate/index',
  chooseLocation: '/choose-location',
  openLocation: '/open-location',
  /** An addition beyond the spec's §2 routes (issue: trader experience): the Markets tab, docs/architecture.md. */
  market: '/pages/market/index',
  /** Additions beyond the spec's §2 routes (issue: verifiable honesty), docs/architecture.md: the integrity page and the proof of liabilities. */
  integrity: '/integrity',
  proof: '/proof',
} as const;

export type RouteKey = keyof typeof PATHS;

/**
 * Tab bar (docs/architecture.md, "Tab bar"): one screen per tab — home, the Markets list, spot
 * trading, the contract screen, assets. `lever/index2` still opens the contract screen (reading A).
 */
export const TABS = [
  { key: 'home', path: PATHS.home, icon: 'home' },
  { key: 'market', path: PATHS.market, icon: 'market' },
  { key: 'trade', path: PATHS.trade, icon: 'trade' },
  { key: 'contract', path: PATHS.lever, icon: 'contract' },
  { key: 'assets', path: PATHS.assets, icon: 'assets' },
] as const;

const TAB_PATHS = new Set<string>([...TABS.map((t) => t.path), PATHS.homeAlias]);

/** Spec §6: these prompt a visitor to log in. */
export const GUARDED = new Set<string>([PATHS.home, PATHS.homeAlias, PATHS.trade, PATHS.optionDetail, PATHS.optionDetails, PATHS.template, PATHS.assets]);

/** Spec §2: pull-down refresh on these screens. */
export const PULL_REFRESH = new Set<string>([PATHS.optionDetails2, PATHS.notice, PATHS.tradeAccount]);

/** Pages of the login flow: a not-logged-in answer there does not send the user to login again. */
export const AUTH_PAGES = new Set<string>([PATHS.login, PATHS.register, PATHS.choose, PATHS.forgetPassword]);

export function pathOnly(pathWithSearch: string): string {
  const i = pathWithSearch.indexOf('?');
  return i < 0 ? pathWithSearch : pathWithSearch.slice(0, i);
}

export function isTabPath(path: string): boolean {
  return TAB_PATHS.has(pathOnly(path));
}

/** The login page for a visitor coming from `from` (path + query): backpage encoded, backtype 2 for tab pages. */
export function loginPath(from?: string): string {
  if (!from || AUTH_PAGES.has(pathOnly(from))) return PATHS.login;
  return `${PATHS.login}?backpage=${encodeURIComponent(from)}&backtype=${isTabPath(from) ? 2 : 1}`;
}
