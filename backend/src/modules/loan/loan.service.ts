import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, In } from 'typeorm';
import { orConcurrentRetry, sharedIn } from '../../infra/database/sql';
import { EventStoreService } from '../../infra/event-store/event-store.service';
import { BusinessError } from '../../infra/http/business-error';
import { ErrorCode } from '../../infra/http/error-codes';
import type { Page } from '../../infra/http/page.dto';
import { money, moneyString } from '../../infra/money';
import { USDT_ID } from '../coin-rate/pricing.service';
import { SYSTEM_OWNER_ID } from '../ledger/ledger-codes';
import { LedgerService } from '../ledger/ledger.service';
import { ChainType } from '../reference/chain-type.entity';
import { UploadService } from '../upload/upload.service';
import { UserService } from '../user/user.service';
import type { LoanApplyDto, LoanBackListDto, LoanFilter, LoanListDto, LoanOrderListDto } from './loan.dto';
import { LoanOrder, LoanStatus } from './loan-order.entity';
import { LoanProduct } from './loan-product.entity';
import { LoanRepayment } from './loan-repayment.entity';
import { loanAmount } from './loan-repayment.service';
import { coinOf } from '../reference/coins';
import { orderView, preview, productView, repaymentView } from './loan-views';

/** The statuses a filter value covers. */
export function filterStatuses(f: LoanFilter | undefined): LoanStatus[] | undefined {
  if (!f || f === 'all') return undefined;
  return f === 'approving' ? ['approving', 'disbursing'] : [f];
}

/** The user's side of loans: products and preview, applying, the orders, repayment records and address. */
@Injectable()
export class LoanService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly users: UserService,
    private readonly uploads: UploadService,
    private readonly events: EventStoreService,
    private readonly ledger: LedgerService,
  ) {}

  /** borrow/list: the products on offer (with the preview when amount and days are given). */
  async list(q: LoanListDto) {
    const products = await this.dataSource.getRepository(LoanProduct).find({ where: { enabled: true }, order: { sort: 'ASC', id: 'ASC' } });
    const items = [];
    for (const p of products) items.push(productView(p, await coinOf(this.dataSource, p.currencyId)));
    let quote = null;
    if (q.product_id !== undefined && q.amount !== undefined && q.days !== undefined) {
      const { product, coin } = await this.checkTerms(q.product_id, q.amount, q.days);
      quote = preview(product, coin, q.amount, q.days);
    }
    return { items, preview: quote };
  }

  /** The product's terms for this loan; `held`: read in that transaction with the product's row held until it ends (an operator's edit waits for it, or is what it reads). */
  private async checkTerms(productId: number, amountRaw: string, days: number, held?: EntityManager) {
    const product = await (held ?? this.dataSource.manager)
      .getRepository(LoanProduct)
      .findOne({ where: { id: productId, enabled: true }, ...sharedIn(held) });
    if (!product) throw new BusinessError(ErrorCode.LOAN_PRODUCT_NOT_FOUND);
    const coin = await coinOf(this.dataSource, product.currencyId);
    const amount = loanAmount(amountRaw, coin);
    if (amount.lt(product.minAmount) || amount.gt(product.maxAmount))
      throw new BusinessError(ErrorCode.LOAN_AMOUNT_RANGE, undefined, {
        min: moneyString(product.minAmount),
        max: moneyString(product.maxAmount),
        coin: coin.symbol,
      });
    if (!product.cycles.includes(days)) throw new BusinessError(ErrorCode.LOAN_CYCLE_INVALID);
    return { product, coin, amount };
  }

  /** borrow/order/apply: basic verification first (spec §5), then the terms, the pool, the three photos. */
  async apply(userId: number, dto: LoanApplyDto) {
    // A retried client id answers its first application (also when the retry ran at the same time,
    // below), before the checks that may have changed since (the product's terms, the pool).
    const prior = async () => {
      const o = dto.client_id ? await this.dataSource.getRepository(LoanOrder).findOne({ where: { userId, clientId: dto.client_id } }) : null;
      return o ? { ...orderView(o, await coinOf(this.dataSource, o.currencyId)), duplicate: true } : null;
    };
    const earlier = await prior();
    if (earlier) return earlier;
    const user = await this.users.findById(userId);
    if (user.verificationLevel < 1)
      throw new BusinessError(ErrorCode.LOAN_VERIFY_REQUIRED, undefined, undefined, { verify: true, route: '#/pages/verification/index' });
    const { product: read, coin, amount } = await this.checkTerms(dto.product_id, dto.amount, dto.days);
    const pool = (await this.ledger.balancesOf('system', SYSTEM_OWNER_ID)).find((b) => b.accountType === 'loan-pool' && b.currencyId === read.currencyId);
    if (money(pool?.available ?? '0').lt(amount)) throw new BusinessError(ErrorCode.LOAN_POOL_SHORT);
    const create = async (m: EntityManager) => {
      for (const id of [dto.front_image, dto.back_image, dto.passport_image]) await this.uploads.claim(m, userId, id);
      // The product's terms as they stand now, held until this commits: an operator's edit committed
      // meanwhile (paused, a new rate, range or cycles) is what this application is made on, or
      // refused by (regression: it was recorded on the terms read before).
      const { product } = await this.checkTerms(dto.product_id, dto.amount, dto.days, m);
      if (product.currencyId !== read.currencyId) throw new BusinessError(ErrorCode.LOAN_PRODUCT_NOT_FOUND);
      const repo = m.getRepository(LoanOrder);
      const o = await repo.save(
        repo.create({
          userId,
          productId: product.id,
          currencyId: product.currencyId,
          amount: moneyString(amount),
          days: dto.days,
          dailyRate: product.dailyRate,
          lender: product.lender,
          frontImage: dto.front_image,
          backImage: dto.back_image,
          passportImage: dto.passport_image,
          status: 'approving',
          clientId: dto.client_id ?? null,
        }),
      );
      await this.events.append(m, { streamId: `loan:${o.id}`, metadata: { actor: `user:${userId}` } }, [
        {
          type: 'LoanApplied',
          payload: { loanId: o.id, userId, productId: product.id, amount: moneyString(amount), days: dto.days, dailyRate: product.dailyRate },
        },
      ]);
      return o;
    };
    return orConcurrentRetry(async () => {
      const order = await this.dataSource.transaction(create);
      return { ...orderView(await this.dataSource.getRepository(LoanOrder).findOneByOrFail({ id: order.id }), coin), duplicate: false };
    }, prior);
  }

  /** borrow/order/list: the user's loans, newest first, with the spec's filter. */
  async orders(userId: number, q: LoanOrderListDto): Promise<Page<ReturnType<typeof orderView>>> {
    return this.page({ userId, statuses: filterStatuses(q.status) }, q.page, q.limit, false);
  }

  async page(f: { userId?: number; statuses?: LoanStatus[] }, page: number, limit: number, forOperator: boolean) {
    const where = { ...(f.userId !== undefined ? { userId: f.userId } : {}), ...(f.statuses ? { status: In(f.statuses) } : {}) };
    const [rows, total] = await this.dataSource.getRepository(LoanOrder).findAndCount({ where, order: { id: 'DESC' }, skip: (page - 1) * limit, take: limit });
    const items = [];
    for (const o of rows) items.push(orderView(o, await coinOf(this.dataSource, o.currencyId), forOperator));
    return { items, total, page, limit };
  }

  /** borrow/back/list: the user's repayment records (optionally of one loan). */
  async records(userId: number, q: LoanBackListDto) {
    const where = { userId, ...(q.order_id !== undefined ? { orderId: String(q.order_id) } : {}) };
    const [rows, total] = await this.dataSource
      .getRepository(LoanRepayment)
      .findAndCount({ where, order: { id: 'DESC' }, skip: (q.page - 1) * q.limit, take: q.limit });
    const items = [];
    for (const r of rows) items.push(repaymentView(r, await coinOf(this.dataSource, r.currencyId)));
    return { items, total, page: q.page, limit: q.limit };
  }

  /** borrow/back/detail: one of the user's loans as the repay screen needs it: amounts, addresses, records. */
  async detail(userId: number, orderId: number) {
    const o = await this.dataSource.getRepository(LoanOrder).findOne({ where: { id: String(orderId), userId } });
    if (!o) throw new BusinessError(ErrorCode.LOAN_NOT_FOUND);
    const coin = await coinOf(this.dataSource, o.currencyId);
    const records = await this.dataSource.getRepository(LoanRepayment).find({ where: { orderId: o.id }, order: { id: 'DESC' }, take: 50 });
    return { order: orderView(o, coin), addresses: await this.addressList(o.currencyId), records: records.map((r) => repaymentView(r, coin)) };
  }

  /** borrow/repay_in_address: where to send an external repayment (the operator-configured deposit addresses). */
  async address(userId: number, orderId?: number) {
    let currencyId = USDT_ID;
    if (orderId !== undefined) {
      const o = await this.dataSource.getRepository(LoanOrder).findOne({ where: { id: String(orderId), userId } });
      if (!o) throw new BusinessError(ErrorCode.LOAN_NOT_FOUND);
      currencyId = o.currencyId;
    }
    const coin = await coinOf(this.dataSource, currencyId);
    return { currency_id: coin.id, symbol: coin.symbol, addresses: await this.addressList(currencyId) };
  }

  private async addressList(currencyId: number) {
    const chains = await this.dataSource.getRepository(ChainType).find({ where: { currencyId, enabled: true }, order: { id: 'ASC' } });
    return chains.filter((c) => c.depositAddress !== '').map((c) => ({ chain: c.chain, address: c.depositAddress }));
  }
}
