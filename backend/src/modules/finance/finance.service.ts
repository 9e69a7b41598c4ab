import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, In } from 'typeorm';
import { orConcurrentRetry, updateReturning } from '../../infra/database/sql';
import { EventStoreService } from '../../infra/event-store/event-store.service';
import { BusinessError } from '../../infra/http/business-error';
import { ErrorCode } from '../../infra/http/error-codes';
import type { Page } from '../../infra/http/page.dto';
import { money, moneyString } from '../../infra/money';
import { EngineBus } from '../engine/engine-bus';
import { LedgerCode } from '../ledger/ledger-codes';
import { LedgerService, Movement } from '../ledger/ledger.service';
import type { PurchaseDto, RedeemDto, WealthOrderListDto } from './finance.dto';
import { treasury, trust, WealthAccrualService } from './wealth-accrual.service';
import { WealthOrder } from './wealth-order.entity';
import { WealthProduct } from './wealth-product.entity';
import { productName, productView, releaseCapacity, WealthProductsService } from './wealth-products.service';
import { DAY_MS, dayStart, epochDay, FLEXIBLE_RESERVE_DAYS, interestOf, penaltyOf } from './wealth-terms';

/**
 * Wealth products for users (lh/deposit…). Bought from and paid into the trust account, a
 * database account (LedgerService). A purchase locks the principal (40) and has the house
 * reserve the whole promised interest from `treasury` (901) in the same transaction, so a payout
 * can never fail; the product's sold amount (what its orders hold now) rises by a conditional
 * update, so capacity is never exceeded, and falls when an order is redeemed or matures. Redemption
 * returns the principal (41) less the penalty (904, to the treasury) and releases the unused
 * reserve (902).
 */
@Injectable()
export class FinanceService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly ledger: LedgerService,
    private readonly products: WealthProductsService,
    private readonly accrual: WealthAccrualService,
    private readonly events: EventStoreService,
    private readonly bus: EngineBus,
  ) {}

  /** lh/deposit/config: type 1 = hosting (fixed-term and the flexible fund), type 2 = mining-machine rental. Closed products are not listed. */
  async list(type: 1 | 2, lang?: string) {
    const rows = await this.dataSource
      .getRepository(WealthProduct)
      .createQueryBuilder('p')
      .where('p.enabled')
      .andWhere(type === 2 ? "p.kind = 'mining'" : "p.kind <> 'mining'")
      .orderBy('p.kind', 'DESC')
      .addOrderBy('p.sort')
      .addOrderBy('p.id')
      .getMany();
    const now = new Date();
    return rows.map((p) => productView(p, now, lang));
  }

  async product(id: number, lang?: string) {
    const p = await this.products.get(id);
    const now = new Date();
    const start = epochDay(now) + 1;
    return {
      ...productView(p, now, lang),
      // What a purchase now would look like (interest from the next day, 00:00 UTC).
      interest_start: dayStart(start).toISOString(),
      maturity: p.kind === 'flexible' ? null : dayStart(start + p.days).toISOString(),
      example: { amount: moneyString(p.minAmount), ...interestOf(p, p.minAmount) },
    };
  }

  /** lh/deposit: the spec's checks in order, then one transaction. */
  async purchase(userId: number, dto: PurchaseDto, lang?: string) {
    // A retried client id answers its first order, with that order's own product (a retry may name
    // another), before any check an operator or the moment can change since (the minimum, the sale
    // window): what the first request created stays the answer.
    if (dto.client_id) {
      const prior = await this.dataSource.getRepository(WealthOrder).findOne({ where: { userId, clientId: dto.client_id } });
      if (prior) return orderView(prior, await this.products.get(prior.productId), new Date(), lang);
    }
    const p = await this.products.get(dto.product_id);
    const amount = money(dto.amount);
    const now = new Date();
    const a = moneyString(amount);
    const atLeastMinimum = (q: WealthProduct) => {
      if (amount.lt(q.minAmount) || amount.lte(0)) throw new BusinessError(ErrorCode.WEALTH_BELOW_MIN, undefined, { min: `${moneyString(q.minAmount)} USDT` });
    };
    /** The minimum and the sale window (at `at`) on a product's terms, then what the purchase earns and reserves on them. */
    const termsOn = (q: WealthProduct, at: Date) => {
      atLeastMinimum(q);
      const status = productView(q, at).status;
      if (status === 'soon' || status === 'ended') throw new BusinessError(ErrorCode.WEALTH_NOT_ON_SALE);
      const { daily, total } = interestOf(q, a);
      return { daily, total, reserve: q.kind === 'flexible' ? moneyString(money(daily).times(FLEXIBLE_RESERVE_DAYS)) : total };
    };
    // The spec's order: the minimum, the agreement, the sale window (on the terms read now; checked again below).
    atLeastMinimum(p);
    if (dto.agree !== '1' && dto.agree !== 'true') throw new BusinessError(ErrorCode.AGREEMENT_REQUIRED, 'error.wealth_agreement_required');
    termsOn(p, now);
    const buy = async (m: EntityManager) => {
      // The two accounts first, in the global order (treasury, then the user's trust), as a
      // redemption or the accrual job locks them before the product row (they give its capacity
      // back): the other way round, a purchase and a redemption at once deadlock. The treasury
      // always: whether a reserve is needed is known only on the product's terms, read below.
      await this.ledger.lockInOrder(m, [trust(userId, p.currencyId, LedgerCode.LockDeduction, '0'), treasury(p.currencyId, LedgerCode.Freeze, '0')]);
      // Capacity: the product row's conditional update is the guard (concurrent buyers queue on it).
      const raised = await updateReturning<{ id: number }>(
        m,
        `UPDATE wealth_products SET sold = sold + $2 WHERE id = $1 AND enabled AND sold + $2 <= capacity RETURNING id`,
        [p.id, a],
      );
      if (!raised.length) {
        const [now] = await m.query('SELECT GREATEST(capacity - sold, 0)::text AS left FROM wealth_products WHERE id = $1', [p.id]);
        throw new BusinessError(ErrorCode.WEALTH_SOLD_OUT, undefined, { left: `${moneyString(now?.left ?? '0')} USDT` });
      }
      // The product as it stands now, its row held by the update above until this commits: an
      // operator's edit committed meanwhile (rate, minimum, sale window, penalty) is what this
      // purchase is made on (regression: it was made on the terms read before, the reserve too).
      const q = await this.products.get(p.id, m);
      // And at the time it is made, read once its locks are held (a purchase that waited on the
      // treasury past the sale's end was made after it, on the old clock reading; and its first day
      // is counted from when it is made).
      const at = new Date();
      const { daily, total, reserve } = termsOn(q, at);
      const startDay = epochDay(at) + 1;
      const saved = await m.getRepository(WealthOrder).save(
        m.getRepository(WealthOrder).create({
          userId,
          productId: p.id,
          kind: q.kind,
          currencyId: q.currencyId,
          amount: a,
          days: q.days,
          dailyInterest: daily,
          totalInterest: total,
          reserve,
          earned: '0',
          paidDays: 0,
          startDay,
          endAt: q.kind === 'flexible' ? null : new Date((startDay + q.days) * DAY_MS),
          status: 'hosting',
          penaltyMode: q.penaltyMode,
          penaltyRatio: q.penaltyRatio,
          penaltyMultiple: q.penaltyMultiple,
          clientId: dto.client_id ?? null,
        }),
      );
      // Two postings (the user's lock, then the treasury's reserve) on the accounts locked above.
      await this.ledger.post(
        {
          commandId: `wealth-buy:${saved.id}`,
          refType: 'wealth',
          refId: saved.id,
          actor: `user:${userId}`,
          movements: [trust(userId, p.currencyId, LedgerCode.LockDeduction, `-${a}`, a)],
        },
        m,
      );
      if (money(reserve).gt(0)) {
        try {
          await this.ledger.post(
            {
              commandId: `wealth-reserve:${saved.id}`,
              refType: 'wealth',
              refId: saved.id,
              actor: `user:${userId}`,
              memo: 'interest reserve',
              movements: [treasury(p.currencyId, LedgerCode.Freeze, `-${reserve}`, reserve)],
            },
            m,
          );
        } catch (err) {
          if (err instanceof BusinessError && err.code === ErrorCode.INSUFFICIENT_BALANCE) throw new BusinessError(ErrorCode.WEALTH_RESERVE_SHORT);
          throw err;
        }
      }
      await this.events.append(m, { streamId: `wealth-order:${saved.id}`, metadata: { actor: `user:${userId}` } }, [
        {
          type: 'WealthPurchased',
          payload: { orderId: saved.id, userId, productId: p.id, amount: a, dailyInterest: daily, totalInterest: total, reserve, startDay },
        },
      ]);
      return saved;
    };
    // A concurrent retry with the same client id won the race: answer its purchase.
    const prior = () =>
      dto.client_id ? this.dataSource.getRepository(WealthOrder).findOne({ where: { userId, clientId: dto.client_id } }) : Promise.resolve(null);
    const order = await orConcurrentRetry(() => this.dataSource.transaction(buy), prior);
    this.bus.emit('balance', userId);
    // The retry that won may have named another product: the answer shows the one bought.
    return orderView(order, order.productId === p.id ? p : await this.products.get(order.productId), now, lang);
  }

  /**
   * lh/deposit/cancel: early redemption. With `preview`, only the exact penalty and refund (nothing
   * changes). Due interest is credited first, so the penalty counts the days really remaining. The
   * order id is the command's key: a retry of this user's redemption answers it again (`duplicate`).
   */
  async redeem(userId: number, dto: RedeemDto, lang?: string) {
    const preview = dto.preview === '1' || dto.preview === 'true';
    const now = new Date();
    const o = await this.owned(userId, dto.order_id);
    if (o.status === 'redeemed' && !preview) return redeemedView(o, await this.products.get(o.productId), now, lang);
    if (o.status !== 'hosting') throw new BusinessError(ErrorCode.WEALTH_ORDER_CLOSED);
    const p = await this.products.get(o.productId);
    if (preview) {
      // As the real call: a fixed term whose end has passed is matured by its settlement (its whole
      // interest is reserved, so every day pays), and there is nothing left to redeem early.
      if (o.kind !== 'flexible' && o.endAt !== null && new Date(o.endAt).getTime() <= now.getTime()) throw new BusinessError(ErrorCode.WEALTH_ORDER_CLOSED);
      const remaining = Math.max(0, o.days - Math.max(o.paidDays, Math.min(o.days, epochDay(now) - o.startDay)));
      return redemptionView(o, penaltyOf(o, o.kind === 'flexible' ? 0 : remaining), remaining, true);
    }
    // A flexible order's waiting days (its reserve ran out while the treasury was short) get their
    // reserve first, in its own transaction, as the daily job's settle() does.
    await this.accrual.topUpOwed(o, now);
    const out = await this.dataSource.transaction(async (m) => {
      await this.accrual.settleIn(m, o.id, now);
      const locked = await m.getRepository(WealthOrder).findOne({ where: { id: o.id, userId }, lock: { mode: 'pessimistic_write' } });
      // A concurrent retry redeemed it first: its answer.
      if (locked?.status === 'redeemed') return redeemedView(locked, p, now, lang);
      // Closed meanwhile, or matured just now by the settlement above (its end passed before the
      // daily job reached it): that maturity commits, and the answer is 2506 after the commit.
      if (!locked || locked.status !== 'hosting') return undefined;
      const remaining = locked.kind === 'flexible' ? 0 : Math.max(0, locked.days - locked.paidDays);
      const penalty = penaltyOf(locked, remaining);
      const a = moneyString(locked.amount);
      const movements: Movement[] = [trust(userId, locked.currencyId, LedgerCode.LockReturn, a, `-${a}`)];
      if (money(penalty).gt(0))
        movements.push(
          trust(userId, locked.currencyId, LedgerCode.WealthPenalty, `-${penalty}`),
          treasury(locked.currencyId, LedgerCode.WealthPenalty, penalty),
        );
      const reserve = moneyString(locked.reserve);
      if (money(reserve).gt(0)) movements.push(treasury(locked.currencyId, LedgerCode.Unfreeze, reserve, `-${reserve}`));
      await this.ledger.post({ commandId: `wealth-redeem:${locked.id}`, refType: 'wealth', refId: locked.id, actor: `user:${userId}`, movements }, m);
      await releaseCapacity(m, locked.productId, a);
      await m.getRepository(WealthOrder).update({ id: locked.id }, { status: 'redeemed', penalty, reserve: '0', closedAt: now });
      await this.events.append(m, { streamId: `wealth-order:${locked.id}`, metadata: { actor: `user:${userId}` } }, [
        {
          type: 'WealthRedeemed',
          payload: { orderId: locked.id, remainingDays: remaining, penalty, refund: moneyString(money(a).minus(penalty)), released: reserve },
        },
      ]);
      return {
        ...redemptionView(locked, penalty, remaining, false),
        order: orderView({ ...locked, status: 'redeemed', penalty, closedAt: now }, p, now, lang),
      };
    });
    this.bus.emit('balance', userId);
    if (!out) throw new BusinessError(ErrorCode.WEALTH_ORDER_CLOSED);
    return out;
  }

  /** lh/deposit/order: my hosting, completed or redeemed orders (only mine). */
  async orders(userId: number, q: WealthOrderListDto, lang?: string): Promise<Page<ReturnType<typeof orderView>>> {
    const [rows, total] = await this.dataSource.getRepository(WealthOrder).findAndCount({
      where: { userId, status: q.status },
      order: { id: 'DESC' },
      skip: (q.page - 1) * q.limit,
      take: q.limit,
    });
    const ids = [...new Set(rows.map((r) => r.productId))];
    const products = new Map((ids.length ? await this.dataSource.getRepository(WealthProduct).findBy({ id: In(ids) }) : []).map((p) => [p.id, p]));
    const now = new Date();
    return { items: rows.map((o) => orderView(o, products.get(o.productId), now, lang)), total, page: q.page, limit: q.limit };
  }

  /** lh/deposit/report: held (in hosting), earned today (credited since 00:00 UTC) and in total; the trust balance. */
  async report(userId: number) {
    const [held] = await this.dataSource.query(
      `SELECT COALESCE(SUM(amount) FILTER (WHERE status = 'hosting'), 0)::text AS held, COALESCE(SUM(earned), 0)::text AS earned,
              COUNT(*) FILTER (WHERE status = 'hosting')::int AS hosting
       FROM wealth_orders WHERE user_id = $1`,
      [userId],
    );
    const [today] = await this.dataSource.query(
      `SELECT COALESCE(SUM(available_delta), 0)::text AS today FROM ledger_entries
       WHERE owner_type = 'user' AND owner_id = $1 AND account_type = 'trust' AND code = $2 AND created_at >= $3`,
      [userId, LedgerCode.WealthInterest, dayStart(epochDay(new Date()))],
    );
    const bal = (await this.ledger.balancesOf('user', userId)).find((b) => b.accountType === 'trust' && b.currencyId === 3);
    return {
      currency: 'USDT',
      held: moneyString(held.held),
      earned_today: moneyString(today.today),
      earned_total: moneyString(held.earned),
      hosting_orders: held.hosting,
      trust_available: moneyString(bal?.available ?? '0'),
      trust_frozen: moneyString(bal?.frozen ?? '0'),
    };
  }

  private async owned(userId: number, orderId: string): Promise<WealthOrder> {
    // Someone else's order reads exactly like a missing one.
    const o = await this.dataSource.getRepository(WealthOrder).findOne({ where: { id: orderId, userId } });
    if (!o) throw new BusinessError(ErrorCode.WEALTH_ORDER_NOT_FOUND);
    return o;
  }
}

function redemptionView(o: WealthOrder, penalty: string, remainingDays: number, preview: boolean) {
  return {
    order_id: o.id,
    preview,
    amount: moneyString(o.amount),
    remaining_days: remainingDays,
    penalty_mode: o.penaltyMode,
    penalty_ratio: moneyString(o.penaltyRatio),
    penalty_multiple: moneyString(o.penaltyMultiple),
    daily_interest: moneyString(o.dailyInterest),
    penalty,
    refund: moneyString(money(o.amount).minus(penalty)),
    earned: moneyString(o.earned),
  };
}

/** A redemption answered again from the order: the stored penalty; remaining days as they were (paid days stop at redemption). */
function redeemedView(o: WealthOrder, p: WealthProduct, now: Date, lang?: string) {
  const remaining = o.kind === 'flexible' ? 0 : Math.max(0, o.days - o.paidDays);
  return { ...redemptionView(o, moneyString(o.penalty ?? '0'), remaining, false), order: orderView(o, p, now, lang), duplicate: true };
}

/** An order as the API shows it, its product named in `lang` (productName). */
export function orderView(o: WealthOrder, p: WealthProduct | undefined, now: Date, lang?: string) {
  const end = o.endAt ? new Date(o.endAt).getTime() : null;
  const nextCredit = dayStart(Math.max(epochDay(now) + 1, o.startDay + o.paidDays + 1)).toISOString();
  return {
    order_id: o.id,
    product_id: o.productId,
    name: p ? productName(p, lang) : '',
    code: p?.code ?? '',
    kind: o.kind,
    currency: 'USDT',
    amount: moneyString(o.amount),
    days: o.days,
    daily_interest: moneyString(o.dailyInterest),
    total_interest: moneyString(o.totalInterest),
    earned: moneyString(o.earned),
    paid_days: o.paidDays,
    remaining_days: o.kind === 'flexible' || o.status !== 'hosting' ? 0 : Math.max(0, o.days - o.paidDays),
    interest_start: dayStart(o.startDay).toISOString(),
    purchase_time: new Date(o.createdAt ?? now).toISOString(),
    end_at: end === null ? null : new Date(end).toISOString(),
    remaining_seconds: end === null || o.status !== 'hosting' ? 0 : Math.max(0, Math.ceil((end - now.getTime()) / 1000)),
    next_credit_at: o.status === 'hosting' ? nextCredit : null,
    completion_time: o.closedAt ? new Date(o.closedAt).toISOString() : null,
    status: o.status,
    penalty_mode: o.penaltyMode,
    penalty: o.penalty === null ? null : moneyString(o.penalty),
    refund: o.penalty === null || o.status !== 'redeemed' ? null : moneyString(money(o.amount).minus(o.penalty)),
  };
}
