import { Controller, Get, Inject, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Redis } from 'ioredis';
import { DataSource } from 'typeorm';
import { role } from '../../infra/config/config';
import { REDIS } from '../../infra/redis/redis.module';
import { EngineHost } from '../engine/engine-host.service';

const within = <T>(p: Promise<T>, ms: number) => Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), ms).unref())]);

@ApiTags('health')
@Controller('health')
export class HealthController {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(REDIS) private readonly redis: Redis,
    private readonly engine: EngineHost,
  ) {}

  /**
   * Envelope with each dependency's state and this process's role (an engine says whether it runs
   * the sequencer or stands by: both are healthy); HTTP 503 when a dependency is down, for load balancers.
   */
  @Get()
  async health(@Res({ passthrough: true }) res: Response) {
    const [postgres, redis] = await Promise.all([
      within(this.dataSource.query('SELECT 1'), 2000).then(() => 'up', () => 'down'),
      within(this.redis.ping(), 2000).then(() => 'up', () => 'down'),
    ]);
    if (postgres !== 'up' || redis !== 'up') res.status(503);
    const r = role();
    const sequencer = r === 'all' || r === 'engine' ? (this.engine.owner ? 'active' : 'standby') : undefined;
    return { status: postgres === 'up' && redis === 'up' ? 'up' : 'down', postgres, redis, role: r, ...(sequencer ? { sequencer } : {}) };
  }
}
