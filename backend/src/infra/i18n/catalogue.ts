import { en } from './locales/en';

export type MessageKey = keyof typeof en;
/** A catalogue must translate every key of the English one (the compiler checks it). */
export type Catalogue = Record<MessageKey, string>;

export const LANGS = ['en', 'zh', 'jp', 'kr', 'ty', 'hk', 'py'] as const;
export type Lang = (typeof LANGS)[number];
export const DEFAULT_LANG: Lang = 'en';

export function isLang(value: unknown): value is Lang {
  return typeof value === 'string' && (LANGS as readonly string[]).includes(value);
}
