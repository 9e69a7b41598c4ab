import { BeforeApplicationShutdown, Global, Inject, Injectable, Module } from '@nestjs/common';
import { Processor, Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { APP_CONFIG, AppConfig, role } from '../config/config';

/**
 * BullMQ queues and workers with the process's Redis and key prefix. Workers run in ROLE=all and
 * ROLE=worker processes unless OPTION_WORKER=off; everything is closed on shutdown.
 */
@Injectable()
export class QueuesService implements BeforeApplicationShutdown {
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
