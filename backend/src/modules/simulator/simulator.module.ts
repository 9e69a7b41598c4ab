import { Module } from '@nestjs/common';
import { CoinTradeModule } from '../coin-trade/coin-trade.module';
import { EngineModule } from '../engine/engine.module';
import { LedgerModule } from '../ledger/ledger.module';
import { SimulatorService } from './simulator.service';

@Module({ imports: [EngineModule, CoinTradeModule, LedgerModule], providers: [SimulatorService], exports: [SimulatorService] })
export class SimulatorModule {}
