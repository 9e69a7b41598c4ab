import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { alreadyExists, orConcurrentRetry } from '../../infra/database/sql';
import { EventStoreService } from '../../infra/event-store/event-store.service';
import { FundPasswordGate } from '../../infra/auth/fund-password-gate';
import { BusinessError } from '../../infra/http/business-error';
import { ErrorCode } from '../../infra/http/error-codes';
import type { Page } from '../../infra/http/page.dto';
import { money, Money, moneyString, truncate } from '../../infra/money';
import { USDT_ID } from '../coin-rate/pricing.service';
import { EngineBus } from '../engine/engine-bus';
import { MarketRegistry } from '../engine/market-registry.service';
import { AUDIT_TICKS_MAX, MarkPriceService } from '../market/mark-price.service';
import { LedgerCode, SYSTEM_OWNER_ID } from '../ledger/ledger-codes';
import { LedgerService, Movement } from '../ledger/ledger.service';
import { UserService } from '../user/user.service';
import { positive } from '../wallet/accounts.service';
import type { OptionListDto, OptionPeriodDto, OptionSubmitDto } from './microtrade.dto';
import { DELIVERY_LATE_MS, OptionDeliveryService, STRANDED_AFTER_MS } from './option-delivery.service';
import { OptionOrder } from './option-order.entity';
import { OptionPeriod } from './option-period.entity';

/**
 * Up/down options (ETF / "microtrade"). The stake leaves the user's option account (400, fee 401)
 * for the house (the system `treasury`), which freezes the stake plus the possible win at once
 * (901): the most delivery can pay, so no other use of the treasury (contract profits, interest
 * reserves) can leave a payout uncovered. The opening tick is the latest recorded mark-price tick; delivery is settled by
 * OptionDeliveryService on the first sampled tick at or after the delivery time.
 */
@Injectable()
export class MicrotradeService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly ledger: LedgerService,
    private readonly registry: MarketRegistry,
    private readonly users: UserService,
    private readonly delivery: OptionDeliveryService,
    private readonly events: EventStoreService,
    private readonly bus: EngineBus,
    private readonly marks: MarkPriceService,
    private readonly fundPassword: FundPasswordGate,
  ) {}

  async periods(includeDisabled = false) {
    const rows = await this.dataSource.getRepository(OptionPeriod).find({ where: includeDisabled ? {} : { enabled: true }, order: { seconds: 'ASC' } });
    return rows.map(periodView);
  }

  async currencies(userId: number) {
    const b = (await this.ledger.balancesOf('user', userId)).find((x) => x.accountType === 'option' && x.currencyId === USDT_ID);
    return [{ currency_id: USDT_ID, symbol: 'USDT', available: b?.available ?? '0', frozen: b?.frozen ?? '0' }];
  }

  /** microtrade/submit: checks in the spec's order, then one transaction. */
  async submit(userId: number, dto: OptionSubmitDto) {
    // A retried client id answers its first order (also when the retry ran at the same time, below),
    // before any check that depends on the moment: the period, the price now, the house's capacity.
    const prior = async (m = this.dataSource.manager) =>
      dto.client_id ? m.getRepository(OptionOrder).findOne({ where: { userId, clientId: dto.client_id } }) : null;
    const first = await prior();
    if (first) return orderView(first, this.registry.symbolOf(first.marketId));
    await this.fundPassword.require(userId);
    const period = await this.dataSource.getRepository(OptionPeriod).findOne({ where: { id: dto.period_id, enabled: true } });
    if (!period) throw new BusinessError(ErrorCode.OPTION_PERIOD_REQUIRED);
    const market = this.registry.get(dto.symbol);
    const stake = positive(dto.quantity);
    const { win } = termsOf(period, stake);
    const user = await this.users.findById(userId);
    if (user.verificationLevel < 1)
      throw new BusinessError(ErrorCode.OPTION_VERIFY_REQUIRED, undefined, undefined, { verify: true, route: '#/pages/verification/index' });
    await this.marks.sampling(market);
    const tick = await this.marks.now(market);
    // The stake comes in and stake + win is frozen: the house's own funds must cover the win.
    const house = (await this.ledger.balancesOf('system', SYSTEM_OWNER_ID)).find((b) => b.accountType === 'treasury' && b.currencyId === USDT_ID);
    if (money(house?.available ?? '0').lt(win)) throw new BusinessError(ErrorCode.OPTION_CAPACITY);

    const deliverAt = new Date(Date.now() + period.seconds * 1000);
    const buy = async (m: EntityManager) => {
      const earlier = await prior(m);
      if (earlier) return earlier;
      // The period as it is now, held until this purchase commits: an operator's change (disabled, a
      // new ratio) made meanwhile is either what it is bought on or waits for it, never passed over.
      const now = await m.getRepository(OptionPeriod).findOne({ where: { id: period.id }, lock: { mode: 'pessimistic_read' } });
      if (!now?.enabled) throw new BusinessError(ErrorCode.OPTION_PERIOD_REQUIRED);
      const { fee, reserve } = termsOf(now, stake);
      const saved = await m.getRepository(OptionOrder).save(
        m.getRepository(OptionOrder).create({
          userId,
          marketId: market.id,
          direction: dto.direction,
          quantity: moneyString(stake),
          fee: moneyString(fee),
          currencyId: USDT_ID,
          seconds: now.seconds,
          profitRatio: now.profitRatio,
          openTickId: tick.id,
          openPrice: tick.price,
          openTs: tick.ts,
          deliverAt,
          reserve: moneyString(reserve),
          clientId: dto.client_id ?? null,
        }),
      );
      const s = moneyString(stake);
      const r = moneyString(reserve);
      const movements: Movement[] = [
        { ownerType: 'user', ownerId: userId, accountType: 'option', currencyId: USDT_ID, code: LedgerCode.EtfDeduction, available: `-${s}` },
        { ownerType: 'system', ownerId: SYSTEM_OWNER_ID, accountType: 'treasury', currencyId: USDT_ID, code: LedgerCode.EtfDeduction, available: s },
      ];
      if (fee.gt(0)) {
        movements.push(
          { ownerType: 'user', ownerId: userId, accountType: 'option', currencyId: USDT_ID, code: LedgerCode.EtfFee, available: `-${moneyString(fee)}` },
          { ownerType: 'system', ownerId: SYSTEM_OWNER_ID, accountType: 'fees', currencyId: USDT_ID, code: LedgerCode.EtfFee, available: moneyString(fee) },
        );
      }
      await this.ledger.post({ commandId: `option-buy:${saved.id}`, refType: 'option', refId: saved.id, actor: `user:${userId}`, movements }, m);
      // The house freezes the most delivery can pay (stake + win) now, so delivery can always pay it. Its
      // own posting: a purchase that raced another for the last of the treasury hears 2403, not "insufficient balance".
      await this.ledger
        .post(
          {
            commandId: `option-reserve:${saved.id}`,
            refType: 'option',
            refId: saved.id,
            actor: `user:${userId}`,
            memo: 'payout reserve',
            movements: [
              {
                ownerType: 'system',
                ownerId: SYSTEM_OWNER_ID,
                accountType: 'treasury',
                currencyId: USDT_ID,
                code: LedgerCode.Freeze,
                available: `-${r}`,
                frozen: r,
              },
            ],
          },
          m,
        )
        .catch((err: unknown) => {
          if (err instanceof BusinessError && err.code === ErrorCode.INSUFFICIENT_BALANCE) throw new BusinessError(ErrorCode.OPTION_CAPACITY);
          throw err;
        });
      await this.events.append(m, { streamId: `option:${saved.id}`, metadata: { actor: `user:${userId}` } }, [
        {
          type: 'OptionBought',
          payload: {
            orderId: saved.id,
            userId,
            marketId: market.id,
            direction: dto.direction,
            stake: s,
            fee: moneyString(fee),
            seconds: now.seconds,
            profitRatio: now.profitRatio,
            openTickId: tick.id,
            openPrice: tick.price,
            deliverAt: deliverAt.toISOString(),
          },
        },
      ]);
      return saved;
    };
    const order = await orConcurrentRetry(() => this.dataSource.transaction(buy), prior);
    // After the commit the purchase stands whatever the queue does: the answer says it was bought.
    this.delivery.schedule(new Date(order.deliverAt));
    this.bus.emit('balance', userId);
    return orderView(order, market.symbol);
  }

  /** microtrade/lists: awaiting delivery (with time left) or delivered (result, delivery price, P/L). */
  async list(userId: number, q: OptionListDto): Promise<Page<ReturnType<typeof orderView>>> {
    const [rows, total] = await this.dataSource.getRepository(OptionOrder).findAndCount({
      where: { userId, status: q.status },
      order: { id: 'DESC' },
      skip: (q.page - 1) * q.limit,
      take: q.limit,
    });
    return { items: rows.map((o) => orderView(o, this.registry.symbolOf(o.marketId))), total, page: q.page, limit: q.limit };
  }

  /**
   * The audit trail of one option: its stored opening and delivery ticks and every recorded tick
   * in between. Public (no owner data), so anyone can recompute the result.
   */
  async ticks(orderId: string) {
    const o = await this.dataSource.getRepository(OptionOrder).findOne({ where: { id: orderId } });
    if (!o) throw new BusinessError(ErrorCode.OPTION_NOT_FOUND);
    // A void option no sample came for has no delivery tick: its trail runs to STRANDED_AFTER_MS after
    // its delivery time, so anyone can see that none was sampled from its delivery time until then.
    const until = o.deliveryTs ?? (o.status === 'delivered' ? new Date(new Date(o.deliverAt).getTime() + STRANDED_AFTER_MS) : new Date());
    // Two stretches, each of at most AUDIT_TICKS_MAX: from the open to the delivery time, and from the
    // delivery time on, which decides the result. One list cut at 5,000 ticks from the open never
    // reached the delivery of a long period (a 2-hour one samples 7,200), and said nothing of it.
    const stretch = (from: Date, to: Date, toIncluded: boolean): Promise<Array<{ id: string; price: string; ts: Date; source: string }>> =>
      this.dataSource.query(
        `SELECT id::text, price::text, ts, source FROM mark_prices WHERE market_id = $1 AND ts >= $2 AND ts ${toIncluded ? '<=' : '<'} $3
          ORDER BY ts, mark_prices.id LIMIT ${AUDIT_TICKS_MAX + 1}`,
        [o.marketId, from, to],
      );
    const deliverAt = new Date(o.deliverAt);
    const before = await stretch(new Date(o.openTs), deliverAt, false);
    const after = until < deliverAt ? [] : await stretch(deliverAt, until, true);
    const rows = [...before.slice(0, AUDIT_TICKS_MAX), ...after.slice(0, AUDIT_TICKS_MAX)];
    return {
      order_id: o.id,
      symbol: this.registry.symbolOf(o.marketId),
      direction: o.direction,
      open_tick: { id: o.openTickId, price: moneyString(o.openPrice), time: new Date(o.openTs).toISOString() },
      deliver_at: new Date(o.deliverAt).toISOString(),
      delivery_tick: o.deliveryTickId ? { id: o.deliveryTickId, price: moneyString(o.deliveryPrice!), time: new Date(o.deliveryTs!).toISOString() } : null,
      result: o.result,
      rule: 'result = void if the delivery tick is more than void_after_ms after deliver_at, else up if delivery price > open price, down if lower, flat if equal; the delivery tick is the first sampled tick (source sample) at or after deliver_at; void with no delivery tick when none was recorded by stranded_after_ms after deliver_at',
      stranded_after_ms: STRANDED_AFTER_MS,
      // The bound it was delivered under (null: delivered before there was one, never void); a pending option's is today's.
      void_after_ms: o.status === 'delivered' ? o.voidAfterMs : DELIVERY_LATE_MS,
      ticks: rows.map((r) => ({ id: r.id, price: moneyString(r.price), time: new Date(r.ts).toISOString(), source: r.source })),
      ticks_complete: before.length <= AUDIT_TICKS_MAX && after.length <= AUDIT_TICKS_MAX,
      delivery_ticks_complete: after.length <= AUDIT_TICKS_MAX,
    };
  }

  async setPeriod(adminId: number, dto: OptionPeriodDto) {
    if (money(dto.min_qty).gt(dto.max_qty) || money(dto.min_qty).lte(0)) throw new BusinessError(ErrorCode.VALIDATION, 'error.amount_invalid');
    return this.dataSource.transaction(async (m) => {
      const repo = m.getRepository(OptionPeriod);
      // Under its row lock: another operator's edit committed meanwhile is what this one is made on
      // (and what its event records as previous). A new period has no row: the unique index decides.
      const prior = await repo.findOne({ where: { seconds: dto.seconds }, lock: { mode: 'pessimistic_write' } });
      const next = repo.create({
        ...(prior ?? {}),
        seconds: dto.seconds,
        profitRatio: dto.profit_ratio,
        minQty: dto.min_qty,
        maxQty: dto.max_qty,
        feeRate: dto.fee_rate ?? prior?.feeRate ?? '0',
        enabled: dto.enabled === undefined ? (prior?.enabled ?? true) : dto.enabled === 'true' || dto.enabled === '1',
      });
      // A concurrent create of the same period: the unique index decides, and the later one is told it exists.
      const saved = await repo.save(next).catch((err: unknown) => {
        throw alreadyExists(err);
      });
      await this.events.append(m, { streamId: `option-period:${saved.id}`, metadata: { actor: `admin:${adminId}`, reason: dto.reason } }, [
        { type: 'OptionPeriodSet', payload: { ...periodView(saved), previous: prior ? periodView(prior) : null } },
      ]);
      return periodView(saved);
    });
  }
}

/** A stake's fee, win and the house's reserve (stake + win) on a period's terms; 2401 outside its range. */
function termsOf(period: OptionPeriod, stake: Money) {
  if (stake.lt(period.minQty) || stake.gt(period.maxQty)) {
    throw new BusinessError(ErrorCode.OPTION_QUANTITY_RANGE, undefined, { min: moneyString(period.minQty), max: moneyString(period.maxQty) });
  }
  const fee = money(truncate(stake.times(period.feeRate), 8));
  const win = money(truncate(stake.times(period.profitRatio), 8));
  return { fee, win, reserve: stake.plus(win) };
}

function periodView(p: OptionPeriod) {
  return {
    id: p.id,
    seconds: p.seconds,
    profit_ratio: moneyString(p.profitRatio),
    min_qty: moneyString(p.minQty),
    max_qty: moneyString(p.maxQty),
    fee_rate: moneyString(p.feeRate),
    enabled: p.enabled,
  };
}

export function orderView(o: OptionOrder, symbol: string) {
  const deliverAt = new Date(o.deliverAt);
  return {
    order_id: o.id,
    symbol,
    direction: o.direction,
    quantity: moneyString(o.quantity),
    fee: moneyString(o.fee),
    seconds: o.seconds,
    profit_ratio: moneyString(o.profitRatio),
    open_price: moneyString(o.openPrice),
    open_tick_id: o.openTickId,
    open_time: new Date(o.openTs).toISOString(),
    purchase_time: new Date(o.createdAt ?? Date.now()).toISOString(),
    deliver_at: deliverAt.toISOString(),
    remaining_seconds: o.status === 'pending' ? Math.max(0, Math.ceil((deliverAt.getTime() - Date.now()) / 1000)) : 0,
    status: o.status,
    result: o.result,
    delivery_price: o.deliveryPrice === null ? null : moneyString(o.deliveryPrice),
    delivery_tick_id: o.deliveryTickId,
    payout: o.payout === null ? null : moneyString(o.payout),
    pnl: o.pnl === null ? null : moneyString(o.pnl),
  };
}
