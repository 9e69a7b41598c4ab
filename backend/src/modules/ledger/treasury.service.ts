import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Coin } from '../reference/coin.entity';
import { fundHouseAccount, HouseFundingDto } from './house-funding';
import { SYSTEM_OWNER_ID } from './ledger-codes';
import { LedgerService } from './ledger.service';

/**
 * The house's float (`treasury`): what option payouts are frozen from and contract profits and
 * wealth interest are paid from. Operators see it per currency and fund it from outside, recorded,
 * when it runs low (a contract profit it cannot pay is refused with 2417 until then).
 */
@Injectable()
export class TreasuryService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly ledger: LedgerService,
  ) {}

  async overview() {
    const rows = (await this.ledger.balancesOf('system', SYSTEM_OWNER_ID)).filter((b) => b.accountType === 'treasury');
    const coins = new Map((await this.dataSource.getRepository(Coin).find()).map((c) => [c.id, c.symbol]));
    return rows.map((r) => ({ currency_id: r.currencyId, symbol: coins.get(r.currencyId) ?? '', available: r.available, frozen: r.frozen }));
  }

  async fund(adminId: number, dto: HouseFundingDto) {
    return { ...(await fundHouseAccount(this.dataSource, this.ledger, adminId, 'treasury', 'house float funding', dto)), treasury: await this.overview() };
  }
}
