import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { LANGS } from '../../infra/i18n/catalogue';
import { Setting } from './setting.entity';

/** Native names of the 7 catalogues (py is Portuguese: docs/architecture.md). */
export const LANGUAGE_NAMES: Record<(typeof LANGS)[number], string> = {
  en: 'English',
  zh: '简体中文',
  hk: '繁體中文',
  jp: '日本語',
  kr: '한국어',
  ty: 'ภาษาไทย',
  py: 'Português',
};

export interface AppSettings {
  version: string;
  code: number;
  store_version: string;
  default_lang: string;
  languages: Array<{ code: string; name: string }>;
}

export const DEFAULT_APP_SETTINGS: AppSettings = {
  version: '4.2.9',
  code: 329,
  store_version: '1.0.0',
  default_lang: 'en',
  languages: LANGS.map((code) => ({ code, name: LANGUAGE_NAMES[code] })),
};

@Injectable()
export class SettingsService {
  constructor(private readonly dataSource: DataSource) {}

  async app(): Promise<AppSettings> {
    const row = await this.dataSource.getRepository(Setting).findOne({ where: { key: 'app' } });
    return (row?.value as AppSettings) ?? DEFAULT_APP_SETTINGS;
  }
}
