/**
 * The operator actions (issue "Verifiable honesty", item 4): every write an operator can make, the
 * event types it records in the append-only event store (with `metadata.actor = "admin:<id>"` and
 * `metadata.reason`), whether a reason is required, and whether it can move a balance (a ledger
 * posting, itself a `LedgerPosted` event with the operator and reason; or, in a trade account, a
 * command journaled by the sequencer, which carries them too, after the decision's own event).
 *
 * Public and without personal data: the app's integrity page shows it and docs/integrity.md lists
 * it. Kept in sync with the code by backend/test/integrity-events.spec.ts: the routes must be
 * exactly the operator write routes the server registers, and every event type an operator
 * appends must be listed here.
 */
export type OperatorArea = 'funding' | 'treasury' | 'coins' | 'rates' | 'options' | 'wealth' | 'loans' | 'nft' | 'ieo' | 'news' | 'help' | 'promotion' | 'identity' | 'proof';

/** required: refused without one; optional: the operator may give one (approvals of a user's own request); none: the action takes no reason. */
export type ReasonRule = 'required' | 'optional' | 'none';

export interface OperatorAction {
  /** `METHOD /api/path` as registered. */
  route: string;
  area: OperatorArea;
  /** Event types recorded (besides `LedgerPosted` when `balances`); empty: the action records its own row only (uploads, chat replies). */
  events: readonly string[];
  reason: ReasonRule;
  /** True when the action posts to the ledger (moves a balance); the posting carries the operator and reason. */
  balances: boolean;
}

export const OPERATOR_AREAS: readonly OperatorArea[] = ['funding', 'treasury', 'coins', 'rates', 'options', 'wealth', 'loans', 'nft', 'ieo', 'news', 'help', 'promotion', 'identity', 'proof'];

export const OPERATOR_ACTIONS: readonly OperatorAction[] = [
  { route: 'POST /api/admin/deposits/:id/approve', area: 'funding', events: ['DepositApproved'], reason: 'optional', balances: true },
  { route: 'POST /api/admin/deposits/:id/reject', area: 'funding', events: ['DepositRejected'], reason: 'required', balances: false },
  { route: 'POST /api/admin/withdrawals/:id/approve', area: 'funding', events: ['WithdrawalApproved'], reason: 'optional', balances: true },
  { route: 'POST /api/admin/withdrawals/:id/reject', area: 'funding', events: ['WithdrawalRejected'], reason: 'required', balances: true },
  { route: 'POST /api/admin/treasury/fund', area: 'treasury', events: ['LedgerPosted'], reason: 'required', balances: true },
  { route: 'POST /api/admin/coins/:id', area: 'coins', events: ['CoinFundingRulesSet'], reason: 'required', balances: false },
  { route: 'POST /api/admin/chains/:id', area: 'coins', events: ['ChainConfigured'], reason: 'required', balances: false },
  { route: 'POST /api/admin/fiat-rates', area: 'rates', events: ['FiatRateSet'], reason: 'required', balances: false },
  { route: 'POST /api/admin/option-periods', area: 'options', events: ['OptionPeriodSet'], reason: 'required', balances: false },
  { route: 'POST /api/admin/wealth/products', area: 'wealth', events: ['WealthProductCreated'], reason: 'required', balances: false },
  { route: 'POST /api/admin/wealth/products/:id', area: 'wealth', events: ['WealthProductEdited'], reason: 'required', balances: false },
  { route: 'POST /api/admin/wealth/products/:id/open', area: 'wealth', events: ['WealthProductOpened'], reason: 'required', balances: false },
  { route: 'POST /api/admin/wealth/products/:id/close', area: 'wealth', events: ['WealthProductClosed'], reason: 'required', balances: false },
  { route: 'POST /api/admin/loan/products', area: 'loans', events: ['LoanProductCreated'], reason: 'required', balances: false },
  { route: 'POST /api/admin/loan/products/:id', area: 'loans', events: ['LoanProductEdited'], reason: 'required', balances: false },
  { route: 'POST /api/admin/loan/pool/fund', area: 'loans', events: ['LedgerPosted'], reason: 'required', balances: true },
  { route: 'POST /api/admin/loan/orders/:id/approve', area: 'loans', events: ['LoanApproved', 'LoanDisbursed', 'LedgerPosted'], reason: 'optional', balances: true },
  { route: 'POST /api/admin/loan/orders/:id/reject', area: 'loans', events: ['LoanRejected'], reason: 'required', balances: false },
  { route: 'POST /api/admin/loan/repayments/:id/approve', area: 'loans', events: ['LoanRepaymentDone', 'LoanRepaid', 'LedgerPosted'], reason: 'optional', balances: true },
  { route: 'POST /api/admin/loan/repayments/:id/reject', area: 'loans', events: ['LoanRepaymentRejected'], reason: 'required', balances: false },
  { route: 'POST /api/admin/nft/images', area: 'nft', events: [], reason: 'none', balances: false },
  { route: 'POST /api/admin/nft/collections', area: 'nft', events: ['NftCollectionCreated'], reason: 'required', balances: false },
  { route: 'POST /api/admin/nft/collections/:id/items', area: 'nft', events: ['NftMinted', 'NftListed'], reason: 'required', balances: false },
  { route: 'POST /api/admin/nft/items/:id/price', area: 'nft', events: ['NftListed'], reason: 'required', balances: false },
  { route: 'POST /api/admin/nft/items/:id/withdraw', area: 'nft', events: ['NftListingWithdrawn'], reason: 'required', balances: false },
  { route: 'POST /api/admin/ieo', area: 'ieo', events: ['IeoProjectCreated', 'LedgerPosted'], reason: 'required', balances: true },
  { route: 'POST /api/admin/ieo/:id', area: 'ieo', events: ['IeoProjectEdited', 'LedgerPosted'], reason: 'required', balances: true },
  { route: 'POST /api/admin/ieo/:id/market', area: 'ieo', events: ['IeoMarketListed'], reason: 'required', balances: false },
  { route: 'POST /api/admin/news/images', area: 'news', events: [], reason: 'none', balances: false },
  { route: 'POST /api/admin/news/categories', area: 'news', events: ['NewsCategoryCreated'], reason: 'required', balances: false },
  { route: 'POST /api/admin/news/categories/:id', area: 'news', events: ['NewsCategoryUpdated'], reason: 'required', balances: false },
  { route: 'POST /api/admin/news/articles', area: 'news', events: ['NewsArticleCreated'], reason: 'required', balances: false },
  { route: 'POST /api/admin/news/articles/:id', area: 'news', events: ['NewsArticleUpdated'], reason: 'required', balances: false },
  { route: 'POST /api/admin/news/articles/:id/translations', area: 'news', events: ['NewsTranslationSet'], reason: 'required', balances: false },
  { route: 'POST /api/admin/news/articles/:id/delete', area: 'news', events: ['NewsArticleDeleted'], reason: 'required', balances: false },
  { route: 'POST /api/admin/news/banners', area: 'news', events: ['NewsBannerCreated'], reason: 'required', balances: false },
  { route: 'POST /api/admin/news/banners/:id', area: 'news', events: ['NewsBannerUpdated'], reason: 'required', balances: false },
  { route: 'POST /api/admin/news/banners/:id/delete', area: 'news', events: ['NewsBannerDeleted'], reason: 'required', balances: false },
  { route: 'POST /api/admin/help/conversations/:id/reply', area: 'help', events: [], reason: 'none', balances: false },
  { route: 'POST /api/admin/help/conversations/:id/close', area: 'help', events: ['ChatConversationClosed'], reason: 'none', balances: false },
  { route: 'POST /api/admin/help/feedback/:id/reply', area: 'help', events: ['FeedbackReplied'], reason: 'none', balances: false },
  { route: 'POST /api/admin/help/customer_url', area: 'help', events: ['CustomerUrlChanged'], reason: 'required', balances: false },
  { route: 'POST /api/admin/promotion/partners/:userId', area: 'promotion', events: ['PartnerStatusChanged'], reason: 'required', balances: false },
  { route: 'POST /api/admin/promotion/settings', area: 'promotion', events: ['PromotionSettingsChanged'], reason: 'required', balances: false },
  { route: 'POST /api/admin/real_name/:id/approve', area: 'identity', events: ['IdentityVerificationApproved'], reason: 'optional', balances: false },
  { route: 'POST /api/admin/real_name/:id/reject', area: 'identity', events: ['IdentityVerificationRejected'], reason: 'required', balances: false },
  { route: 'POST /api/admin/proof/build', area: 'proof', events: ['ProofRootPublished'], reason: 'optional', balances: false },
];
