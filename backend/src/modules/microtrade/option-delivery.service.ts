import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { Job, Queue } from 'bullmq';
import { DataSource, IsNull } from 'typeorm';
import { QueuesService } from '../../infra/queue/queues.service';
import { updateReturning } from '../../infra/database/sql';
import { money, moneyString } from '../../infra/money';
import { EngineBus } from '../engine/engine-bus';
import { MarketRegistry } from '../engine/market-registry.service';
import { LedgerCode, SYSTEM_OWNER_ID } from '../ledger/ledger-codes';
import { LedgerService, Movement, Posting } from '../ledger/ledger.service';
import { NewMessage, UserMessageService } from '../notice/user-message.service';
import { OptionOrder, OptionResult } from './option-order.entity';
import { orderView } from './microtrade.service';

const QUEUE = 'option-delivery';
/** A delivery job runs this long after its second, so the sampler has recorded the tick at or after it. */
const GRACE_MS = 1200;
const CHUNK = 2000;
const SWEEP_MS = 5000;

interface Due {
  id: string;
  user_id: number;
  direction: 'up' | 'down';
  quantity: string;
  profit_ratio: string;
  open_price: string;
  /** What the purchase froze (null: an order bought when only the win was frozen). */
  reserve: string | null;
  /** The delivery sample; null for an option no sample came for (void, STRANDED_AFTER_MS). */
  tick_id: string | null;
  tick_price: string | null;
  tick_ts: Date | null;
  deliver_at: Date;
  market_id: number;
}

/**
 * The options a job must see settled before it completes: a delivery job, those of its second
 * (it runs GRACE_MS after the second's end, when their tick is recorded); a sweep, those due more
 * than a second plus GRACE_MS ago. Found by the chaos run's queue flood: with options bought every
 * moment, some option is always due with its tick a fraction of a second away, so every job
 * waited for it, failed and was retried (5,000 jobs took minutes to drain; sweeps ended failed).
 */
export function tickDueBy(job: Pick<Job, 'name' | 'data'>, now = Date.now()): Date {
  const second = Number((job.data as { second?: unknown } | undefined)?.second);
  return job.name === 'deliver' && Number.isFinite(second) ? new Date(second * 1000 + 999) : new Date(now - 1000 - GRACE_MS);
}

/**
 * An option whose delivery sample came more than this after its delivery time (sampling paused:
 * an engine failover, `MARK_PRICE=off`) is void and its stake returned: a late price is not the
 * one bought, and whoever runs the sampler could otherwise choose when it resumes.
 */
export const DELIVERY_LATE_MS = 5000;

/**
 * An option that no sample has come for this long after its delivery time (its market stopped
 * being sampled: disabled, or the sampler off for good) is void without one, its stake returned:
 * any sample that still came would be late (DELIVERY_LATE_MS), so the result is the same, only
 * not held up forever. The margin beyond DELIVERY_LATE_MS covers a sample stamped in time whose
 * insert is slow to commit: the sampler writes no sample older than SAMPLE_STALE_MS when its
 * insert runs and the server cancels an insert after TICK_INSERT_MS (mark-price.service.ts).
 */
export const STRANDED_AFTER_MS = 60_000;

/**
 * The result is a pure function of the two recorded ticks and the delivery time (DESIGN §1):
 * `void` when the delivery tick is late, else the direction of the price.
 */
export function optionResult(openPrice: string, delivery: { price: string; ts: Date }, deliverAt: Date): OptionResult {
  if (delivery.ts.getTime() - deliverAt.getTime() > DELIVERY_LATE_MS) return 'void';
  const c = money(delivery.price).comparedTo(openPrice);
  return c > 0 ? 'up' : c < 0 ? 'down' : 'flat';
}

/**
 * Delivers options as BullMQ jobs: one delayed job per delivery second (job id `deliver-<s>`, so
 * duplicates collapse) plus a periodic sweep. A job settles every option that is due, set-based:
 * the conditional `pending → delivered` update is the guard (a duplicated or retried job pays
 * once), and the payouts are one ledger batch with per-order command ids. The owner is pushed the
 * result after the commit; `pushed_at` makes a retry push what a crash left unpushed.
 */
@Injectable()
export class OptionDeliveryService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('OptionDelivery');
  private queue?: Queue;
  private sweeper?: NodeJS.Timeout;

  constructor(
    private readonly dataSource: DataSource,
    private readonly ledger: LedgerService,
    private readonly registry: MarketRegistry,
    private readonly bus: EngineBus,
    private readonly queues: QueuesService,
    private readonly messages: UserMessageService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.queue = this.queues.queue(QUEUE);
    if (!this.queues.workers) return;
    const worker = this.queues.worker(QUEUE, async (job) => this.deliverDue(new Date(), tickDueBy(job)));
    worker.on('failed', (job, err) => this.logger.debug(`job ${job?.id} will retry: ${err.message}`));
    // A safety net for anything a lost job left behind (e.g. Redis restarted without persistence).
    this.sweeper = setInterval(() => void this.sweep().catch((err) => this.logger.warn({ err }, 'sweep failed')), SWEEP_MS);
    this.sweeper.unref();
    await this.sweep();
  }

  onApplicationShutdown(): void {
    if (this.sweeper) clearInterval(this.sweeper);
  }

  /**
   * Called after a purchase has committed: queues the job of its delivery second (one per second,
   * however many orders) and never fails the purchase. Without Redis the job is not queued, and the
   * purchase stands: the sweep delivers every due option once the queue is back.
   */
  schedule(deliverAt: Date): void {
    const second = Math.floor(deliverAt.getTime() / 1000);
    this.queue!.add(
      'deliver',
      { second },
      {
        jobId: `deliver-${second}`,
        delay: Math.max(0, second * 1000 + 1000 + GRACE_MS - Date.now()),
        attempts: 30,
        backoff: { type: 'fixed', delay: 1000 },
        removeOnComplete: { age: 3600 },
        removeOnFail: { age: 24 * 3600 },
      },
    ).catch((err: unknown) => this.logger.warn({ err, second }, 'delivery job not queued: the sweep delivers it'));
  }

  private async sweep(): Promise<void> {
    const slot = Math.floor(Date.now() / SWEEP_MS);
    await this.queue!.add(
      'sweep',
      {},
      { jobId: `sweep-${slot}`, attempts: 3, backoff: { type: 'fixed', delay: 1000 }, removeOnComplete: { age: 600 }, removeOnFail: { age: 3600 } },
    );
  }

  /**
   * Settles every due option whose delivery tick is recorded. Throws (so BullMQ retries) while
   * some option due at or before `tickDueBy` still waits for its tick; options due after it (a
   * later second's, whose tick the sampler may not have recorded yet) are settled if their tick is
   * there, else left to their own job.
   */
  async deliverDue(now = new Date(), tickDueBy = now): Promise<{ settled: number; waiting: number }> {
    await this.pushUnpushed();
    let settled = 0;
    for (;;) {
      const due: Due[] = await this.dataSource.query(
        `SELECT o.id::text, o.user_id, o.market_id, o.direction, o.quantity::text, o.profit_ratio::text, o.open_price::text, o.reserve::text, o.deliver_at, t.id::text AS tick_id, t.price::text AS tick_price, t.ts AS tick_ts
         FROM option_orders o
         LEFT JOIN LATERAL (SELECT id, price, ts FROM mark_prices WHERE market_id = o.market_id AND ts >= o.deliver_at AND source = 'sample' ORDER BY ts, id LIMIT 1) t ON true
         WHERE o.status = 'pending' AND o.deliver_at <= $1 AND (t.id IS NOT NULL OR o.deliver_at <= $3) ORDER BY o.id LIMIT $2`,
        [now, CHUNK, new Date(now.getTime() - STRANDED_AFTER_MS)],
      );
      if (!due.length) break;
      settled += await this.settle(due);
      await this.pushUnpushed();
      if (due.length < CHUNK) break;
    }
    const [{ waiting }] = await this.dataSource.query(`SELECT COUNT(*)::int AS waiting FROM option_orders WHERE status = 'pending' AND deliver_at <= $1`, [
      tickDueBy < now ? tickDueBy : now,
    ]);
    if (waiting > 0) throw new Error(`${waiting} due option(s) wait for their delivery tick`);
    return { settled, waiting };
  }

  /** One transaction for a chunk: the guarded status update, then the payouts of exactly the rows it changed. */
  private async settle(due: Due[]): Promise<number> {
    const outcome = due.map((d) => {
      const result = d.tick_id === null ? 'void' : optionResult(d.open_price, { price: d.tick_price!, ts: new Date(d.tick_ts!) }, new Date(d.deliver_at));
      const stake = money(d.quantity);
      const win = money(stake.times(d.profit_ratio).toDecimalPlaces(8, 1));
      const won = result === d.direction;
      // Flat and void return the stake (the purchase fee stays paid, as for flat).
      const payout = won ? stake.plus(win) : result === 'flat' || result === 'void' ? stake : money(0);
      return { d, result, stake, reserve: d.reserve === null ? win : money(d.reserve), payout, pnl: payout.minus(stake) };
    });
    return this.dataSource.transaction(async (m) => {
      const changed = await updateReturning<{ id: string }>(
        m,
        `UPDATE option_orders o SET status = 'delivered', result = v.result, delivery_tick_id = v.tick_id, delivery_price = v.price, delivery_ts = v.ts, payout = v.payout, pnl = v.pnl,
           void_after_ms = ${DELIVERY_LATE_MS}
         FROM unnest($1::bigint[], $2::varchar[], $3::bigint[], $4::numeric[], $5::timestamptz[], $6::numeric[], $7::numeric[]) v(id, result, tick_id, price, ts, payout, pnl)
         WHERE o.id = v.id AND o.status = 'pending' RETURNING o.id::text`,
        [
          outcome.map((o) => o.d.id),
          outcome.map((o) => o.result),
          outcome.map((o) => o.d.tick_id),
          outcome.map((o) => o.d.tick_price),
          outcome.map((o) => o.d.tick_ts),
          outcome.map((o) => moneyString(o.payout)),
          outcome.map((o) => moneyString(o.pnl)),
        ],
      );
      const ids = new Set(changed.map((r) => r.id));
      const postings: Posting[] = outcome
        .filter((o) => ids.has(o.d.id))
        .map((o) => {
          const r = moneyString(o.reserve);
          // The reserve made at purchase is released; then whatever is owed is paid from the house.
          const movements: Movement[] = [
            { ownerType: 'system', ownerId: SYSTEM_OWNER_ID, accountType: 'treasury', currencyId: 3, code: LedgerCode.Unfreeze, frozen: `-${r}`, available: r },
          ];
          if (o.payout.gt(0)) {
            const p = moneyString(o.payout);
            movements.push(
              { ownerType: 'system', ownerId: SYSTEM_OWNER_ID, accountType: 'treasury', currencyId: 3, code: LedgerCode.EtfIncrease, available: `-${p}` },
              { ownerType: 'user', ownerId: o.d.user_id, accountType: 'option', currencyId: 3, code: LedgerCode.EtfIncrease, available: p },
            );
          }
          return {
            commandId: `option-deliver:${o.d.id}`,
            refType: 'option',
            refId: o.d.id,
            actor: 'system:option-delivery',
            memo: o.d.tick_id === null ? `${o.result}: no sample` : `${o.result} tick ${o.d.tick_id}`,
            movements,
          };
        });
      const results = await this.ledger.postBatch(postings, m);
      const failed = results.find((r) => !r.ok);
      // The reserve (stake + win) covers every payout, so this cannot happen; if it does, nothing of the chunk commits.
      if (failed && !failed.ok) throw failed.error;
      // One message per delivered option, in the same transaction as its settlement.
      await this.messages.leaveMany(
        m,
        outcome
          .filter((o) => ids.has(o.d.id))
          .map((o): NewMessage => {
            const common = {
              symbol: this.registry.symbolOf(o.d.market_id),
              quantity: moneyString(o.stake),
              payout: moneyString(o.payout),
            };
            const told =
              o.result === 'void'
                ? { kind: 'notice.option_void' as const, params: { ...common, seconds: String(DELIVERY_LATE_MS / 1000) } }
                : { kind: 'notice.option_settled' as const, params: { ...common, price: moneyString(o.d.tick_price!), pnl: moneyString(o.pnl) } };
            return { userId: o.d.user_id, ...told, ref: `option:${o.d.id}` };
          }),
      );
      return ids.size;
    });
  }

  /** Tells owners about delivered options not yet pushed, then marks them. */
  private async pushUnpushed(): Promise<void> {
    const rows = await this.dataSource
      .getRepository(OptionOrder)
      .find({ where: { status: 'delivered', pushedAt: IsNull() }, take: CHUNK, order: { id: 'ASC' } });
    if (!rows.length) return;
    for (const o of rows) {
      const v = orderView(o, this.registry.symbolOf(o.marketId));
      this.bus.emit('option', {
        userId: o.userId,
        data: {
          order_id: v.order_id,
          symbol: v.symbol,
          direction: v.direction,
          quantity: v.quantity,
          open_price: v.open_price,
          open_tick_id: v.open_tick_id,
          delivery_price: v.delivery_price,
          delivery_tick_id: v.delivery_tick_id,
          result: v.result,
          payout: v.payout,
          pnl: v.pnl,
        },
      });
      this.bus.emit('balance', o.userId);
    }
    await this.dataSource.query('UPDATE option_orders SET pushed_at = now() WHERE id = ANY($1::bigint[])', [rows.map((o) => o.id)]);
  }
}
