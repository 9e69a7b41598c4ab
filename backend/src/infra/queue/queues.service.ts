import { BeforeApplicationShutdown, Global, Inject, Injectable, Logger, Module } from '@nestjs/common';
import { Processor, Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { APP_CONFIG, AppConfig, role } from '../config/config';

/**
 * BullMQ queues and workers with the process's Redis and key prefix. Workers run in ROLE=all and
 * ROLE=worker processes unless OPTION_WORKER=off; everything is closed on shutdown.
 */
@Injectable()
export class QueuesService implements BeforeApplicationShutdown {
  /** How often a kept job scheduler is checked for (and re-created if Redis lost it). */
  static schedulerCheckMs = 5000;
  private readonly logger = new Logger('Queues');
  private readonly closers: Array<() => Promise<unknown>> = [];

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /** True when this process should run BullMQ workers: ROLE=all or worker (never api, nor the engine, which keeps its cores for the sequencer). */
  get workers(): boolean {
    return this.config.optionWorker && ['all', 'worker'].includes(role());
  }

  queue(name: string): Queue {
    const q = new Queue(name, { connection: this.connection(), prefix: this.prefix });
    this.closers.push(() => q.close());
    return q;
  }

  worker(name: string, process: Processor): Worker {
    const w = new Worker(name, process, { connection: this.connection(), prefix: this.prefix, concurrency: 1 });
    this.closers.unshift(() => w.close());
    return w;
  }

  /**
   * A job scheduler (repeatable job) that survives Redis losing its data. A scheduler lives only in
   * Redis: after a Redis restart without persistence (or a failover to an empty replica) it is
   * gone, and the recurring work it drove (the contract watcher, daily accrual, …) would stop until
   * the process restarted. It is upserted now and checked every `schedulerCheckMs`; when missing,
   * upserted again (idempotent: same id, same schedule).
   */
  async keepScheduler(
    queue: Queue,
    id: string,
    repeat: Parameters<Queue['upsertJobScheduler']>[1],
    template: Parameters<Queue['upsertJobScheduler']>[2],
  ): Promise<void> {
    await queue.upsertJobScheduler(id, repeat, template);
    let busy = false;
    const timer = setInterval(() => {
      if (busy) return;
      busy = true;
      void (async () => {
        if (await queue.getJobScheduler(id)) return;
        this.logger.warn(`job scheduler ${queue.name}/${id} was missing (Redis lost its data?): re-created`);
        await queue.upsertJobScheduler(id, repeat, template);
      })()
        .catch(() => undefined) // Redis down: the next check tries again.
        .finally(() => (busy = false));
    }, QueuesService.schedulerCheckMs);
    timer.unref();
    this.closers.unshift(async () => clearInterval(timer));
  }

  private get prefix(): string {
    return `${this.config.redisPrefix}bull`;
  }

  private connection(): Redis {
    // BullMQ needs its own connections (blocking commands), without ioredis's key prefix.
    const c = new Redis(this.config.redisUrl, { maxRetriesPerRequest: null });
    this.closers.push(() => c.quit().catch(() => c.disconnect()));
    return c;
  }

  /** Before any module's shutdown (the database closes in one): a job in flight finishes while its connection is still there. */
  async beforeApplicationShutdown(): Promise<void> {
    for (const close of this.closers.splice(0)) await close().catch(() => undefined);
  }
}

@Global()
@Module({ providers: [QueuesService], exports: [QueuesService] })
export class QueuesModule {}
