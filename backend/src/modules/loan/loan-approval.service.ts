import { Injectable, Logger } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { updateReturning } from '../../infra/database/sql';
import { EventStoreService } from '../../infra/event-store/event-store.service';
import { alreadyDecided, BusinessError } from '../../infra/http/business-error';
import { ErrorCode } from '../../infra/http/error-codes';
import { moneyString } from '../../infra/money';
import { EngineBus } from '../engine/engine-bus';
import { OutboxRelay } from '../engine/outbox-relay.service';
import { coinLeg, TradeAccountCommands } from '../engine/trade-account-commands';
import { LedgerCode } from '../ledger/ledger-codes';
import { LedgerService } from '../ledger/ledger.service';
import { UserMessageService } from '../notice/user-message.service';
import { LoanOrder } from './loan-order.entity';
import { dueAt, dueText, loanInterest, repayAmount } from './loan-terms';
import { coinOf } from '../reference/coins';
import { orderView, poolLeg, transitLeg } from './loan-views';

/**
 * An operator's decision on an application, and the payout, as an exactly-once pair of a row and
 * a money command:
 *  1. reserve: `approving → disbursing` by a conditional update that also fixes the terms
 *     (interest, repayment amount, due date); of two concurrent approvals only one gets the row;
 *  2. disburse (one transaction, under the row lock): the amount leaves the pool for `transit`
 *     (ledger, command id `loan-pool-out:<id>`) and the sequencer command transit → the user's
 *     trade account (802, command id `loan-disburse:<id>`) is written to the sequencer outbox;
 *     if the pool cannot cover it, nothing moves and the reservation is released (→ approving);
 *  3. finish: once the sequencer applied the command, `disbursing → approved`, with the user's
 *     message.
 * A crash between any two steps leaves `disbursing`; `resume()` (at start and on every sweep)
 * redoes step 2 (its posting and outbox row are idempotent by id) and step 3, so the loan ends
 * approved with exactly one 802 credit, or back in approving with none.
 */
@Injectable()
export class LoanApprovalService {
  private readonly logger = new Logger('LoanApproval');
  /** The clock (tests set it): approval time, hence the due date. */
  now: () => Date = () => new Date();

  constructor(
    private readonly dataSource: DataSource,
    private readonly ledger: LedgerService,
    private readonly outbox: OutboxRelay,
    private readonly trading: TradeAccountCommands,
    private readonly events: EventStoreService,
    private readonly messages: UserMessageService,
    private readonly bus: EngineBus,
  ) {}

  async approve(adminId: number, id: string, reason?: string) {
    const o = await this.find(id);
    const coin = await coinOf(this.dataSource, o.currencyId);
    const interest = loanInterest(o.amount, o.dailyRate, o.days, coin.displayDecimals);
    const repay = repayAmount(o.amount, interest);
    const at = this.now();
    await this.dataSource.transaction(async (m) => {
      const rows = await updateReturning(
        m,
        `UPDATE loan_orders SET status = 'disbursing', interest = $2, repay_amount = $3, remaining = $3, pending = 0, interest_paid = 0,
           due_at = $4, reviewed_by = $5, reviewed_at = $6, reason = $7 WHERE id = $1 AND status = 'approving' RETURNING id`,
        [id, interest, repay, dueAt(at, o.days), adminId, at, reason ?? null],
      );
      if (!rows.length) throw alreadyDecided(ErrorCode.LOAN_ALREADY_DECIDED, await m.getRepository(LoanOrder).findOneByOrFail({ id }));
      await this.events.append(m, { streamId: `loan:${id}`, metadata: { actor: `admin:${adminId}`, reason } }, [
        {
          type: 'LoanApproved',
          payload: {
            loanId: id,
            userId: o.userId,
            amount: moneyString(o.amount),
            interest,
            repayAmount: repay,
            days: o.days,
            dueAt: dueAt(at, o.days).toISOString(),
          },
        },
      ]);
    });
    await this.complete(id);
    const done = await this.find(id);
    // The payout not applied yet (the sequencer away or behind): never "approved" before the user
    // has the money; the command is queued durably and resume() finishes the loan (2107, as a
    // deposit approval answers).
    if (done.status === 'disbursing') throw new BusinessError(ErrorCode.ENGINE_UNKNOWN);
    // Released meanwhile by another run that found the pool short: not approved.
    if (done.status === 'approving') throw new BusinessError(ErrorCode.LOAN_POOL_SHORT);
    return orderView(done, coin, true);
  }

  async reject(adminId: number, id: string, reason: string) {
    const o = await this.find(id);
    const coin = await coinOf(this.dataSource, o.currencyId);
    await this.dataSource.transaction(async (m) => {
      const rows = await updateReturning(
        m,
        `UPDATE loan_orders SET status = 'rejected', reason = $2, reviewed_by = $3, reviewed_at = now() WHERE id = $1 AND status = 'approving' RETURNING id`,
        [id, reason, adminId],
      );
      if (!rows.length) throw alreadyDecided(ErrorCode.LOAN_ALREADY_DECIDED, await m.getRepository(LoanOrder).findOneByOrFail({ id }));
      await this.events.append(m, { streamId: `loan:${id}`, metadata: { actor: `admin:${adminId}`, reason } }, [
        { type: 'LoanRejected', payload: { loanId: id, userId: o.userId } },
      ]);
      await this.messages.leave(m, o.userId, 'notice.loan_rejected', { amount: moneyString(o.amount), coin: coin.symbol, reason }, `loan:${id}`);
    });
    return orderView(await this.find(id), coin, true);
  }

  /** Every reserved approval left by a crash or a slow sequencer, finished or released. */
  async resume(): Promise<number> {
    const rows: Array<{ id: string }> = await this.dataSource.query(`SELECT id::text FROM loan_orders WHERE status = 'disbursing' ORDER BY loan_orders.id`);
    for (const r of rows)
      await this.complete(r.id).catch((err: unknown) => this.logger.warn(`loan ${r.id}: ${err instanceof Error ? err.message : String(err)}`));
    return rows.length;
  }

  /** Steps 2 and 3 for a reserved approval (no-op for any other state). Throws LOAN_POOL_SHORT when released. */
  private async complete(id: string): Promise<void> {
    let released = false;
    const o = await this.dataSource.transaction(async (m) => {
      const locked = await m.getRepository(LoanOrder).findOne({ where: { id }, lock: { mode: 'pessimistic_write' } });
      if (!locked || locked.status !== 'disbursing') return undefined;
      // The command ids and the ledger's reference are the stored id's, whoever asked.
      id = String(locked.id);
      const amount = moneyString(locked.amount);
      // Posted in the name of the operator who approved it, with the reason (docs/api.md: an operator's postings carry both).
      const ref = {
        refType: 'loan',
        refId: id,
        actor: locked.reviewedBy ? `admin:${locked.reviewedBy}` : 'system:loan',
        reason: locked.reason ?? undefined,
        memo: 'loan payout',
      };
      // The pool short: released in this same transaction, under the loan's lock (a separate one
      // could undo a payout another run posted meanwhile, leaving money lent with no debt).
      await m.query('SAVEPOINT loan_pool_out');
      try {
        await this.ledger.post(
          {
            ...ref,
            commandId: `loan-pool-out:${id}`,
            movements: [poolLeg(locked.currencyId, LedgerCode.LoanIncrease, `-${amount}`), transitLeg(locked.currencyId, LedgerCode.LoanIncrease, amount)],
          },
          m,
        );
      } catch (err) {
        if (!(err instanceof BusinessError && err.code === ErrorCode.INSUFFICIENT_BALANCE)) throw err;
        await m.query('ROLLBACK TO SAVEPOINT loan_pool_out');
        await this.release(m, id);
        released = true;
        return undefined;
      }
      await this.outbox.enqueue(m, {
        ...ref,
        commandId: `loan-disburse:${id}`,
        legs: [
          transitLeg(locked.currencyId, LedgerCode.LoanIncrease, `-${amount}`),
          coinLeg(locked.userId, locked.currencyId, LedgerCode.LoanIncrease, amount),
        ],
      });
      return locked;
    });
    if (released) throw new BusinessError(ErrorCode.LOAN_POOL_SHORT);
    if (!o) return;
    const result = await this.outbox.applied(`loan-disburse:${id}`);
    if (result === undefined) return; // the relay is behind: the next resume finishes it
    // transit holds the amount and the user's leg only receives: anything else is a bug, never skipped.
    if (result !== 'OK') throw new Error(`loan ${id}: payout refused by the sequencer: ${result}`);
    await this.finish(o);
  }

  private async finish(o: LoanOrder): Promise<void> {
    const coin = await coinOf(this.dataSource, o.currencyId);
    // The term runs from the payout, not from the operator's approval: a payout the sequencer applied
    // days later (2107, resumed by the sweep) left the user fewer days for the same interest, and one
    // later than the term was overdue at once.
    const paidAt = this.now();
    await this.dataSource.transaction(async (m) => {
      const rows = await updateReturning<{ repay_amount: string; due_at: Date }>(
        m,
        `UPDATE loan_orders SET status = 'approved', disbursed_at = $2, due_at = $3 WHERE id = $1 AND status = 'disbursing' RETURNING repay_amount::text, due_at`,
        [o.id, paidAt, dueAt(paidAt, o.days)],
      );
      if (!rows.length) return;
      await this.events.append(m, { streamId: `loan:${o.id}`, metadata: { actor: 'system:loan' } }, [
        { type: 'LoanDisbursed', payload: { loanId: o.id, userId: o.userId, amount: moneyString(o.amount), dueAt: dueAt(paidAt, o.days).toISOString() } },
      ]);
      await this.messages.leave(
        m,
        o.userId,
        'notice.loan_approved',
        {
          amount: moneyString(o.amount),
          coin: coin.symbol,
          repay: moneyString(rows[0].repay_amount),
          due: dueText(new Date(rows[0].due_at)),
        },
        `loan:${o.id}`,
      );
    });
    await this.trading.settled(o.userId);
    this.bus.emit('balance', o.userId);
  }

  /** The pool could not cover it (the loan locked `disbursing` in `m`): nothing moved, the application waits for a decision again. */
  private async release(m: EntityManager, id: string): Promise<void> {
    await m.query(
      `UPDATE loan_orders SET status = 'approving', interest = 0, repay_amount = 0, remaining = 0, due_at = NULL, reviewed_by = NULL, reviewed_at = NULL, reason = NULL
       WHERE id = $1 AND status = 'disbursing'`,
      [id],
    );
    await this.events.append(m, { streamId: `loan:${id}`, metadata: { actor: 'system:loan' } }, [
      { type: 'LoanApprovalReleased', payload: { loanId: id, why: 'pool short' } },
    ]);
  }

  private async find(id: string): Promise<LoanOrder> {
    const o = /^\d{1,18}$/.test(id) ? await this.dataSource.getRepository(LoanOrder).findOne({ where: { id } }) : null;
    if (!o) throw new BusinessError(ErrorCode.LOAN_NOT_FOUND);
    return o;
  }
}
