import { Module } from '@nestjs/common';
import { EngineBus } from './engine-bus';
import { EngineHost } from './engine-host.service';
import { MarketRegistry } from './market-registry.service';
import { OutboxRelay } from './outbox-relay.service';
import { TradeAccountCommands } from './trade-account-commands';

@Module({
  providers: [MarketRegistry, EngineBus, EngineHost, TradeAccountCommands, OutboxRelay],
  exports: [MarketRegistry, EngineBus, EngineHost, TradeAccountCommands, OutboxRelay],
})
export class EngineModule {}
