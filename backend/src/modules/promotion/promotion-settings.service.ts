import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { EventStoreService } from '../../infra/event-store/event-store.service';
import { DEFAULT_PROMOTION_SETTINGS, PromotionSettings } from './promotion-terms';

const KEY = 'promotion';

/** The rebate ratios (normal inviter, partner), in the settings table; operators change them with a reason (an event). */
@Injectable()
export class PromotionSettingsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly events: EventStoreService,
  ) {}

  async get(): Promise<PromotionSettings> {
    const [row] = await this.dataSource.query('SELECT value FROM settings WHERE key = $1', [KEY]);
    return { ...DEFAULT_PROMOTION_SETTINGS, ...((row?.value as Partial<PromotionSettings>) ?? {}) };
  }

  async set(adminId: number, change: Partial<PromotionSettings>, reason: string): Promise<PromotionSettings> {
    return this.dataSource.transaction(async (m) => {
      const [row] = await m.query('SELECT value FROM settings WHERE key = $1 FOR UPDATE', [KEY]);
      const previous = { ...DEFAULT_PROMOTION_SETTINGS, ...((row?.value as Partial<PromotionSettings>) ?? {}) };
      const next: PromotionSettings = {
        ratio: change.ratio ?? previous.ratio,
        partner_ratio: change.partner_ratio ?? previous.partner_ratio,
      };
      await m.query('INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value', [KEY, JSON.stringify(next)]);
      await this.events.append(m, { streamId: 'settings:promotion', metadata: { actor: `admin:${adminId}`, reason } }, [
        { type: 'PromotionSettingsChanged', payload: { previous, next } },
      ]);
      return next;
    });
  }
}
