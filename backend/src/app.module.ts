import { DynamicModule, Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { LoggerModule, Params } from 'nestjs-pino';
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

type PinoHttpOptions = Exclude<NonNullable<Params['pinoHttp']>, unknown[] | { write: unknown }>;

/** pino-http's options, with the destination when the configuration names one (else stdout). */
function withStream(stream: AppConfig['logStream'], options: PinoHttpOptions): PinoHttpOptions | [PinoHttpOptions, { write(line: string): void }] {
  return stream ? [options, stream] : options;
}

@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        LoggerModule.forRoot({
          pinoHttp: withStream(config.logStream, {
            level: config.logLevel,
            // One id per request, taken from the caller when it sends one, echoed back in x-request-id.
            genReqId: (req, res) => {
              const given = req.headers['x-request-id'];
              const id = typeof given === 'string' && /^[\w-]{1,64}$/.test(given) ? given : randomUUID();
              res.setHeader('x-request-id', id);
              return id;
            },
            // Tokens never reach the logs (request bodies, with passwords and codes, are not logged at all).
            redact: { paths: ['req.headers.authorization', 'req.headers.cookie', 'req.headers["x-api-key"]', 'res.headers["set-cookie"]'], censor: '[Redacted]' },
            autoLogging: { ignore: (req) => req.url === '/api/health' },
          }),
        }),
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
