import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { isUniqueViolation } from '../../infra/database/sql';
import { EventStoreService } from '../../infra/event-store/event-store.service';
import { BusinessError } from '../../infra/http/business-error';
import { ErrorCode } from '../../infra/http/error-codes';
import { money, moneyString } from '../../infra/money';
import { USDT_ID } from '../coin-rate/pricing.service';
import { SYSTEM_OWNER_ID } from '../ledger/ledger-codes';
import { fundHouseAccount } from '../ledger/house-funding';
import { LedgerService } from '../ledger/ledger.service';
import { UserService } from '../user/user.service';
import type { AdminLoanListDto, AdminRepaymentListDto, LoanPoolFundDto, LoanProductEditDto } from './loan.dto';
import { LoanOrder } from './loan-order.entity';
import { LoanProduct } from './loan-product.entity';
import { LoanRepayment } from './loan-repayment.entity';
import { filterStatuses, LoanService } from './loan.service';
import { coinOf } from '../reference/coins';
import { orderView, productView, repaymentView } from './loan-views';

/** A product for a fresh install (an operator's later edits are kept: seeded once, by code). */
const SEEDS: Array<Partial<LoanProduct> & { code: string }> = [
  {
    code: 'usdt-standard',
    name: 'USDT loan',
    lender: 'Kestrel Lending Pool',
    minAmount: '100',
    maxAmount: '50000',
    cycles: [7, 15, 30],
    dailyRate: '0.001',
    sort: 0,
  },
];

/** Operators: products (each change an event with the operator and reason), the pool's funding, the applications and proofs. */
@Injectable()
export class LoanAdminService implements OnApplicationBootstrap {
  constructor(
    private readonly dataSource: DataSource,
    private readonly ledger: LedgerService,
    private readonly events: EventStoreService,
    private readonly loans: LoanService,
    private readonly users: UserService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const repo = this.dataSource.getRepository(LoanProduct);
    for (const s of SEEDS)
      await repo
        .createQueryBuilder()
        .insert()
        .values(repo.create({ currencyId: USDT_ID, repayMethod: 'maturity', enabled: true, ...s }))
        .orIgnore()
        .execute();
  }

  async products() {
    const rows = await this.dataSource.getRepository(LoanProduct).find({ order: { sort: 'ASC', id: 'ASC' } });
    const out = [];
    for (const p of rows) out.push(productView(p, await coinOf(this.dataSource, p.currencyId)));
    return out;
  }

  async saveProduct(adminId: number, id: number | null, dto: LoanProductEditDto) {
    return this.dataSource.transaction(async (m) => {
      const repo = m.getRepository(LoanProduct);
      const prior = id === null ? null : await repo.findOne({ where: { id }, lock: { mode: 'pessimistic_write' } });
      if (id !== null && !prior) throw new BusinessError(ErrorCode.LOAN_PRODUCT_NOT_FOUND);
      if (id === null)
        for (const f of ['code', 'name', 'lender', 'min_amount', 'max_amount', 'cycles', 'daily_rate'] as const)
          if (dto[f] === undefined) throw invalid(`${f} is required`);
      const next = repo.create({ ...(prior ?? { currencyId: USDT_ID, repayMethod: 'maturity', enabled: true, sort: 0 }) });
      if (dto.code !== undefined) next.code = dto.code;
      if (dto.name !== undefined) next.name = dto.name;
      if (dto.lender !== undefined) next.lender = dto.lender;
      if (dto.currency_id !== undefined) next.currencyId = (await coinOf(this.dataSource, dto.currency_id)).id;
      if (dto.min_amount !== undefined) next.minAmount = moneyString(dto.min_amount);
      if (dto.max_amount !== undefined) next.maxAmount = moneyString(dto.max_amount);
      if (dto.cycles !== undefined) next.cycles = [...new Set(dto.cycles)].sort((a, b) => a - b);
      if (dto.daily_rate !== undefined) next.dailyRate = moneyString(dto.daily_rate);
      if (dto.enabled !== undefined) next.enabled = dto.enabled === 'true' || dto.enabled === '1';
      if (dto.sort !== undefined) next.sort = dto.sort;
      if (!money(next.minAmount).gt(0) || money(next.minAmount).gt(next.maxAmount)) throw invalid('min_amount must be above 0 and at most max_amount');
      if (prior && prior.currencyId !== next.currencyId && (await m.getRepository(LoanOrder).count({ where: { productId: prior.id } })) > 0)
        throw invalid('the currency cannot change once loans exist');
      const dup = await repo.findOne({ where: { code: next.code } });
      if (dup && dup.id !== prior?.id) throw invalid('code already used');
      // A concurrent create of the same code: the unique index decides, with the same answer.
      const saved = await repo.save(next).catch((err: unknown) => {
        throw isUniqueViolation(err) ? invalid('code already used') : err;
      });
      await this.events.append(m, { streamId: `loan-product:${saved.id}`, metadata: { actor: `admin:${adminId}`, reason: dto.reason } }, [
        {
          type: prior ? 'LoanProductEdited' : 'LoanProductCreated',
          payload: { productId: saved.id, before: prior ? snapshot(prior) : null, after: snapshot(saved) },
        },
      ]);
      return productView(saved, await coinOf(this.dataSource, saved.currencyId));
    });
  }

  /** The pool's balance per currency, and what is lent out (approved, not yet repaid). */
  async pool() {
    const rows = (await this.ledger.balancesOf('system', SYSTEM_OWNER_ID)).filter((b) => b.accountType === 'loan-pool');
    const out: Record<number, string> = Object.fromEntries(
      (
        (await this.dataSource.query(
          `SELECT currency_id, SUM(remaining)::text AS owed FROM loan_orders WHERE status IN ('approved', 'repaying', 'overdue') GROUP BY currency_id`,
        )) as Array<{ currency_id: number; owed: string }>
      ).map((r) => [r.currency_id, r.owed]),
    );
    const result = [];
    for (const r of rows) {
      const coin = await coinOf(this.dataSource, r.currencyId);
      result.push({ currency_id: r.currencyId, symbol: coin.symbol, available: r.available, owed: moneyString(out[r.currencyId] ?? '0') });
    }
    return result;
  }

  /** A recorded funding of the pool from outside (900, external → pool), with the operator and reason. */
  async fund(adminId: number, dto: LoanPoolFundDto) {
    return { ...(await fundHouseAccount(this.dataSource, this.ledger, adminId, 'loan-pool', 'lending pool funding', dto)), pool: await this.pool() };
  }

  async applications(q: AdminLoanListDto) {
    return this.loans.page({ userId: q.user_id, statuses: filterStatuses(q.status) }, q.page, q.limit, true);
  }

  /** One application with its photos (operators may read any upload) and its repayments. */
  async application(id: string) {
    const o = /^\d{1,18}$/.test(id) ? await this.dataSource.getRepository(LoanOrder).findOne({ where: { id } }) : null;
    if (!o) throw new BusinessError(ErrorCode.LOAN_NOT_FOUND);
    const coin = await coinOf(this.dataSource, o.currencyId);
    const u = await this.users.findById(o.userId);
    const user = { id: u.id, email: u.email, phone: u.phone, verification_level: u.verificationLevel };
    const reps = await this.dataSource.getRepository(LoanRepayment).find({ where: { orderId: o.id }, order: { id: 'DESC' } });
    return { ...orderView(o, coin, true), user, repayments: reps.map((r) => repaymentView(r, coin, true)) };
  }

  async repayments(q: AdminRepaymentListDto) {
    const where = { ...(q.status ? { status: q.status as LoanRepayment['status'] } : {}), ...(q.order_id ? { orderId: String(q.order_id) } : {}) };
    const [rows, total] = await this.dataSource
      .getRepository(LoanRepayment)
      .findAndCount({ where, order: { id: 'DESC' }, skip: (q.page - 1) * q.limit, take: q.limit });
    const items = [];
    for (const r of rows) items.push(repaymentView(r, await coinOf(this.dataSource, r.currencyId), true));
    return { items, total, page: q.page, limit: q.limit };
  }
}

const invalid = (detail: string) => new BusinessError(ErrorCode.LOAN_PRODUCT_INVALID, undefined, { detail });
const snapshot = (p: LoanProduct) => ({
  code: p.code,
  name: p.name,
  lender: p.lender,
  currency_id: p.currencyId,
  min_amount: moneyString(p.minAmount),
  max_amount: moneyString(p.maxAmount),
  cycles: p.cycles,
  daily_rate: moneyString(p.dailyRate),
  enabled: p.enabled,
});
