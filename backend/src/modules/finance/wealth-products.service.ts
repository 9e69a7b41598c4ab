import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { isUniqueViolation } from '../../infra/database/sql';
import { EventStoreService } from '../../infra/event-store/event-store.service';
import { BusinessError } from '../../infra/http/business-error';
import { ErrorCode } from '../../infra/http/error-codes';
import { LocalizedTexts, textsOrFail } from '../../infra/i18n/localized-texts';
import { money, moneyString } from '../../infra/money';
import { USDT_ID } from '../coin-rate/pricing.service';
import type { ProductEditDto } from './finance.dto';
import { WealthProduct } from './wealth-product.entity';
import { listingStatus, ratesOf, RUSH_SHARE } from './wealth-terms';

/**
 * An order that leaves its product (redeemed or matured) gives its principal back to the product's
 * capacity: `sold` is what the product's orders hold now, so a product is sold out only while it
 * is held (a flexible fund bought and redeemed again and again stays open). In the order's
 * transaction, after its postings: the product row is the last lock a purchase takes too.
 */
export async function releaseCapacity(m: EntityManager, productId: number, amount: string): Promise<void> {
  await m.query('UPDATE wealth_products SET sold = sold - $2 WHERE id = $1', [productId, amount]);
}

/** The seeds' names in the app's other languages (English is each seed's `name`). */
const hosting = (days: number): LocalizedTexts => ({
  zh: `${days}天托管`,
  hk: `${days}天託管`,
  jp: `${days}日間の定期運用`,
  kr: `${days}일 정기 예치`,
  py: `Custódia de ${days} dias`,
  ty: `ฝากประจำ ${days} วัน`,
});

/** The spec's example yields (§9): 30 days 13.66 % total, 7 days 2.97 %, 15 days at 0.4 % a day; a flexible fund; a mining rental. */
const SEEDS: Array<Partial<WealthProduct> & { code: string; name: string; names: LocalizedTexts }> = [
  { code: 'hosting-7d', kind: 'fixed', name: '7-day hosting', names: hosting(7), days: 7, rate: '0.0297', rateMode: 'total', minAmount: '100', penaltyMode: 'ratio', penaltyRatio: '0.004', capacity: '1000000', sort: 1 },
  { code: 'hosting-15d', kind: 'fixed', name: '15-day hosting', names: hosting(15), days: 15, rate: '0.004', rateMode: 'daily', minAmount: '500', penaltyMode: 'ratio', penaltyRatio: '0.004', capacity: '1000000', sort: 2 },
  { code: 'hosting-30d', kind: 'fixed', name: '30-day hosting', names: hosting(30), days: 30, rate: '0.1366', rateMode: 'total', minAmount: '1000', penaltyMode: 'tip', penaltyMultiple: '1.5', capacity: '2000000', sort: 3 },
  {
    code: 'flexible',
    kind: 'flexible',
    name: 'Flexible fund',
    names: { zh: '活期宝', hk: '活期寶', jp: 'フレキシブルファンド', kr: '자유 적립 펀드', py: 'Fundo flexível', ty: 'กองทุนยืดหยุ่น' },
    days: 0,
    rate: '0.0042',
    rateMode: 'daily',
    minAmount: '100',
    accrualMin: '10000',
    penaltyMode: 'none',
    capacity: '5000000',
    sort: 0,
  },
  {
    code: 'mining-30d',
    kind: 'mining',
    name: 'Mining machine M30',
    names: { zh: '矿机 M30', hk: '礦機 M30', jp: 'マイニングマシン M30', kr: '채굴기 M30', py: 'Mineradora M30', ty: 'เครื่องขุด M30' },
    days: 30,
    rate: '0.0046',
    rateMode: 'daily',
    minAmount: '1000',
    penaltyMode: 'ratio',
    penaltyRatio: '0.004',
    capacity: '500000',
    sort: 1,
  },
];

/** Products: the operator's API (each change an event with the operator and reason), the seeds and the listing view. */
@Injectable()
export class WealthProductsService implements OnApplicationBootstrap {
  constructor(
    private readonly dataSource: DataSource,
    private readonly events: EventStoreService,
  ) {}

  /** Seeds the example products once (by code): an operator's later edits are kept. */
  async onApplicationBootstrap(): Promise<void> {
    const repo = this.dataSource.getRepository(WealthProduct);
    for (const s of SEEDS) {
      await repo
        .createQueryBuilder()
        .insert()
        .values(repo.create({ currencyId: USDT_ID, saleStart: new Date(0), accrualMin: '0', penaltyRatio: '0', penaltyMultiple: '0', sold: '0', enabled: true, ...s, names: withEnglish(s) }))
        .orIgnore()
        .execute();
      // A seed made before products had names per language gets them, unless an operator renamed it or named it per language since.
      await this.dataSource.query(`UPDATE wealth_products SET names = $2 WHERE code = $1 AND name = $3 AND names = '{}'::jsonb`, [s.code, withEnglish(s), s.name]);
    }
  }

  async all() {
    const rows = await this.dataSource.getRepository(WealthProduct).find({ order: { kind: 'ASC', sort: 'ASC', id: 'ASC' } });
    const now = new Date();
    return rows.map((p) => productView(p, now));
  }

  async get(id: number, m: EntityManager = this.dataSource.manager): Promise<WealthProduct> {
    const p = await m.getRepository(WealthProduct).findOne({ where: { id } });
    if (!p) throw new BusinessError(ErrorCode.WEALTH_PRODUCT_NOT_FOUND);
    return p;
  }

  async create(adminId: number, dto: ProductEditDto) {
    for (const f of ['kind', 'code', 'name', 'min_amount', 'rate', 'capacity'] as const)
      if (dto[f] === undefined) throw invalid(`${f} is required`);
    return this.save(adminId, null, dto, 'WealthProductCreated');
  }

  async edit(adminId: number, id: number, dto: ProductEditDto) {
    return this.save(adminId, id, dto, 'WealthProductEdited');
  }

  async setOpen(adminId: number, id: number, enabled: boolean, reason: string) {
    return this.dataSource.transaction(async (m) => {
      const prior = await m.getRepository(WealthProduct).findOne({ where: { id }, lock: { mode: 'pessimistic_write' } });
      if (!prior) throw new BusinessError(ErrorCode.WEALTH_PRODUCT_NOT_FOUND);
      await m.getRepository(WealthProduct).update({ id }, { enabled });
      await this.events.append(m, { streamId: `wealth-product:${id}`, metadata: { actor: `admin:${adminId}`, reason } }, [
        { type: enabled ? 'WealthProductOpened' : 'WealthProductClosed', payload: { productId: id, previous: prior.enabled } },
      ]);
      return productView({ ...prior, enabled }, new Date());
    });
  }

  private async save(adminId: number, id: number | null, dto: ProductEditDto, type: string) {
    return this.dataSource.transaction(async (m) => {
      const repo = m.getRepository(WealthProduct);
      const prior = id === null ? null : await repo.findOne({ where: { id }, lock: { mode: 'pessimistic_write' } });
      if (id !== null && !prior) throw new BusinessError(ErrorCode.WEALTH_PRODUCT_NOT_FOUND);
      const next = repo.create({
        currencyId: USDT_ID,
        accrualMin: '0',
        penaltyRatio: '0',
        penaltyMultiple: '0',
        rateMode: 'daily',
        penaltyMode: 'ratio',
        days: 0,
        sold: '0',
        enabled: true,
        sort: 0,
        saleStart: new Date(),
        saleEnd: null,
        names: {},
        ...(prior ?? {}),
        ...defined({
          kind: dto.kind,
          code: dto.code,
          name: dto.name,
          names: dto.names === undefined ? undefined : textsOrFail(dto.names, 40, 'names', false),
          days: dto.days,
          minAmount: dto.min_amount,
          rate: dto.rate,
          rateMode: dto.rate_mode,
          accrualMin: dto.accrual_min,
          penaltyMode: dto.penalty_mode,
          penaltyRatio: dto.penalty_ratio,
          penaltyMultiple: dto.penalty_multiple,
          capacity: dto.capacity,
          sort: dto.sort,
          saleStart: dto.sale_start ? new Date(dto.sale_start) : undefined,
          saleEnd: dto.sale_end === undefined ? undefined : dto.sale_end === '' ? null : new Date(dto.sale_end),
        }),
      });
      check(next);
      next.names = withEnglish(next);
      const dup = await repo.findOne({ where: { code: next.code } });
      if (dup && dup.id !== prior?.id) throw invalid(`code ${next.code} exists`);
      // A concurrent create of the same code: the unique index decides, with the same answer.
      const saved = await repo.save(next).catch((err: unknown) => {
        throw isUniqueViolation(err) ? invalid(`code ${next.code} exists`) : err;
      });
      await this.events.append(m, { streamId: `wealth-product:${saved.id}`, metadata: { actor: `admin:${adminId}`, reason: dto.reason } }, [
        { type, payload: { product: productView(saved, new Date()), previous: prior ? productView(prior, new Date()) : null } },
      ]);
      return productView(saved, new Date());
    });
  }
}

function invalid(detail: string) {
  return new BusinessError(ErrorCode.WEALTH_PRODUCT_INVALID, undefined, { detail });
}

function defined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** Rules an operator's settings must meet (the terms are then copied onto each order). */
function check(p: WealthProduct): void {
  if (p.kind === 'flexible') {
    if (p.days !== 0) throw invalid('the flexible fund has no cycle (days = 0)');
    if (p.rateMode !== 'daily') throw invalid('the flexible fund takes a daily rate');
  } else if (p.days < 1 || p.days > 3650) throw invalid('days must be between 1 and 3650');
  if (money(p.minAmount).lte(0)) throw invalid('min_amount must be above 0');
  if (money(p.capacity).lt(p.sold)) throw invalid(`capacity cannot go below what is sold (${moneyString(p.sold)})`);
  if (money(p.rate).gt(p.kind !== 'flexible' && p.rateMode === 'total' ? 10 : 1)) throw invalid('rate is too high');
  if (p.penaltyMode === 'ratio' && money(p.penaltyRatio).gt(1)) throw invalid('penalty_ratio must be at most 1');
  if (p.saleEnd && new Date(p.saleEnd).getTime() <= new Date(p.saleStart).getTime()) throw invalid('sale_end must be after sale_start');
}

/**
 * A product as the API shows it. `name` is in `lang` when the product has a name in it (`names`,
 * whose English is always `name`), else its `name`; without `lang` (the operator's API, events)
 * `name`, with every translation in `names`.
 */
export function productView(p: WealthProduct, now: Date, lang?: string) {
  const left = money(p.capacity).minus(p.sold);
  const start = new Date(p.saleStart).getTime();
  const end = p.saleEnd ? new Date(p.saleEnd).getTime() : null;
  return {
    id: p.id,
    code: p.code,
    kind: p.kind,
    type: p.kind === 'mining' ? 2 : 1,
    name: productName(p, lang),
    names: p.names,
    currency_id: p.currencyId,
    currency: 'USDT',
    days: p.days,
    min_amount: moneyString(p.minAmount),
    rate: moneyString(p.rate),
    rate_mode: p.rateMode,
    ...ratesOf(p),
    accrual_min: moneyString(p.accrualMin),
    penalty_mode: p.penaltyMode,
    penalty_ratio: moneyString(p.penaltyRatio),
    penalty_multiple: moneyString(p.penaltyMultiple),
    capacity: moneyString(p.capacity),
    sold: moneyString(p.sold),
    left: moneyString(left.lt(0) ? money(0) : left),
    progress: money(p.capacity).gt(0) ? money(p.sold).div(p.capacity).toFixed(4, 1) : '1',
    rush_share: RUSH_SHARE,
    status: listingStatus(p, now),
    enabled: p.enabled,
    sale_start: new Date(start).toISOString(),
    sale_end: end === null ? null : new Date(end).toISOString(),
    starts_in_seconds: Math.max(0, Math.ceil((start - now.getTime()) / 1000)),
    ends_in_seconds: end === null ? null : Math.max(0, Math.ceil((end - now.getTime()) / 1000)),
  };
}

/** A product's names with its English one: `name` (English has one name, whichever was edited). */
function withEnglish(p: Pick<WealthProduct, 'name' | 'names'>): LocalizedTexts {
  return { ...p.names, en: p.name };
}

/** A product's name in `lang`, else its default name. */
export function productName(p: Pick<WealthProduct, 'name' | 'names'>, lang?: string): string {
  return (lang && p.names?.[lang]) || p.name;
}
