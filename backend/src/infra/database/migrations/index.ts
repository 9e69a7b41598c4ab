import { Init1795298491223 } from './1795298491223-Init';
import { SpotTrading1795299029425 } from './1795299029425-SpotTrading';
import { Wallet1795307457092 } from './1795307457092-Wallet';
import { News1795560000000 } from './1795560000000-News';
import { UserMessages1795307167728 } from './1795307167728-UserMessages';
import { Identity1795307506789 } from './1795307506789-Identity';
import { Options1795308599675 } from './1795308599675-Options';
import { Lever1795310818726 } from './1795310818726-Lever';
import { SpotCoreV21795500881265 } from './1795500881265-SpotCoreV2';
import { Wealth1795510000000 } from './1795510000000-Wealth';
import { Ieo1795520000000 } from './1795520000000-Ieo';
import { Nft1795540000000 } from './1795540000000-Nft';
import { Loan1795535000000 } from './1795535000000-Loan';
import { PromotionHelp1795550000000 } from './1795550000000-PromotionHelp';
import { MarketFavorites1795570000000 } from './1795570000000-MarketFavorites';
import { EngineLease1795580000000 } from './1795580000000-EngineLease';
import { Proof1795595000000 } from './1795595000000-Proof';
import { LedgerAccountIndex1795600000000 } from './1795600000000-LedgerAccountIndex';
import { JournalLz41795610000000 } from './1795610000000-JournalLz4';
import { OrdersMarketIndex1795620000000 } from './1795620000000-OrdersMarketIndex';
import { LeverTpSlTick1795630000000 } from './1795630000000-LeverTpSlTick';
import { OptionReserve1795640000000 } from './1795640000000-OptionReserve';
import { MarkPriceSource1795650000000 } from './1795650000000-MarkPriceSource';
import { LeverPendingTrigger1795660000000 } from './1795660000000-LeverPendingTrigger';
import { OptionVoidBound1795670000000 } from './1795670000000-OptionVoidBound';
import { SequencerCommands1795680000000 } from './1795680000000-SequencerCommands';

/** In order. Generate new ones with `npm run migration:generate -w backend -- src/infra/database/migrations/Name`. */
export const MIGRATIONS = [Init1795298491223, SpotTrading1795299029425, UserMessages1795307167728, Wallet1795307457092, Identity1795307506789, Options1795308599675, Lever1795310818726, SpotCoreV21795500881265, Wealth1795510000000, Ieo1795520000000, Loan1795535000000, Nft1795540000000, PromotionHelp1795550000000, News1795560000000, MarketFavorites1795570000000, EngineLease1795580000000, Proof1795595000000, LedgerAccountIndex1795600000000, JournalLz41795610000000, OrdersMarketIndex1795620000000, LeverTpSlTick1795630000000, OptionReserve1795640000000, MarkPriceSource1795650000000, LeverPendingTrigger1795660000000, OptionVoidBound1795670000000, SequencerCommands1795680000000];
