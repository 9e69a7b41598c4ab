import { Order } from '../../modules/coin-trade/order.entity';
import { Trade } from '../../modules/coin-trade/trade.entity';
import { EngineLeaseRow, SequencerCommandRow, SequencerJournalRow, SequencerOutboxRow, SequencerProjectionRow, SequencerSnapshotRow } from '../../modules/engine/entities/sequencer-tables.entity';
import { Kline } from '../../modules/market/kline.entity';
import { MarkPrice } from '../../modules/market/mark-price.entity';
import { Admin } from '../../modules/admin/admin.entity';
import { Balance } from '../../modules/ledger/balance.entity';
import { LedgerEntry } from '../../modules/ledger/ledger-entry.entity';
import { AreaCode } from '../../modules/reference/area-code.entity';
import { ChainType } from '../../modules/reference/chain-type.entity';
import { Coin } from '../../modules/reference/coin.entity';
import { Market } from '../../modules/reference/market.entity';
import { FiatRate } from '../../modules/coin-rate/fiat-rate.entity';
import { Deposit } from '../../modules/wallet/deposit.entity';
import { WithdrawAddress } from '../../modules/wallet/withdraw-address.entity';
import { Withdrawal } from '../../modules/wallet/withdrawal.entity';
import { OptionOrder } from '../../modules/microtrade/option-order.entity';
import { OptionPeriod } from '../../modules/microtrade/option-period.entity';
import { IeoProject } from '../../modules/newcoin/ieo-project.entity';
import { IeoSubscription } from '../../modules/newcoin/ieo-subscription.entity';
import { NftCollection } from '../../modules/nft/nft-collection.entity';
import { NftItem } from '../../modules/nft/nft-item.entity';
import { NftListing } from '../../modules/nft/nft-listing.entity';
import { NftSale } from '../../modules/nft/nft-sale.entity';
import { LoanOrder } from '../../modules/loan/loan-order.entity';
import { LoanProduct } from '../../modules/loan/loan-product.entity';
import { LoanRepayment } from '../../modules/loan/loan-repayment.entity';
import { LeverConfig } from '../../modules/lever/lever-config.entity';
import { LeverCursor } from '../../modules/lever/lever-cursor.entity';
import { WealthOrder } from '../../modules/finance/wealth-order.entity';
import { WealthProduct } from '../../modules/finance/wealth-product.entity';
import { LeverPosition } from '../../modules/lever/lever-position.entity';
import { UserMessage } from '../../modules/notice/user-message.entity';
import { NewsArticle, NewsBanner, NewsCategory, NewsTranslation } from '../../modules/news/news.entities';
import { MarketFavorite } from '../../modules/market-favorites/market-favorite.entity';
import { IdentityVerification } from '../../modules/real-name/identity-verification.entity';
import { Upload } from '../../modules/upload/upload.entity';
import { Setting } from '../../modules/settings/setting.entity';
import { User } from '../../modules/user/user.entity';
import { VerificationCode } from '../../modules/verification-code/verification-code.entity';
import { AuthToken } from '../auth/auth-token.entity';
import { EventRecord } from '../event-store/event.entity';
import { OutboxMessage } from '../notifier/outbox-message.entity';
import { ChatConversation, ChatMessage, HelpFeedback } from '../../modules/help/help.entities';
import { PromotionCursor, PromotionCursorMark, PromotionPartner, PromotionRebate } from '../../modules/promotion/promotion.entities';
import { ProofLeaf, ProofRootRow, ProofSalt } from '../../modules/proof/proof.entities';

/** Every entity, for the data source and the drift check. */
export const ENTITIES = [
  EventRecord,
  Balance,
  LedgerEntry,
  User,
  Admin,
  AuthToken,
  VerificationCode,
  OutboxMessage,
  Coin,
  ChainType,
  Market,
  AreaCode,
  Setting,
  Order,
  Trade,
  SequencerJournalRow,
  SequencerSnapshotRow,
  SequencerProjectionRow,
  SequencerOutboxRow,
  SequencerCommandRow,
  EngineLeaseRow,
  Kline,
  MarkPrice,
  UserMessage,
  FiatRate,
  Deposit,
  Withdrawal,
  WithdrawAddress,
  Upload,
  IdentityVerification,
  OptionPeriod,
  OptionOrder,
  IeoProject,
  IeoSubscription,
  LeverConfig,
  LeverPosition,
  LeverCursor,
  WealthProduct,
  WealthOrder,
  LoanProduct,
  LoanOrder,
  LoanRepayment,
  PromotionPartner,
  PromotionRebate,
  PromotionCursor,
  PromotionCursorMark,
  HelpFeedback,
  ChatConversation,
  ChatMessage,
  NftCollection,
  NftItem,
  NftListing,
  NftSale,
  NewsCategory,
  NewsArticle,
  NewsTranslation,
  NewsBanner,
  MarketFavorite,
  ProofSalt,
  ProofRootRow,
  ProofLeaf,
];
