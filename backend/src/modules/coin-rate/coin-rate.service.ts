import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { alreadyExists } from '../../infra/database/sql';
import { EventStoreService } from '../../infra/event-store/event-store.service';
import { BusinessError } from '../../infra/http/business-error';
import { ErrorCode } from '../../infra/http/error-codes';
import { money } from '../../infra/money';
import { SetFiatRateDto } from './coin-rate.dto';
import { FiatRate } from './fiat-rate.entity';

export interface RateView {
  code: string;
  name: string;
  symbol: string;
  rate: string;
  updated_at: string;
}

/** Operator-configured pricing currencies (spec: coin/rate/list, coin/rate). */
@Injectable()
export class CoinRateService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly events: EventStoreService,
  ) {}

  async list(includeDisabled = false): Promise<Array<RateView & { enabled?: boolean }>> {
    const rows = await this.dataSource.getRepository(FiatRate).find({ where: includeDisabled ? {} : { enabled: true }, order: { sort: 'ASC', code: 'ASC' } });
    return rows.map((r) => ({ ...view(r), ...(includeDisabled ? { enabled: r.enabled } : {}) }));
  }

  async one(code: string): Promise<RateView> {
    const r = await this.dataSource.getRepository(FiatRate).findOne({ where: { code: code.toUpperCase(), enabled: true } });
    if (!r) throw new BusinessError(ErrorCode.PRICING_CURRENCY_UNKNOWN);
    return view(r);
  }

  /**
   * Upsert by an operator, recorded as an event with the operator and the reason. USD stays 1 and
   * enabled: the code takes it for 1 USDT (rates are per USD) and it is every user's default.
   */
  async set(adminId: number, dto: SetFiatRateDto): Promise<RateView> {
    if (money(dto.rate).lte(0)) throw new BusinessError(ErrorCode.VALIDATION, 'error.rate_invalid');
    if (dto.code === 'USD' && (!money(dto.rate).eq(1) || dto.enabled === 'false' || dto.enabled === '0'))
      throw new BusinessError(ErrorCode.VALIDATION, 'error.rate_usd_fixed');
    return this.dataSource.transaction(async (m) => {
      const repo = m.getRepository(FiatRate);
      const prior = await repo.findOne({ where: { code: dto.code } });
      if (!prior && (!dto.name || !dto.symbol)) throw new BusinessError(ErrorCode.VALIDATION, 'error.field_required', { field: 'name, symbol' });
      const next = repo.create({
        code: dto.code,
        name: dto.name ?? prior!.name,
        symbol: dto.symbol ?? prior!.symbol,
        rate: dto.rate,
        sort: dto.sort ?? prior?.sort ?? 0,
        enabled: dto.enabled === undefined ? (prior?.enabled ?? true) : dto.enabled === 'true' || dto.enabled === '1',
        updatedAt: new Date(),
      });
      // A concurrent create of the same code: the unique index decides, and the later one is told it exists.
      await repo.save(next).catch((err: unknown) => {
        throw alreadyExists(err);
      });
      await this.events.append(m, { streamId: `fiat-rate:${dto.code}`, metadata: { actor: `admin:${adminId}`, reason: dto.reason } }, [
        { type: 'FiatRateSet', payload: { code: next.code, rate: next.rate, previous: prior?.rate ?? null, enabled: next.enabled } },
      ]);
      return view(next);
    });
  }
}

function view(r: FiatRate): RateView {
  return { code: r.code, name: r.name, symbol: r.symbol, rate: money(r.rate).toString(), updated_at: new Date(r.updatedAt).toISOString() };
}
