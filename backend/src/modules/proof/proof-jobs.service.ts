import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { QueuesService } from '../../infra/queue/queues.service';
import { ProofService } from './proof.service';

const QUEUE = 'proof-of-liabilities';

/**
 * When roots are published without an operator (issue "Verifiable honesty", item 1): one job at
 * start-up, which builds only when no root was taken at the current watermark, and a BullMQ
 * repeatable job every day at 00:00 UTC, which always publishes one. Both run in the processes
 * that run workers (ROLE=all or worker); the build lock makes concurrent builds take turns, so
 * two workers starting together publish one start-up root. Nothing here delays the app's start.
 */
@Injectable()
export class ProofJobsService implements OnApplicationBootstrap {
  private readonly logger = new Logger('ProofJobs');
  /** Set in the processes that run workers (tests wait on it). */
  queue?: Queue;

  constructor(
    private readonly proofs: ProofService,
    private readonly queues: QueuesService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.queues.workers) return;
    this.queue = this.queues.queue(QUEUE);
    const worker = this.queues.worker(QUEUE, async (job) => (job.name === 'daily' ? this.proofs.build('daily', 'system:proof') : this.proofs.buildIfStale('startup')));
    worker.on('failed', (job, err) => this.logger.warn(`proof ${job?.name} job ${job?.id} failed: ${err.message}`));
    const opts = { attempts: 5, backoff: { type: 'exponential', delay: 10_000 }, removeOnComplete: 100, removeOnFail: 100 };
    await this.queues.keepScheduler(this.queue, 'daily', { pattern: '0 0 * * *', tz: 'UTC' }, { name: 'daily', opts });
    await this.queue.add('startup', {}, { ...opts, jobId: `startup-${Date.now()}` });
  }
}
