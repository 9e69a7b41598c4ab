import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { DataSource, EntityManager } from 'typeorm';
import { EventStoreService } from '../../infra/event-store/event-store.service';
import { BusinessError } from '../../infra/http/business-error';
import { ErrorCode } from '../../infra/http/error-codes';
import { Money, money, moneyString } from '../../infra/money';
import { QueuesService } from '../../infra/queue/queues.service';
import { EngineBus } from '../engine/engine-bus';
import { LedgerCode, SYSTEM_OWNER_ID } from '../ledger/ledger-codes';
import { LedgerService, Movement } from '../ledger/ledger.service';
import { WealthOrder } from './wealth-order.entity';
import { releaseCapacity } from './wealth-products.service';
import { epochDay, FLEXIBLE_RESERVE_DAYS, interestForDay } from './wealth-terms';

const QUEUE = 'wealth-accrual';
const CHUNK = 500;

export const trust = (userId: number, currencyId: number, code: LedgerCode, available: string, frozen = '0'): Movement => ({
  ownerType: 'user',
  ownerId: userId,
  accountType: 'trust',
  currencyId,
  code,
  available,
  frozen,
});
export const treasury = (currencyId: number, code: LedgerCode, available: string, frozen = '0'): Movement => ({
  ownerType: 'system',
  ownerId: SYSTEM_OWNER_ID,
  accountType: 'treasury',
  currencyId,
  code,
  available,
  frozen,
});

/**
 * Daily interest and maturity, as a BullMQ repeatable job at 00:00 UTC (plus one run at start, so
 * downtime is caught up). The clock is the job's argument, never the ledger's. For each order, one
 * transaction under its row lock credits every unpaid day before `now`'s day (interest for day d is
 * credited from 00:00 UTC of d + 1), each with the command id `wealth-interest:<order>:<day>`, and
 * advances `paid_days`; a second run, a late run or a concurrent one therefore pays each day once.
 */
@Injectable()
export class WealthAccrualService implements OnApplicationBootstrap {
  private readonly logger = new Logger('WealthAccrual');
  private queue?: Queue;

  constructor(
    private readonly dataSource: DataSource,
    private readonly ledger: LedgerService,
    private readonly events: EventStoreService,
    private readonly bus: EngineBus,
    private readonly queues: QueuesService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.queues.workers) return;
    this.queue = this.queues.queue(QUEUE);
    const worker = this.queues.worker(QUEUE, async () => this.accrue(new Date()));
    worker.on('failed', (job, err) => this.logger.warn(`accrual job ${job?.id} failed: ${err.message}`));
    await this.queues.keepScheduler(
      this.queue,
      'daily',
      { pattern: '0 0 * * *', tz: 'UTC' },
      { name: 'accrue', opts: { attempts: 10, backoff: { type: 'exponential', delay: 5000 } } },
    );
    // Catch up whatever a stop left unpaid.
    await this.queue.add('accrue', {}, { jobId: `catch-up-${Date.now()}`, removeOnComplete: true, removeOnFail: { age: 86_400 } });
  }

  /** Credits every due day and matures every due order as of `now`. */
  async accrue(now: Date): Promise<{ orders: number; days: number; matured: number }> {
    const today = epochDay(now);
    const total = { orders: 0, days: 0, matured: 0 };
    let failed = 0;
    let after = '0';
    for (;;) {
      const rows: Array<{ id: string }> = await this.dataSource.query(
        `SELECT id::text FROM wealth_orders
         WHERE status = 'hosting' AND id > $1 AND (start_day + paid_days < $2 OR (end_at IS NOT NULL AND end_at <= $3))
         ORDER BY wealth_orders.id LIMIT $4`,
        [after, today, now, CHUNK],
      );
      for (const r of rows) {
        const done = await this.settle(r.id, now).catch((err: unknown) => {
          this.logger.warn(`order ${r.id}: ${err instanceof Error ? err.message : String(err)}`);
          failed += 1;
          return { days: 0, matured: false };
        });
        total.orders += 1;
        total.days += done.days;
        if (done.matured) total.matured += 1;
      }
      if (rows.length < CHUNK) break;
      after = rows[rows.length - 1].id;
    }
    // The others are up to date; the run fails so that the queue runs it again (each day is paid
    // once, so a rerun pays only what is still due), not a day later at the next midnight.
    if (failed) throw new Error(`${failed} of ${total.orders} wealth orders could not be brought up to date: the run is retried`);
    return total;
  }

  /** One order brought up to date as of `now`. */
  async settle(orderId: string, now: Date): Promise<{ days: number; matured: boolean }> {
    const first = await this.dataSource.getRepository(WealthOrder).findOne({ where: { id: orderId } });
    if (first?.kind === 'flexible' && first.status === 'hosting') await this.topUp(first, now);
    const out = await this.dataSource.transaction((m) => this.settleIn(m, orderId, now));
    if (out.days || out.matured) this.bus.emit('balance', out.userId);
    return out;
  }

  /** Inside the caller's transaction: locks the order, pays its due days, matures it when due. */
  async settleIn(m: EntityManager, orderId: string, now: Date): Promise<{ days: number; matured: boolean; userId: number }> {
    const o = await m.getRepository(WealthOrder).findOne({ where: { id: orderId }, lock: { mode: 'pessimistic_write' } });
    if (!o || o.status !== 'hosting') return { days: 0, matured: false, userId: o?.userId ?? 0 };
    const today = epochDay(now);
    const lastDue = o.kind === 'flexible' ? today - 1 : Math.min(today - 1, o.startDay + o.days - 1);
    let reserve = money(o.reserve);
    let earned = money(o.earned);
    let paid = o.paidDays;
    for (let day = o.startDay + paid; day <= lastDue; day++) {
      const x = interestForDay(o, paid);
      if (money(x).gt(reserve)) break; // flexible only: wait for the reserve's next top-up
      if (money(x).gt(0)) {
        await this.ledger.post(
          {
            commandId: `wealth-interest:${o.id}:${day}`,
            refType: 'wealth',
            refId: o.id,
            actor: 'system:wealth-accrual',
            memo: `interest day ${new Date(day * 86_400_000).toISOString().slice(0, 10)}`,
            movements: [treasury(o.currencyId, LedgerCode.WealthInterest, '0', `-${x}`), trust(o.userId, o.currencyId, LedgerCode.WealthInterest, x)],
          },
          m,
        );
      }
      reserve = reserve.minus(x);
      earned = earned.plus(x);
      paid += 1;
    }
    const days = paid - o.paidDays;
    const matured = o.kind !== 'flexible' && paid >= o.days && o.endAt !== null && new Date(o.endAt).getTime() <= now.getTime();
    if (matured) {
      const a = moneyString(o.amount);
      const movements = [trust(o.userId, o.currencyId, LedgerCode.LockReturn, a, `-${a}`)];
      // Fixed terms reserve exactly what they pay: anything left (none, unless an edit) goes back.
      if (reserve.gt(0)) movements.push(treasury(o.currencyId, LedgerCode.Unfreeze, moneyString(reserve), `-${moneyString(reserve)}`));
      await this.ledger.post({ commandId: `wealth-mature:${o.id}`, refType: 'wealth', refId: o.id, actor: 'system:wealth-accrual', movements }, m);
      await releaseCapacity(m, o.productId, a);
      reserve = money(0);
    }
    if (days || matured) {
      await m.getRepository(WealthOrder).update(
        { id: o.id },
        {
          paidDays: paid,
          reserve: moneyString(reserve),
          earned: moneyString(earned),
          ...(matured ? { status: 'completed' as const, closedAt: now } : {}),
        },
      );
      await this.events.append(m, { streamId: `wealth-order:${o.id}`, metadata: { actor: 'system:wealth-accrual' } }, [
        { type: matured ? 'WealthOrderMatured' : 'WealthInterestCredited', payload: { orderId: o.id, paidDays: paid, earned: moneyString(earned) } },
      ]);
    }
    return { days, matured, userId: o.userId };
  }

  /**
   * Before an early redemption (its settlement, in the redemption's transaction, is the order's
   * last): a flexible order's reserve topped up to what its waiting days need, as settle() tops it
   * up before the daily settlement; this may be more than the window, after a long shortage. Its
   * own command id, so a daily top-up of the same day cannot mask it. The waiting days are counted
   * from the row read under the lock: `o` was read before it, and a daily run may have topped the
   * order up or paid days since. If the treasury still cannot, the redemption pays what the reserve covers.
   */
  async topUpOwed(o: WealthOrder, now: Date): Promise<void> {
    if (o.kind !== 'flexible' || o.status !== 'hosting') return;
    await this.topUp(o, now, (r) => Math.max(0, epochDay(now) - r.startDay - r.paidDays), ':redeem');
  }

  /**
   * The flexible fund has no end, so its interest is reserved a rolling window ahead
   * (FLEXIBLE_RESERVE_DAYS days): each run tops the reserve back up from the treasury. If the
   * treasury cannot, it reserves the whole days it can; the order keeps earning from what is
   * reserved and the unpaid days wait (the rest of this top-up's command id is the next day's or
   * the next paid day's).
   * Exactly once: what to add is computed under the order's row lock from the locked row, and the
   * reserve moves in the same transaction as the posting. For one command id (one day, one
   * `paid_days`) the need is fixed and the reserve only grows until a day is paid, so once a
   * top-up of that id committed, the next computes nothing to add. `o` (read before the lock)
   * only spares the lock when it needs nothing (a redemption's need under the lock is never more;
   * a window emptied meanwhile is the next run's).
   */
  private async topUp(o: WealthOrder, now: Date, daysOf: (r: WealthOrder) => number = () => FLEXIBLE_RESERVE_DAYS, tag = ''): Promise<void> {
    const need = (r: WealthOrder) => money(r.dailyInterest).times(daysOf(r)).minus(r.reserve);
    if (need(o).lte(0)) return;
    try {
      await this.dataSource.transaction(async (m) => {
        const locked = await m.getRepository(WealthOrder).findOne({ where: { id: o.id }, lock: { mode: 'pessimistic_write' } });
        if (!locked || locked.status !== 'hosting') return;
        const want = need(locked);
        if (want.lte(0)) return;
        // A treasury short of the whole window still reserves the whole days it can (regression: a
        // cent short, it reserved none and every day waited for the operator). Read under its lock,
        // which the posting below takes anyway.
        const [row] = await m.query(
          `SELECT available::text AS available FROM balances WHERE owner_type = 'system' AND owner_id = $1 AND account_type = 'treasury' AND currency_id = $2 FOR UPDATE`,
          [SYSTEM_OWNER_ID, o.currencyId],
        );
        const daily = money(locked.dailyInterest);
        const affordable = daily.gt(0)
          ? money(row?.available ?? '0')
              .div(daily)
              .floor()
              .times(daily)
          : want;
        const x = moneyString(Money.min(want, affordable));
        if (money(x).lte(0)) throw new BusinessError(ErrorCode.INSUFFICIENT_BALANCE);
        const posted = await this.ledger.post(
          {
            commandId: `wealth-topup:${o.id}:${epochDay(now)}:${locked.paidDays}${tag}`,
            refType: 'wealth',
            refId: o.id,
            actor: 'system:wealth-accrual',
            movements: [treasury(o.currencyId, LedgerCode.Freeze, `-${x}`, x)],
          },
          m,
        );
        if (!posted.duplicate) await m.getRepository(WealthOrder).update({ id: o.id }, { reserve: moneyString(money(locked.reserve).plus(x)) });
      });
    } catch (err) {
      if (!(err instanceof BusinessError && err.code === ErrorCode.INSUFFICIENT_BALANCE)) throw err;
      this.logger.warn(`flexible order ${o.id}: the treasury cannot top up its interest reserve`);
    }
  }
}
