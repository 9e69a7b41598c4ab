import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { DataSource, EntityManager } from 'typeorm';
import { money, moneyString } from '../../infra/money';
import { QueuesService } from '../../infra/queue/queues.service';
import { EngineBus } from '../engine/engine-bus';
import { OutboxRelay } from '../engine/outbox-relay.service';
import { coinLeg, systemLeg } from '../engine/trade-account-commands';
import { LedgerCode, SYSTEM_OWNER_ID } from '../ledger/ledger-codes';
import { LedgerService } from '../ledger/ledger.service';
import { UserMessageService } from '../notice/user-message.service';
import { PromotionSettingsService } from './promotion-settings.service';
import { rebateOf } from './promotion-terms';

const QUEUE = 'promotion-rebates';
/** Ledger ids read per accrual step (ids step by 8 since CompactTradeLedger: ~20,000 entries or trades). */
const WINDOW = 160_000;
/**
 * Each accrual over `ledger_entries` re-reads from where its cursor stood this long ago
 * (`promotion_cursor_marks`): an entry whose transaction got its id before a later one but
 * committed after the cursor passed is still seen, unless it committed more than this after taking
 * its id (the unique source index makes the re-read harmless). A time, not a count of ids: the
 * projector's id reservations pass any fixed count in moments under load.
 */
export const OVERLAP_SECONDS = 600;
/** The re-read before any mark exists (the first runs): this many ids below the cursor. */
const OVERLAP_IDS = 80_000;
const CHUNK = 200;
/** How often accrual runs. */
const ACCRUE_EVERY_MS = 10_000;

/** The invitee's fee legs that earn a rebate: spot (601 on the trade account), contract (21), option (401). */
const FEE_LEGS = [
  { kind: 'spot', code: LedgerCode.CoinTradeFee, account: 'coin' },
  { kind: 'contract', code: LedgerCode.LeverageFee, account: 'lever' },
  { kind: 'option', code: LedgerCode.EtfFee, account: 'option' },
] as const;

/**
 * A fee leg and who paid it, as both sources give it: `invitee` joins `users` for the inviter. Only
 * a fee paid since the link (`f.at` from `invited_at`: a user who bound an authorization code later
 * earns the partner nothing on the fees before; one invited at registration has `invited_at` null).
 */
const FEE_ROWS = (legs: string) => `SELECT f.id::text, f.invitee, u.inviter_id AS inviter, f.account, f.currency, f.fee::text AS fee, COALESCE(p.partner, false) AS partner
  FROM (${legs}) f
  JOIN users u ON u.id = f.invitee
  LEFT JOIN promotion_partners p ON p.user_id = u.inviter_id
  WHERE f.id > $1 AND f.id <= $2 AND u.inviter_id IS NOT NULL AND (u.invited_at IS NULL OR f.at >= u.invited_at)
    AND NOT EXISTS (SELECT 1 FROM promotion_rebates r WHERE r.source_entry = f.id)
  ORDER BY f.id`;

/**
 * Where fees are read, each with its own cursor (`promotion_cursor.id`) over ledger ids (ids
 * step by 8 since CompactTradeLedger):
 * - the `ledger_entries` rows: contract and option fees, and spot fees projected before that
 *   migration. Its writers commit in any order, so each run re-reads OVERLAP ids below its cursor;
 * - a spot trade's fee legs, in the trade's row (the view `ledger` shows them as ids
 *   `ledger_id + 4` for the buyer, `+ 5` for the seller, on the currency that side received),
 *   read by the trades' ledger index. Only the projector writes trades, one transaction at a
 *   time, taking its ids after the one before committed: they commit in id order, no overlap.
 *   (Its own cursor also keeps a worker of the version before from moving it past trades it does
 *   not know how to read.)
 */
const SOURCES = [
  {
    cursor: 1,
    overlap: true,
    top: `SELECT COALESCE(max(id), 0) FROM ledger_entries`,
    fees: FEE_ROWS(`SELECT e.id, e.owner_id AS invitee, e.account_type AS account, e.currency_id AS currency, -e.available_delta AS fee, e.created_at AS at
      FROM ledger_entries e
      WHERE e.id > $1 AND e.id <= $2 AND e.owner_type = 'user' AND e.available_delta < 0
        AND (e.code, e.account_type) IN (${FEE_LEGS.map((l) => `(${l.code}, '${l.account}')`).join(', ')})`),
  },
  {
    cursor: 2,
    overlap: false,
    top: `SELECT COALESCE(max(ledger_id) + 5, 0) FROM trades`,
    fees: FEE_ROWS(`SELECT t.ledger_id + CASE WHEN s.buys THEN 4 ELSE 5 END AS id, s.user_id AS invitee, 'coin' AS account,
        CASE WHEN s.buys THEN t.base_currency_id ELSE t.quote_currency_id END AS currency, s.fee, t.executed_at AS at
      FROM trades t
      CROSS JOIN LATERAL (VALUES (t.maker_user_id, t.maker_fee, t.taker_side = 'sell'), (t.taker_user_id, t.taker_fee, t.taker_side = 'buy')) s(user_id, fee, buys)
      WHERE t.ledger_id > $1::bigint - 8 AND t.ledger_id <= $2 AND s.fee > 0`),
  },
];

/**
 * Referral rebates (docs/promotion.md). Accrual (a BullMQ job every 10 s) reads the ledger after
 * its cursor for fees paid by users who have an inviter and records one `pending` rebate per fee
 * entry (unique by the entry's id): fee × the inviter's ratio at that moment, truncated.
 * Settlement (hourly, on the hour) pays each pending rebate in one transaction under its row lock:
 * from `spot-fee` (spot) or from `fees` via `transit` (contracts, options) to the inviter's trade
 * account through the sequencer outbox, command id `rebate:<id>`, and marks it `paid`. Two runs,
 * or two concurrent ones, pay each rebate once.
 */
@Injectable()
export class RebateService implements OnApplicationBootstrap {
  private readonly logger = new Logger('Rebates');
  private queue?: Queue;

  constructor(
    private readonly dataSource: DataSource,
    private readonly ledger: LedgerService,
    private readonly outbox: OutboxRelay,
    private readonly bus: EngineBus,
    private readonly queues: QueuesService,
    private readonly settings: PromotionSettingsService,
    private readonly messages: UserMessageService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.queues.workers) return;
    this.queue = this.queues.queue(QUEUE);
    const worker = this.queues.worker(QUEUE, async (job) => (job.name === 'settle' ? this.settle(new Date()) : this.accrue()));
    worker.on('failed', (job, err) => this.logger.warn(`rebate job ${job?.name} ${job?.id} failed: ${err.message}`));
    const opts = { attempts: 5, backoff: { type: 'exponential', delay: 5000 } };
    // Every 10 s: each run reads what came since the last one, so its work comes in small steps, never a minute's ledger at once.
    await this.queues.keepScheduler(this.queue, 'accrue', { every: ACCRUE_EVERY_MS }, { name: 'accrue', opts });
    await this.queues.keepScheduler(this.queue, 'settle', { pattern: '0 * * * *', tz: 'UTC' }, { name: 'settle', opts });
  }

  /** Records a pending rebate for every new fee of an invitee. Returns how many were recorded. */
  async accrue(): Promise<{ recorded: number }> {
    const { ratio, partner_ratio } = await this.settings.get();
    let recorded = 0;
    for (const source of SOURCES) {
      // Where the cursor stood OVERLAP_SECONDS before the last run (the newest mark that old, else the
      // oldest mark): read once per run. Counted from the last run, not from now: what a run read was
      // what had committed by then, so after a pause (a worker down, a long settle) the re-read still
      // reaches the fees that took their ids before the last run's top and committed after it.
      const [{ since }] = source.overlap
        ? await this.dataSource.query(
            `SELECT COALESCE((SELECT entry_id FROM promotion_cursor_marks WHERE source = $1
                                AND at <= (SELECT max(at) FROM promotion_cursor_marks WHERE source = $1) - make_interval(secs => $2) ORDER BY at DESC LIMIT 1),
                             (SELECT entry_id FROM promotion_cursor_marks WHERE source = $1 ORDER BY at LIMIT 1))::text AS since`,
            [source.cursor, OVERLAP_SECONDS],
          )
        : [{ since: null }];
      for (let step = 0; ; step++) {
        // `at`: when `top` was read.
        const [{ cursor, top, at }] = await this.dataSource.query(
          `SELECT COALESCE((SELECT entry_id FROM promotion_cursor WHERE id = $1), 0)::text AS cursor, (${source.top})::text AS top, clock_timestamp() AS at`,
          [source.cursor],
        );
        const from = BigInt(cursor);
        const max = BigInt(top);
        // With nothing new, one pass still re-reads the overlap below the cursor.
        const to = from + BigInt(WINDOW) < max ? from + BigInt(WINDOW) : max > from ? max : from;
        // The overlap once per run, on its first step: the later steps read only what follows (catching up stays linear).
        const back = since === null ? from - BigInt(OVERLAP_IDS) : BigInt(since);
        const lower = !source.overlap || step > 0 ? from : back > 0n ? (back < from ? back : from) : 0n;
        const rows: Array<{ id: string; invitee: number; inviter: number; account: string; currency: number; fee: string; partner: boolean }> =
          await this.dataSource.query(source.fees, [lower.toString(), to.toString()]);
        await this.dataSource.transaction(async (m) => {
          for (const r of rows) {
            const kind = FEE_LEGS.find((l) => l.account === r.account)!.kind;
            const use = r.partner ? partner_ratio : ratio;
            const amount = rebateOf(r.fee, use);
            if (!money(amount).gt(0)) continue;
            const res = await m.query(
              `INSERT INTO promotion_rebates (source_entry, inviter_id, invitee_id, kind, currency_id, fee, ratio, amount)
               VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (source_entry) DO NOTHING RETURNING id`,
              [r.id, r.inviter, r.invitee, kind, r.currency, r.fee, use, amount],
            );
            recorded += res.length;
          }
          await m.query(
            'INSERT INTO promotion_cursor (id, entry_id) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET entry_id = GREATEST(promotion_cursor.entry_id, EXCLUDED.entry_id)',
            [source.cursor, to.toString()],
          );
          if (source.overlap) {
            // Where the cursor stands now; marks older than the newest one past the overlap before it are
            // no longer needed (the next run counts from this mark).
            await m.query('INSERT INTO promotion_cursor_marks (source, entry_id, at) VALUES ($1, $2, $3)', [source.cursor, to.toString(), at]);
            await m.query(
              `DELETE FROM promotion_cursor_marks WHERE source = $1
                 AND at < (SELECT max(at) FROM promotion_cursor_marks WHERE source = $1 AND at <= $3::timestamptz - make_interval(secs => $2))`,
              [source.cursor, OVERLAP_SECONDS, at],
            );
          }
        });
        if (to >= max) break;
      }
    }
    return { recorded };
  }

  /** Pays every pending rebate (as of `now`). Returns how many this run paid. */
  async settle(now: Date): Promise<{ paid: number }> {
    let paid = 0;
    let last: string | undefined;
    const inviters = new Set<number>();
    // One transaction per inviter and currency (at most CHUNK rows each): its rows, their money commands and one message.
    for (;;) {
      const groups: Array<{ inviter_id: number; currency_id: number }> = await this.dataSource.query(
        `SELECT DISTINCT inviter_id, currency_id FROM promotion_rebates WHERE status = 'pending' AND created_at <= $1 ORDER BY inviter_id, currency_id LIMIT $2`,
        [now, CHUNK],
      );
      if (!groups.length) break;
      let progressed = false;
      for (const g of groups) {
        const done = await this.payGroup(g.inviter_id, g.currency_id, now);
        if (done) {
          progressed = true;
          paid += done.count;
          last = done.last;
          inviters.add(g.inviter_id);
        }
      }
      // Nothing paid: what is left is held by a concurrent run, which pays it.
      if (!progressed) break;
    }
    // The relay sends in order: once the last one is applied, all of this run's are.
    if (last) await this.outbox.applied(last, 30_000);
    for (const u of inviters) this.bus.emit('balance', u);
    return { paid };
  }

  /**
   * An inviter's pending rebates in one currency, exactly once: under the rows' locks, the money's
   * commands (`rebate:<id>`, and `rebate-out:<id>` from `fees`), the rows marked paid and the
   * user's message commit together, so a second or concurrent run finds nothing pending.
   */
  private payGroup(inviterId: number, currencyId: number, now: Date): Promise<{ count: number; last: string } | undefined> {
    return this.dataSource.transaction(async (m) => {
      const rows: Array<{ id: string; kind: string; amount: string }> = await m.query(
        `SELECT id::text, kind, amount::text FROM promotion_rebates
         WHERE inviter_id = $1 AND currency_id = $2 AND status = 'pending' AND created_at <= $3 ORDER BY promotion_rebates.id LIMIT $4 FOR UPDATE SKIP LOCKED`,
        [inviterId, currencyId, now, CHUNK],
      );
      if (!rows.length) return undefined;
      let total = money('0');
      for (const r of rows) {
        await this.payIn(m, r.id, inviterId, currencyId, r.kind, money(r.amount).toString());
        total = total.plus(r.amount);
      }
      await m.query(`UPDATE promotion_rebates SET status = 'paid', paid_at = $2 WHERE id = ANY($1::bigint[])`, [rows.map((r) => r.id), now]);
      const [coin] = await m.query('SELECT symbol FROM coins WHERE id = $1', [currencyId]);
      await this.messages.leave(m, inviterId, 'notice.rebate_paid', { amount: moneyString(total), coin: coin?.symbol ?? String(currencyId) }, `rebate:${rows[0].id}-${rows[rows.length - 1].id}`);
      return { count: rows.length, last: `rebate:${rows[rows.length - 1].id}` };
    });
  }

  /** One rebate's money, inside the caller's transaction: spot-fee → trade account, or fees → transit → trade account. */
  private async payIn(m: EntityManager, id: string, inviterId: number, currencyId: number, kind: string, amount: string): Promise<void> {
    const ref = { refType: 'rebate', refId: id, actor: 'system:promotion', memo: `referral rebate (${kind})` };
    if (kind === 'spot') {
      await this.outbox.enqueue(m, {
        ...ref,
        commandId: `rebate:${id}`,
        legs: [systemLeg('spot-fee', currencyId, LedgerCode.ReferralRebate, `-${amount}`), coinLeg(inviterId, currencyId, LedgerCode.ReferralRebate, amount)],
      });
      return;
    }
    await this.ledger.post(
      {
        ...ref,
        commandId: `rebate-out:${id}`,
        movements: [
          { ownerType: 'system', ownerId: SYSTEM_OWNER_ID, accountType: 'fees', currencyId, code: LedgerCode.ReferralRebate, available: `-${amount}` },
          { ownerType: 'system', ownerId: SYSTEM_OWNER_ID, accountType: 'transit', currencyId, code: LedgerCode.ReferralRebate, available: amount },
        ],
      },
      m,
    );
    await this.outbox.enqueue(m, {
      ...ref,
      commandId: `rebate:${id}`,
      legs: [systemLeg('transit', currencyId, LedgerCode.ReferralRebate, `-${amount}`), coinLeg(inviterId, currencyId, LedgerCode.ReferralRebate, amount)],
    });
  }
}
