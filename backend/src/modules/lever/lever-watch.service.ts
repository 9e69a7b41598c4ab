import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { QueuesService } from '../../infra/queue/queues.service';
import { MarketRegistry } from '../engine/market-registry.service';
import type { Tick } from '../market/mark-price.service';
import { LeverService } from './lever.service';

const QUEUE = 'lever-watch';
const MAX_TICKS_PER_RUN = 600;

/**
 * The contract watcher: a BullMQ job scheduled every second evaluates every recorded mark-price
 * tick since the last one it saw (a cursor per market), in order, for limit fills, liquidation,
 * stop loss and take profit. Each trigger is a guarded update plus a ledger posting with its own
 * command id, so a duplicate job, an overlapping worker or a restart fires it once.
 */
@Injectable()
export class LeverWatchService implements OnApplicationBootstrap {
  private readonly logger = new Logger('LeverWatch');
  constructor(
    private readonly dataSource: DataSource,
    private readonly registry: MarketRegistry,
    private readonly lever: LeverService,
    private readonly queues: QueuesService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.queues.workers) return;
    const queue = this.queues.queue(QUEUE);
    const worker = this.queues.worker(QUEUE, async () => this.watch());
    worker.on('failed', (job, err) => this.logger.warn({ err }, `watch job ${job?.id} failed`));
    await this.queues.keepScheduler(queue, 'lever-watch-every-second', { every: 1000 }, { name: 'watch', opts: { removeOnComplete: true, removeOnFail: 100 } });
  }

  /**
   * Evaluates the ticks recorded since the cursor of each market; returns what fired. A market whose
   * evaluation fails stops at that tick (its cursor stays before it, so the next run starts there)
   * and the others go on; the run then fails with the first error (logged with the job).
   */
  async watch(): Promise<{ ticks: number; filled: number; closed: number }> {
    // Triggers that fired on an earlier tick but could not settle then go first, at that tick.
    const out = { ticks: 0, filled: 0, closed: await this.lever.settleTriggered() };
    const failures: unknown[] = [];
    for (const market of this.registry.all()) await this.watchMarket(market.id, out).catch((err: unknown) => failures.push(err));
    if (failures.length) throw failures[0];
    return out;
  }

  private async watchMarket(marketId: number, out: { ticks: number; filled: number; closed: number }): Promise<void> {
    const [cursor] = await this.dataSource.query('SELECT tick_id::text FROM lever_cursors WHERE market_id = $1', [marketId]);
    // First run: from the tick of the oldest open position or order (the ticks since it opened are
    // its to be evaluated on, as a user's action would: LeverService.firstTrigger), else the latest
    // tick (history before the watcher existed, with nothing open, is not replayed).
    const [first] = cursor
      ? [undefined]
      : await this.dataSource.query(
          `SELECT MIN(COALESCE(CASE WHEN status = 'pending' THEN placed_tick_id ELSE open_tick_id END, 0))::text AS since
             FROM lever_positions WHERE market_id = $1 AND status IN ('pending', 'holding')`,
          [marketId],
        );
    const since: string | null = cursor?.tick_id ?? first?.since ?? null;
    const ticks: Tick[] =
      since !== null
        ? await this.dataSource.query('SELECT id::text, price::text, ts FROM mark_prices WHERE market_id = $1 AND id > $2 ORDER BY mark_prices.id LIMIT $3', [
            marketId,
            since,
            MAX_TICKS_PER_RUN,
          ])
        : await this.dataSource.query('SELECT id::text, price::text, ts FROM mark_prices WHERE market_id = $1 ORDER BY mark_prices.id DESC LIMIT 1', [marketId]);
    for (const tick of ticks) {
      // Evaluated and the cursor moved past it in one hold of the market's watch lock (LeverService.evaluate).
      const r = await this.lever.evaluate(marketId, tick);
      out.ticks++;
      out.filled += r.filled;
      out.closed += r.closed;
    }
  }
}
