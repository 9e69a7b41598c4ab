import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { sharedIn } from '../../infra/database/sql';
import { EventStoreService } from '../../infra/event-store/event-store.service';
import { BusinessError } from '../../infra/http/business-error';
import { ErrorCode } from '../../infra/http/error-codes';
import { money, moneyString } from '../../infra/money';
import { ChainType } from '../reference/chain-type.entity';
import { Coin } from '../reference/coin.entity';
import { isValidAddress } from './address-format';
import type { ChainConfigDto, CoinConfigDto } from './dto/funding.dto';

/** Per-coin funding rules (minimums, fee) and chains with their deposit addresses, set by operators. */
@Injectable()
export class FundingConfigService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly events: EventStoreService,
  ) {}

  async coinMap(): Promise<Map<number, Coin>> {
    const coins = await this.dataSource.getRepository(Coin).find({ order: { sort: 'ASC', id: 'ASC' } });
    return new Map(coins.map((c) => [c.id, c]));
  }

  /**
   * An enabled coin (what a new deposit or withdrawal may be in); `anyState`: also a disabled one.
   * `held`: read in `m`'s transaction with its row held (FOR SHARE) until it ends, so an operator's
   * change to it (setCoin, FOR UPDATE) waits for it or is what it reads.
   */
  async coin(currencyId: number, anyState = false, held?: EntityManager): Promise<Coin> {
    const c = await (held ?? this.dataSource.manager)
      .getRepository(Coin)
      .findOne({ where: anyState ? { id: currencyId } : { id: currencyId, enabled: true }, ...sharedIn(held) });
    if (!c) throw new BusinessError(ErrorCode.VALIDATION, 'error.currency_invalid');
    return c;
  }

  async chains(currencyId?: number, held?: EntityManager): Promise<ChainType[]> {
    return (held ?? this.dataSource.manager).getRepository(ChainType).find({
      where: { enabled: true, ...(currencyId ? { currencyId } : {}) },
      order: { currencyId: 'ASC', id: 'ASC' },
      ...sharedIn(held),
    });
  }

  /** An enabled chain of an enabled coin (chain names are case-insensitive); `held` as for `coin`. */
  async chain(currencyId: number, chainName: string, held?: EntityManager): Promise<{ coin: Coin; chain: ChainType }> {
    const coin = await this.coin(currencyId, false, held);
    const chain = (await this.chains(currencyId, held)).find((c) => c.chain.toUpperCase() === chainName.toUpperCase());
    if (!chain) throw new BusinessError(ErrorCode.VALIDATION, 'error.chain_invalid');
    return { coin, chain };
  }

  /** Every coin with its rules and chains (operators see disabled ones and addresses too). */
  async overview() {
    const [coins, chains] = await Promise.all([this.coinMap(), this.dataSource.getRepository(ChainType).find({ order: { id: 'ASC' } })]);
    return [...coins.values()].map((c) => ({
      currency_id: c.id,
      symbol: c.symbol,
      enabled: c.enabled,
      min_deposit: moneyString(c.minDeposit),
      min_withdraw: moneyString(c.minWithdraw),
      withdraw_fee: moneyString(c.withdrawFee),
      chains: chains.filter((x) => x.currencyId === c.id).map((x) => ({ id: x.id, chain: x.chain, deposit_address: x.depositAddress, enabled: x.enabled })),
    }));
  }

  async setCoin(adminId: number, currencyId: number, dto: CoinConfigDto) {
    await this.dataSource.transaction(async (m) => {
      const repo = m.getRepository(Coin);
      const coin = await repo.findOne({ where: { id: currencyId }, lock: { mode: 'pessimistic_write' } });
      if (!coin) throw new BusinessError(ErrorCode.VALIDATION, 'error.currency_invalid');
      const before = { min_deposit: coin.minDeposit, min_withdraw: coin.minWithdraw, withdraw_fee: coin.withdrawFee };
      // No more decimals than the coin has: a fee past them would make what arrives (amount − fee) an
      // amount the network cannot send, as a withdrawal's own amount may not be (withdrawal.service).
      for (const field of ['min_deposit', 'min_withdraw', 'withdraw_fee'] as const) {
        const v = dto[field];
        if (v !== undefined && money(v).decimalPlaces() > coin.displayDecimals)
          throw new BusinessError(ErrorCode.VALIDATION, 'error.amount_invalid', { field, decimals: coin.displayDecimals });
      }
      if (dto.min_deposit !== undefined) coin.minDeposit = dto.min_deposit;
      if (dto.min_withdraw !== undefined) coin.minWithdraw = dto.min_withdraw;
      if (dto.withdraw_fee !== undefined) coin.withdrawFee = dto.withdraw_fee;
      await repo.save(coin);
      await this.events.append(m, { streamId: `coin:${currencyId}`, metadata: { actor: `admin:${adminId}`, reason: dto.reason } }, [
        {
          type: 'CoinFundingRulesSet',
          payload: { before, after: { min_deposit: coin.minDeposit, min_withdraw: coin.minWithdraw, withdraw_fee: coin.withdrawFee } },
        },
      ]);
    });
    return (await this.overview()).find((c) => c.currency_id === currencyId);
  }

  async setChain(adminId: number, chainId: number, dto: ChainConfigDto) {
    await this.dataSource.transaction(async (m) => {
      const repo = m.getRepository(ChainType);
      const chain = await repo.findOne({ where: { id: chainId }, lock: { mode: 'pessimistic_write' } });
      if (!chain) throw new BusinessError(ErrorCode.VALIDATION, 'error.chain_invalid');
      const before = { deposit_address: chain.depositAddress, enabled: chain.enabled };
      if (dto.deposit_address !== undefined) {
        const address = dto.deposit_address.trim();
        if (address && !isValidAddress(chain.chain, address)) throw new BusinessError(ErrorCode.ADDRESS_INVALID, undefined, { chain: chain.chain });
        chain.depositAddress = address;
      }
      if (dto.enabled !== undefined) chain.enabled = dto.enabled === 'true' || dto.enabled === '1';
      await repo.save(chain);
      await this.events.append(m, { streamId: `chain:${chainId}`, metadata: { actor: `admin:${adminId}`, reason: dto.reason } }, [
        { type: 'ChainConfigured', payload: { before, after: { deposit_address: chain.depositAddress, enabled: chain.enabled } } },
      ]);
    });
    return (await this.overview()).flatMap((c) => c.chains).find((c) => c.id === chainId);
  }
}
