import type { ComponentType, LazyExoticComponent } from 'react';
import { lazyPage } from './lazy-page';
import { PATHS, type RouteKey } from './paths';

type Screen = LazyExoticComponent<ComponentType<{ titleKey: string }>>;

// One chunk per screen this issue owns; every later-issue route shares the "not available yet" chunk.
const Home = lazyPage(() => import('../pages/index/index/home.page').then((m) => m.HomePage));
const Login = lazyPage(() => import('../pages/user/login/login/login.page').then((m) => m.LoginPage));
const Register = lazyPage(() => import('../pages/user/login/register/register.page').then((m) => m.RegisterPage));
const Choose = lazyPage(() => import('../pages/user/login/choose/choose.page').then((m) => m.ChoosePage));
const ForgetPassword = lazyPage(() => import('../pages/user/login/forgetPassword/forget-password.page').then((m) => m.ForgetPasswordPage));
const Settings = lazyPage(() => import('../pages/settings/index/settings.page').then((m) => m.SettingsPage));
const Language = lazyPage(() => import('../pages/settings/language/language/language.page').then((m) => m.LanguagePage));
const Account = lazyPage(() => import('../pages/settings/account/index/account.page').then((m) => m.AccountPage));
const Security = lazyPage(() => import('../pages/settings/security/index/security.page').then((m) => m.SecurityPage));
const ChangePassword = lazyPage(() => import('../pages/settings/security/changePassword/change-password.page').then((m) => m.ChangePasswordPage));
const ChangePayPassword = lazyPage(() => import('../pages/settings/security/changePayPassword/change-pay-password.page').then((m) => m.ChangePayPasswordPage));
const Trade = lazyPage(() => import('../pages/trade/index/trade.page').then((m) => m.TradePage));
const Market = lazyPage(() => import('../pages/market/index/market.page').then((m) => m.MarketPage));
const Kline = lazyPage(() => import('../pages/trade/kline/kline.page').then((m) => m.KlinePage));
const Assets = lazyPage(() => import('../pages/assets/index/assets.page').then((m) => m.AssetsPage));
const TradeAccount = lazyPage(() => import('../pages/assets/tradeAccount/trade-account.page').then((m) => m.TradeAccountPage));
const AssetsRecord = lazyPage(() => import('../pages/assets/record/record.page').then((m) => m.RecordPage));
const Transfer = lazyPage(() => import('../pages/assets/transfer/index/transfer.page').then((m) => m.TransferPage));
const TransferRecord = lazyPage(() => import('../pages/assets/transfer/record/transfer-record.page').then((m) => m.TransferRecordPage));
const Deposit = lazyPage(() => import('../pages/assets/deposit/index/deposit.page').then((m) => m.DepositPage));
const DepositCharge = lazyPage(() => import('../pages/assets/deposit/charge/charge.page').then((m) => m.ChargePage));
const DepositRedirect = lazyPage(() => import('../pages/assets/deposit/redirect/redirect.page').then((m) => m.RedirectPage));
const Withdraw = lazyPage(() => import('../pages/assets/withdraw/index/withdraw.page').then((m) => m.WithdrawPage));
const WithdrawDetail = lazyPage(() => import('../pages/assets/withdraw/detail/withdraw-detail.page').then((m) => m.WithdrawDetailPage));
const Address = lazyPage(() => import('../pages/user/address/address/address.page').then((m) => m.AddressPage));
const AddressIndex = lazyPage(() => import('../pages/user/address/address/address.page').then((m) => m.AddressIndexPage));
const AddressCreate = lazyPage(() => import('../pages/user/address/create/create.page').then((m) => m.AddressCreatePage));
const Fpjy = lazyPage(() => import('../pages/fpjy/fpjy/fpjy.page').then((m) => m.FpjyPage));
const Rate = lazyPage(() => import('../pages/rate/index/rate.page').then((m) => m.RatePage));
const Verification = lazyPage(() => import('../pages/verification/index/verification.page').then((m) => m.VerificationPage));
const VerificationBasic = lazyPage(() => import('../pages/verification/basic/basic.page').then((m) => m.VerificationFormPage));
const VerificationAdvanced = lazyPage(() => import('../pages/verification/basic/basic.page').then((m) => m.VerificationAdvancedPage));
const Lever = lazyPage(() => import('../pages/lever/index/lever.page').then((m) => m.LeverPage));
const LeverHistory = lazyPage(() => import('../pages/lever/index3/lever-history.page').then((m) => m.LeverHistoryPage));
const OptionDetail = lazyPage(() => import('../pages/option/detail/option.page').then((m) => m.OptionPage));
const OptionPending = lazyPage(() => import('../pages/option/details/option-orders.page').then((m) => m.OptionPendingPage));
const OptionHistory = lazyPage(() => import('../pages/option/details/option-orders.page').then((m) => m.OptionHistoryPage));
const Template = lazyPage(() => import('../pages/template/index/template.page').then((m) => m.TemplatePage));
const Finance = lazyPage(() => import('../pages/finance/index/finance.page').then((m) => m.FinancePage));
const FinanceLc = lazyPage(() => import('../pages/finance/index_lc/flexible.page').then((m) => m.FlexiblePage));
const FinanceBuy = lazyPage(() => import('../pages/finance/buyPage/buy.page').then((m) => m.BuyPage));
const FinanceOrders = lazyPage(() => import('../pages/finance/ordersPage/orders.page').then((m) => m.OrdersPage));
const FinanceRule = lazyPage(() => import('../pages/finance/rulePage/rule.page').then((m) => m.RulePage));
const FinanceRuleLc = lazyPage(() => import('../pages/finance/rulePage/rule.page').then((m) => m.RuleLcPage));
const Ieo = lazyPage(() => import('../pages/template/ieo/ieo.page').then((m) => m.IeoPage));
const IeoBuy = lazyPage(() => import('../pages/template/ieoBuy/ieoBuy/ieo-buy.page').then((m) => m.IeoBuyPage));
const IeoDetails = lazyPage(() => import('../pages/template/ieoBuy/ieoDetails/ieoDetails/ieo-details.page').then((m) => m.IeoDetailsPage));
const Loan = lazyPage(() => import('../pages/loan/index/loan.page').then((m) => m.LoanPage));
const LoanOrders = lazyPage(() => import('../pages/loan/order/loan-orders.page').then((m) => m.LoanOrdersPage));
const LoanBack = lazyPage(() => import('../pages/loan/back/loan-back.page').then((m) => m.LoanBackPage));
const LoanBackRec = lazyPage(() => import('../pages/loan/back_rec/loan-back-rec.page').then((m) => m.LoanBackRecPage));
const Nft = lazyPage(() => import('../pages/nft/index/nft.page').then((m) => m.NftPage));
const NftDetail = lazyPage(() => import('../pages/nft/detail/nft-detail.page').then((m) => m.NftDetailPage));
const NftOrders = lazyPage(() => import('../pages/nft/order/nft-orders.page').then((m) => m.NftOrdersPage));
const Promotion = lazyPage(() => import('../pages/promotion/index/promotion.page').then((m) => m.PromotionPage));
const HelpCenter = lazyPage(() => import('../pages/help/center/center.page').then((m) => m.HelpCenterPage));
const HelpChat = lazyPage(() => import('../pages/help/center/chat.page').then((m) => m.HelpChatPage));
const HelpDetail = lazyPage(() => import('../pages/help/center/detail.page').then((m) => m.HelpDetailPage));
const Notice = lazyPage(() => import('../pages/notice/index/notice.page').then((m) => m.NoticePage));
const ChooseLocation = lazyPage(() => import('../pages/choose-location/choose-location.page').then((m) => m.ChooseLocationPage));
const OpenLocation = lazyPage(() => import('../pages/open-location/open-location.page').then((m) => m.OpenLocationPage));
const Integrity = lazyPage(() => import('../pages/integrity/integrity.page').then((m) => m.IntegrityPage));
const Proof = lazyPage(() => import('../pages/integrity/proof.page').then((m) => m.ProofPage));
const NotAvailable = lazyPage(() => import('../components/not-available.page').then((m) => m.NotAvailablePage));

const owned: Partial<Record<RouteKey, Screen>> = {
  home: Home,
  homeAlias: Home,
  login: Login,
  register: Register,
  choose: Choose,
  forgetPassword: ForgetPassword,
  settings: Settings,
  language: Language,
  account: Account,
  security: Security,
  changePassword: ChangePassword,
  changePayPassword: ChangePayPassword,
  trade: Trade,
  kline: Kline,
  assets: Assets,
  tradeAccount: TradeAccount,
  assetsRecord: AssetsRecord,
  transfer: Transfer,
  transferRecord: TransferRecord,
  deposit: Deposit,
  depositCharge: DepositCharge,
  depositRedirect: DepositRedirect,
  withdraw: Withdraw,
  withdrawDetail: WithdrawDetail,
  address: Address,
  addressIndex: AddressIndex,
  addressCreate: AddressCreate,
  fpjy: Fpjy,
  rate: Rate,
  verification: Verification,
  verificationBasic: VerificationBasic,
  verificationAdvanced: VerificationAdvanced,
  // The Contract tab (lever/index) and, as in reading A, lever/index2 both open the contract screen.
  lever: Lever,
  lever2: Lever,
  lever3: LeverHistory,
  optionDetail: OptionDetail,
  optionDetails: OptionPending,
  optionDetails2: OptionHistory,
  ieo: Ieo,
  ieoBuy: IeoBuy,
  ieoDetails: IeoDetails,
  template: Template,
  finance: Finance,
  financeLc: FinanceLc,
  financeBuy: FinanceBuy,
  financeOrders: FinanceOrders,
  financeRule: FinanceRule,
  financeRuleLc: FinanceRuleLc,
  loan: Loan,
  loanOrder: LoanOrders,
  loanBack: LoanBack,
  loanBackRec: LoanBackRec,
  nft: Nft,
  nftDetail: NftDetail,
  nftOrder: NftOrders,
  promotion: Promotion,
  helpCenter: HelpCenter,
  helpCenterAlt: HelpCenter,
  helpChat: HelpChat,
  helpChatAlt: HelpChat,
  helpDetail: HelpDetail,
  helpDetailAlt: HelpDetail,
  notice: Notice,
  chooseLocation: ChooseLocation,
  openLocation: OpenLocation,
  market: Market,
  integrity: Integrity,
  proof: Proof,
};

// Aliases share their original's title.
const titleOf: Partial<Record<RouteKey, string>> = { homeAlias: 'home', helpCenterAlt: 'helpCenter', helpChatAlt: 'helpChat', helpDetailAlt: 'helpDetail' };

export interface RouteDef {
  key: RouteKey;
  path: string;
  titleKey: string;
  Screen: Screen;
  available: boolean;
}

/** Every path of spec §2, each with its screen. */
export const ROUTES: RouteDef[] = (Object.keys(PATHS) as RouteKey[]).map((key) => ({
  key,
  path: PATHS[key],
  titleKey: `titles.${titleOf[key] ?? key}`,
  Screen: owned[key] ?? NotAvailable,
  available: key in owned,
}));
