import { Catalogue, DEFAULT_LANG, isLang, Lang, MessageKey } from './catalogue';
import { en } from './locales/en';
import { hk } from './locales/hk';
import { jp } from './locales/jp';
import { kr } from './locales/kr';
import { py } from './locales/py';
import { ty } from './locales/ty';
import { zh } from './locales/zh';

export const catalogues: Record<Lang, Catalogue> = { en, zh, jp, kr, ty, hk, py };

export type MessageParams = Record<string, string | number>;

/** Translate a key into a language, filling {placeholders}. Unknown languages fall back to English. */
export function translate(lang: string | undefined, key: MessageKey, params?: MessageParams): string {
  const catalogue = catalogues[isLang(lang) ? lang : DEFAULT_LANG];
  const template = catalogue[key] ?? en[key] ?? key;
  if (!params) return template;
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => (name in params ? String(params[name]) : whole));
}

/** The `lang` header (or a stored preference) as a supported language. */
export function resolveLang(value: unknown): Lang {
  const raw = Array.isArray(value) ? value[0] : value;
  return isLang(raw) ? raw : DEFAULT_LANG;
}

/** A Socket.IO handshake's `lang`: `auth.lang`, else the `lang` header, else the `lang` query parameter (default en). */
export function handshakeLang(handshake: { auth?: Record<string, unknown>; headers: Record<string, unknown>; query?: Record<string, unknown> }): Lang {
  return resolveLang(handshake.auth?.lang ?? handshake.headers.lang ?? handshake.query?.lang);
}
