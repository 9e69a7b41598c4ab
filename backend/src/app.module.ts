import { DynamicModule, Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuthModule } from './infra/auth/auth.module';
import { APP_CONFIG, AppConfig } from './infra/config/config';
import { dataSourceOptions } from './infra/database/data-source';
import { QueuesModule } from './infra/queue/queues.service';
import { RedisModule } from './infra/redis/redis.module';
import { CoinTradeModule } from './modules/coin-trade/coin-trade.module';
import { MarketModule } from './modules/market/market.module';
import { SimulatorModule } from './modules/simulator/simulator.module';
import { RealtimeModule } from './modules/realtime/realtime.module';
import { AdminModule } from './modules/admin/admin.module';
import { HealthController } from './modules/health/health.controller';
import { CoinRateModule } from './modules/coin-rate/coin-rate.module';
import { FlashExchangeModule } from './modules/fpjy/fpjy.module';
import { WalletModule } from './modules/wallet/wallet.module';
import { MicrotradeModule } from './modules/microtrade/microtrade.module';
import { NewcoinModule } from './modules/newcoin/newcoin.module';
import { NftModule } from './modules/nft/nft.module';
import { LeverModule } from './modules/lever/lever.module';
import { FinanceModule } from './modules/finance/finance.module';
import { LoanModule } from './modules/loan/loan.module';
import { NoticeModule } from './modules/notice/notice.module';
import { NewsModule } from './modules/news/news.module';
import { MarketFavoritesModule } from './modules/market-favorites/market-favorites.module';
import { LedgerModule } from './modules/ledger/ledger.module';
import { ReferenceModule } from './modules/reference/reference.module';
import { SettingsModule } from './modules/settings/settings.module';
import { SmsModule } from './modules/sms/sms.module';
import { UserModule } from './modules/user/user.module';
import { RealNameModule } from './modules/real-name/real-name.module';
import { UploadModule } from './modules/upload/upload.module';
import { HelpModule } from './modules/help/help.module';
import { EngineModule } from './modules/engine/engine.module';
import { PromotionModule } from './modules/promotion/promotion.module';
import { ProofModule } from './modules/proof/proof.module';

@Global()
@Module({})
class ConfigModule {
  static forRoot(config: AppConfig): DynamicModule {
    return { module: ConfigModule, providers: [{ provide: APP_CONFIG, useValue: config }], exports: [APP_CONFIG] };
  }
}

@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        TypeOrmModule.forRoot({ ...dataSourceOptions(config.databaseUrl), logging: false }),
        RedisModule,
        QueuesModule,
        AuthModule,
        LedgerModule,
        NoticeModule,
        CoinRateModule,
        WalletModule,
        FlashExchangeModule,
        MicrotradeModule,
        NewcoinModule,
        NftModule,
        NewsModule,
        LeverModule,
        FinanceModule,
        LoanModule,
        PromotionModule,
        HelpModule,
        UserModule,
        SmsModule,
        SettingsModule,
        ReferenceModule,
        AdminModule,
        CoinTradeModule,
        MarketModule,
        MarketFavoritesModule,
        SimulatorModule,
        RealtimeModule,
        UploadModule,
        RealNameModule,
        EngineModule,
        ProofModule,
      ],
      controllers: [HealthController],
    };
  }
}
