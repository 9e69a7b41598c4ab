import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../../infra/config/config';
import { EngineHost } from '../engine/engine-host.service';
import { IeoAdminService } from './ieo-admin.service';
import { IeoProjectCreateDto } from './newcoin.dto';

const DAY_MS = 24 * 3600 * 1000;

/**
 * The demo venue (MARKET_SIMULATOR on, as `npm start` runs) opens with one IEO in progress, so the
 * new-coin screens show a real project on a fresh stack. It is created once, on a database without
 * projects, through the operator's own path (same rules, same events, actor `system:demo`); its
 * allocation runs like any other at the end of its window. Off with the simulator (tests, production).
 */
@Injectable()
export class IeoDemoService implements OnApplicationBootstrap {
  private readonly logger = new Logger('IeoDemo');

  constructor(
    private readonly dataSource: DataSource,
    private readonly admin: IeoAdminService,
    private readonly host: EngineHost,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.marketSimulator) return;
    await this.host.whenOwner(() => this.seedDemo());
  }

  private async seedDemo(): Promise<void> {
    const [{ n }] = await this.dataSource.query('SELECT COUNT(*)::int AS n FROM ieo_projects');
    if (n > 0) return;
    const now = Date.now();
    const dto = plainToInstance(IeoProjectCreateDto, {
      symbol: 'KST',
      name: 'Kestrel Token',
      decimals: 2,
      price: '0.1',
      supply: '1000000',
      start_at: new Date(now).toISOString(),
      end_at: new Date(now + 7 * DAY_MS).toISOString(),
      min_qty: '10',
      max_qty: '100000',
      intro: 'The demo venue’s new coin: subscribe with USDT from your trade account; allocation is pro rata when the window ends.',
      reason: 'demo venue: one project in progress on a fresh stack',
    });
    await this.admin.create(0, dto, 'system:demo').catch((err: unknown) => this.logger.warn({ err }, 'demo IEO project not created'));
  }
}
