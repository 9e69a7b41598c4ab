import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { DataSource } from 'typeorm';
import { updateReturning } from '../../infra/database/sql';
import { EventStoreService } from '../../infra/event-store/event-store.service';
import { QueuesService } from '../../infra/queue/queues.service';
import { moneyString, units, unitsString } from '../../infra/money';
import { EngineBus } from '../engine/engine-bus';
import { EngineHost } from '../engine/engine-host.service';
import type { Leg } from '../engine/sequencer/commands';
import { coinLeg, systemLeg, TradeAccountCommands } from '../engine/trade-account-commands';
import { LedgerCode, SYSTEM_OWNER_ID } from '../ledger/ledger-codes';
import { LedgerService } from '../ledger/ledger.service';
import { UserMessageService } from '../notice/user-message.service';
import { Coin } from '../reference/coin.entity';
import { allocate } from './allocation';
import { IeoProject } from './ieo-project.entity';
import { IeoSubscription } from './ieo-subscription.entity';
import { NewcoinService } from './newcoin.service';

const QUEUE = 'ieo-allocation';
const SWEEP_MS = 5000;
/** The job runs this long after the window's end. */
const GRACE_MS = 500;

/** The issuer's account of a project: its supply (funded from `external`) and its proceeds. Owned by the database. */
export const issuerLeg = (projectId: number, currencyId: number, code: LedgerCode, available: string) => ({
  ownerType: 'system' as const,
  ownerId: projectId,
  accountType: 'ieo' as const,
  currencyId,
  code,
  available,
});

/** The sequencer posting that settles one subscription: refund, payment kept, new coin credited. */
export function settlementPosting(s: IeoSubscription, p: IeoProject) {
  const legs: Leg[] = [];
  const refund = moneyString(s.refund!);
  const paid = moneyString(s.paid!);
  const allocation = moneyString(s.allocation!);
  if (units(refund) > 0n) legs.push(coinLeg(s.userId, p.currencyId, LedgerCode.Unfreeze, refund, `-${refund}`));
  if (units(paid) > 0n) {
    legs.push(coinLeg(s.userId, p.currencyId, LedgerCode.NewCoinSubscription, '0', `-${paid}`));
    legs.push({ ...issuerLeg(p.id, p.currencyId, LedgerCode.NewCoinSubscription, paid), frozen: '0' });
  }
  if (units(allocation) > 0n) {
    legs.push(systemLeg('transit', p.coinId, LedgerCode.NewCoinSubscription, `-${allocation}`));
    legs.push(coinLeg(s.userId, p.coinId, LedgerCode.NewCoinSubscription, allocation));
  }
  return { commandId: `ieo-settle:${s.id}`, refType: 'ieo-settlement', refId: s.id, actor: 'system:ieo-allocation', memo: `ieo ${p.id}`, legs };
}

/**
 * The end of a subscription window, as a BullMQ job (one delayed job per project end, plus a
 * periodic sweep), in steps that each check where the last run stopped, so a job run twice, or
 * rerun after a crash at any point, has one effect:
 *  1. close: `open → ended` (under the row lock every subscription takes: none comes in after);
 *  2. resolve subscriptions whose freeze had no recorded answer (resent: same command id);
 *  3. allocate (`ended → allocated`, one transaction): the allocations and the published totals
 *     are written, and the allocated coins move from the issuer's account to `transit`;
 *  4. settle each subscription with one sequencer posting, command id `ieo-settle:<id>`
 *     (frozen payment → refund to available + the paid part to the issuer; transit → the new
 *     coin in the user's trade account), recording `settled` from its answer;
 *  5. `allocated → distributed` once none is left.
 */
@Injectable()
export class IeoAllocationService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('IeoAllocation');
  private queue?: Queue;
  private sweeper?: NodeJS.Timeout;

  constructor(
    private readonly dataSource: DataSource,
    private readonly ledger: LedgerService,
    private readonly trading: TradeAccountCommands,
    private readonly host: EngineHost,
    private readonly events: EventStoreService,
    private readonly bus: EngineBus,
    private readonly queues: QueuesService,
    private readonly newcoin: NewcoinService,
    private readonly messages: UserMessageService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.queue = this.queues.queue(QUEUE);
    if (!this.queues.workers) return;
    const worker = this.queues.worker(QUEUE, async (job) => (job.data.projectId ? this.run(job.data.projectId) : this.runDue()));
    worker.on('failed', (job, err) => this.logger.warn(`job ${job?.id} will retry: ${err.message}`));
    this.sweeper = setInterval(() => void this.sweep().catch((err) => this.logger.warn({ err }, 'sweep failed')), SWEEP_MS);
    this.sweeper.unref();
  }

  onApplicationShutdown(): void {
    if (this.sweeper) clearInterval(this.sweeper);
  }

  /** After a project is created or its end changes: the job of its end (duplicates collapse by job id). */
  async schedule(p: Pick<IeoProject, 'id' | 'endAt'>): Promise<void> {
    const end = new Date(p.endAt).getTime();
    await this.queue!.add(
      'allocate',
      { projectId: p.id },
      {
        jobId: `ieo-${p.id}-${end}`,
        delay: Math.max(0, end + GRACE_MS - Date.now()),
        attempts: 20,
        backoff: { type: 'exponential', delay: 1000 },
        removeOnComplete: { age: 24 * 3600 },
        removeOnFail: { age: 7 * 24 * 3600 },
      },
    );
  }

  private async sweep(): Promise<void> {
    const slot = Math.floor(Date.now() / SWEEP_MS);
    await this.queue!.add('sweep', {}, { jobId: `ieo-sweep-${slot}`, attempts: 3, removeOnComplete: { age: 600 }, removeOnFail: { age: 3600 } });
  }

  /** Every project whose window has ended and that is not yet distributed. */
  async runDue(now = new Date()): Promise<void> {
    const rows: Array<{ id: number }> = await this.dataSource.query(`SELECT id FROM ieo_projects WHERE status <> 'distributed' AND end_at <= $1 ORDER BY id`, [
      now,
    ]);
    // One project's failure (logged; its own job and the next sweep try it again) does not hold back the others.
    for (const r of rows)
      await this.run(r.id, now).catch((err: unknown) => this.logger.error({ err }, `ieo ${r.id}: allocation run failed`));
  }

  /** Runs (or resumes) one project's allocation; a no-op before its end or after distribution. */
  async run(projectId: number, now = new Date()): Promise<IeoProject['status'] | undefined> {
    await this.dataSource.query(`UPDATE ieo_projects SET status = 'ended' WHERE id = $1 AND status = 'open' AND end_at <= $2`, [projectId, now]);
    let p = await this.dataSource.getRepository(IeoProject).findOne({ where: { id: projectId } });
    if (!p || p.status === 'open' || p.status === 'distributed') return p?.status;
    if (p.status === 'ended') {
      await this.resolvePending(p);
      await this.allocateProject(p.id);
      p = (await this.dataSource.getRepository(IeoProject).findOne({ where: { id: projectId } }))!;
    }
    if (p.status === 'allocated') {
      await this.settleAll(p);
      p = (await this.dataSource.getRepository(IeoProject).findOne({ where: { id: projectId } }))!;
    }
    return p.status;
  }

  /** Subscriptions whose freeze has no recorded answer: the ledger tells whether it was applied; otherwise it is resent (same id). */
  private async resolvePending(p: IeoProject): Promise<void> {
    const pending = await this.dataSource.getRepository(IeoSubscription).find({ where: { projectId: p.id, status: 'pending' } });
    if (!pending.length) return;
    const applied = await this.appliedRefs('ieo-subscription', pending, p.currencyId);
    for (const s of pending) {
      if (applied.has(s.id)) await this.dataSource.query(`UPDATE ieo_subscriptions SET status = 'active' WHERE id = $1 AND status = 'pending'`, [s.id]);
      else await this.newcoin.freeze(s, p.currencyId);
    }
  }

  /**
   * Which of these subscriptions' postings the projector has written (it waits for the projector
   * to catch up first). Each such posting has a leg on the user's trade account in the purchase
   * currency, so the account index finds it.
   */
  private async appliedRefs(refType: string, subs: IeoSubscription[], currencyId: number): Promise<Set<string>> {
    await this.host.idle();
    const rows: Array<{ ref_id: string }> = await this.dataSource.query(
      `SELECT DISTINCT e.ref_id FROM ledger_entries e JOIN unnest($2::int[], $3::text[]) v(uid, rid)
         ON e.owner_type = 'user' AND e.owner_id = v.uid AND e.currency_id = $4 AND e.ref_type = $1 AND e.ref_id = v.rid`,
      [refType, subs.map((s) => s.userId), subs.map((s) => s.id), currencyId],
    );
    return new Set(rows.map((r) => r.ref_id));
  }

  private async allocateProject(projectId: number): Promise<void> {
    await this.dataSource.transaction(async (m) => {
      const [row] = await m.query('SELECT status FROM ieo_projects WHERE id = $1 FOR UPDATE', [projectId]);
      if (row?.status !== 'ended') return;
      const p = (await m.getRepository(IeoProject).findOne({ where: { id: projectId } }))!;
      const coin = (await m.getRepository(Coin).findOne({ where: { id: p.coinId } }))!;
      const subs = await m.getRepository(IeoSubscription).find({ where: { projectId, status: 'active' }, order: { id: 'ASC' } });
      if ((await m.getRepository(IeoSubscription).count({ where: { projectId, status: 'pending' } })) > 0)
        throw new Error(`ieo ${projectId}: subscriptions still pending`);
      const outcome = allocate(
        subs.map((s) => ({ id: s.id, quantity: units(s.quantity), payment: units(s.payment) })),
        units(p.supply),
        units(p.price),
        coin.displayDecimals,
      );
      if (outcome.rows.length) {
        await m.query(
          `UPDATE ieo_subscriptions s SET allocation = v.a, paid = v.p, refund = v.r FROM unnest($1::bigint[], $2::numeric[], $3::numeric[], $4::numeric[]) v(id, a, p, r) WHERE s.id = v.id`,
          [
            outcome.rows.map((x) => x.id),
            outcome.rows.map((x) => unitsString(x.allocation)),
            outcome.rows.map((x) => unitsString(x.paid)),
            outcome.rows.map((x) => unitsString(x.refund)),
          ],
        );
      }
      if (outcome.allocated > 0n) {
        const total = unitsString(outcome.allocated);
        // The allocated coins leave the issuer's account for `transit`, from where each settlement posting takes its share.
        await this.ledger.post(
          {
            commandId: `ieo-allocate:${projectId}`,
            refType: 'ieo',
            refId: String(projectId),
            actor: 'system:ieo-allocation',
            memo: 'allocated supply to transit',
            movements: [
              issuerLeg(projectId, p.coinId, LedgerCode.NewCoinSubscription, `-${total}`),
              {
                ownerType: 'system',
                ownerId: SYSTEM_OWNER_ID,
                accountType: 'transit',
                currencyId: p.coinId,
                code: LedgerCode.NewCoinSubscription,
                available: total,
              },
            ],
          },
          m,
        );
      }
      const totals = {
        requested: unitsString(outcome.requested),
        allocated: unitsString(outcome.allocated),
        remainder: unitsString(outcome.remainder),
        ratio: unitsString(outcome.ratio),
        payments: unitsString(outcome.payments),
        refunded: unitsString(outcome.refunded),
        proceeds: unitsString(outcome.proceeds),
      };
      await m.query(
        `UPDATE ieo_projects SET status = 'allocated', requested = $2, allocated = $3, remainder = $4, ratio = $5, payments = $6, refunded = $7, proceeds = $8, subscribers = $9, allocated_at = now() WHERE id = $1`,
        // Subscribers are people: one user may subscribe several times.
        [projectId, totals.requested, totals.allocated, totals.remainder, totals.ratio, totals.payments, totals.refunded, totals.proceeds, new Set(subs.map((s) => s.userId)).size],
      );
      await this.events.append(m, { streamId: `ieo:${projectId}`, metadata: { actor: 'system:ieo-allocation' } }, [
        { type: 'IeoAllocated', payload: { projectId, supply: p.supply, subscriptions: subs.length, ...totals } },
      ]);
      if (outcome.remainder > 0n) this.logger.log(`ieo ${projectId}: ${totals.remainder} lost to truncation stays with the issuer`);
    });
  }

  /** Test hook: called after each subscription's settlement is recorded (a crash can be injected here). */
  afterSettle?: (subscriptionId: string) => void;

  private async settleAll(p: IeoProject): Promise<void> {
    const open = await this.dataSource.getRepository(IeoSubscription).find({ where: { projectId: p.id, status: 'active' }, order: { id: 'ASC' } });
    // A rerun: what the sequencer applied but the last run did not record is recorded from the ledger, not resent.
    const applied = open.length ? await this.appliedRefs('ieo-settlement', open, p.currencyId) : new Set<string>();
    const users = new Set<number>();
    for (const s of open) {
      let result = 'OK applied';
      if (!applied.has(s.id)) {
        const r = await this.trading.post(settlementPosting(s, p));
        // The frozen payment covers it and transit holds the allocation: a refusal is a bug, never skipped.
        if (r.code !== 'OK') throw new Error(`ieo settlement ${s.id} refused: ${r.code}`);
        result = r.duplicate ? 'OK duplicate' : 'OK';
      }
      await this.dataSource.transaction(async (m) => {
        const changed = await updateReturning(
          m,
          `UPDATE ieo_subscriptions SET status = 'settled', settle_result = $2, settled_at = now() WHERE id = $1 AND status = 'active' RETURNING id`,
          [s.id, result],
        );
        // The owner's message is written with the recorded settlement: once per subscription.
        if (changed.length) {
          const [coin, currency] = await Promise.all([p.coinId, p.currencyId].map((id) => m.getRepository(Coin).findOneOrFail({ where: { id } })));
          await this.messages.leave(
            m,
            s.userId,
            'notice.ieo_allocated',
            {
              name: coin.symbol,
              allocation: moneyString(s.allocation ?? '0'),
              coin: coin.symbol,
              refund: moneyString(s.refund ?? '0'),
              currency: currency.symbol,
            },
            `ieo:${s.id}`,
          );
        }
      });
      users.add(s.userId);
      this.afterSettle?.(s.id);
    }
    await this.dataSource.transaction(async (m) => {
      const [row] = await m.query('SELECT status FROM ieo_projects WHERE id = $1 FOR UPDATE', [p.id]);
      if (row?.status !== 'allocated') return;
      const [{ left }] = await m.query(`SELECT COUNT(*)::int AS left FROM ieo_subscriptions WHERE project_id = $1 AND status = 'active'`, [p.id]);
      if (left > 0) return;
      await m.query(`UPDATE ieo_projects SET status = 'distributed', distributed_at = now() WHERE id = $1`, [p.id]);
      await this.events.append(m, { streamId: `ieo:${p.id}`, metadata: { actor: 'system:ieo-allocation' } }, [
        { type: 'IeoDistributed', payload: { projectId: p.id } },
      ]);
    });
    for (const u of users) this.bus.emit('balance', u);
  }
}
