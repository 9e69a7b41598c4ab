import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { DataSource } from 'typeorm';
import { EventStoreService } from '../../infra/event-store/event-store.service';
import { updateReturning } from '../../infra/database/sql';
import { moneyString } from '../../infra/money';
import { QueuesService } from '../../infra/queue/queues.service';
import { UserMessageService } from '../notice/user-message.service';
import { Coin } from '../reference/coin.entity';
import { LoanApprovalService } from './loan-approval.service';
import { LoanRepaymentService } from './loan-repayment.service';

const QUEUE = 'loan-overdue';
const EVERY_MS = 60_000;

/**
 * A BullMQ repeatable job (every minute, plus one run at start): marks every loan still owed
 * after its due date overdue, with a message to its user (one transaction per loan: the state,
 * the event and the message together, by a conditional update, so a rerun marks nothing twice),
 * and finishes any payout or balance repayment a crash left half done. The clock is an argument
 * (the job passes `now()`, which tests replace). No penalty: products carry none.
 */
@Injectable()
export class LoanOverdueService implements OnApplicationBootstrap {
  private readonly logger = new Logger('LoanOverdue');
  private queue?: Queue;
  now: () => Date = () => new Date();

  constructor(
    private readonly dataSource: DataSource,
    private readonly events: EventStoreService,
    private readonly messages: UserMessageService,
    private readonly approvals: LoanApprovalService,
    private readonly repayments: LoanRepaymentService,
    private readonly queues: QueuesService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.queues.workers) return;
    this.queue = this.queues.queue(QUEUE);
    const worker = this.queues.worker(QUEUE, async () => this.run(this.now()));
    worker.on('failed', (job, err) => this.logger.warn(`loan job ${job?.id} failed: ${err.message}`));
    await this.queues.keepScheduler(
      this.queue,
      'sweep',
      { every: EVERY_MS },
      { name: 'sweep', opts: { attempts: 3, removeOnComplete: true, removeOnFail: { age: 86_400 } } },
    );
    await this.queue.add('sweep', {}, { jobId: `start-${Date.now()}`, removeOnComplete: true, removeOnFail: { age: 86_400 } });
  }

  async run(now: Date): Promise<{ overdue: number; resumed: number }> {
    const resumed = (await this.approvals.resume()) + (await this.repayments.resume());
    return { overdue: (await this.markOverdue(now)).length, resumed };
  }

  /** Marks the loans due before `now` and still owed; returns their ids. */
  async markOverdue(now: Date): Promise<string[]> {
    const due: Array<{ id: string }> = await this.dataSource.query(
      `SELECT id::text FROM loan_orders WHERE status IN ('approved', 'repaying') AND due_at <= $1 ORDER BY loan_orders.id`,
      [now],
    );
    const marked: string[] = [];
    for (const { id } of due) {
      await this.dataSource.transaction(async (m) => {
        const [row] = await updateReturning<{ user_id: number; currency_id: number; amount: string; remaining: string }>(
          m,
          `UPDATE loan_orders SET status = 'overdue', overdue_at = $2 WHERE id = $1 AND status IN ('approved', 'repaying') AND due_at <= $2
           RETURNING user_id, currency_id, amount::text, remaining::text`,
          [id, now],
        );
        if (!row) return;
        const coin = await m.getRepository(Coin).findOneByOrFail({ id: row.currency_id });
        await this.events.append(m, { streamId: `loan:${id}`, metadata: { actor: 'system:loan-overdue' } }, [
          { type: 'LoanOverdue', payload: { loanId: id, userId: row.user_id, remaining: moneyString(row.remaining), at: now.toISOString() } },
        ]);
        await this.messages.leave(
          m,
          row.user_id,
          'notice.loan_overdue',
          { amount: moneyString(row.amount), coin: coin.symbol, remaining: moneyString(row.remaining) },
          `loan:${id}`,
        );
        marked.push(id);
      });
    }
    return marked;
  }
}
