import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
import { storage } from '../stores/storage';
import { en, type Catalogue } from './locales/en';

/** The seven catalogue codes (spec §1): py is Portuguese, hk Traditional Chinese, ty Thai. */
export const LANGS = ['en', 'zh', 'jp', 'kr', 'ty', 'hk', 'py'] as const;
export type Lang = (typeof LANGS)[number];
export const DEFAULT_LANG: Lang = 'en';

/** Each language's name in itself, as the language page lists them. */
export const LANGUAGE_NAMES: Record<Lang, string> = {
  en: 'English',
  zh: '简体中文',
  jp: '日本語',
  kr: '한국어',
  ty: 'ไทย',
  hk: '繁體中文',
  py: 'Português',
};

/** The BCP 47 tag for <html lang>, so screen readers and fonts pick the right language. */
export const HTML_LANG: Record<Lang, string> = { en: 'en', zh: 'zh-CN', jp: 'ja', kr: 'ko', ty: 'th', hk: 'zh-HK', py: 'pt' };

// English ships in the first chunk; the other catalogues load when chosen (route-level splitting).
const loaders: Record<Exclude<Lang, 'en'>, () => Promise<{ default: Catalogue }>> = {
  zh: () => import('./locales/zh'),
  jp: () => import('./locales/jp'),
  kr: () => import('./locales/kr'),
  ty: () => import('./locales/ty'),
  hk: () => import('./locales/hk'),
  py: () => import('./locales/py'),
};

export const isLang = (v: unknown): v is Lang => typeof v === 'string' && (LANGS as readonly string[]).includes(v);

/** The stored choice (localStorage `lang`), else English. */
export function storedLang(): Lang {
  const v = storage.get('lang');
  return isLang(v) ? v : DEFAULT_LANG;
}

/**
 * i18next runs on the BCP 47 tags (`HTML_LANG`), not the app's codes: its plural forms come from
 * `Intl.PluralRules`, which does not know `jp`, `kr`, `ty`, `hk` or `py` and would take the
 * device's rules instead (a Polish phone's `few` for 2, a key no catalogue has, so English).
 */
const langOfTag = (tag: string): Lang | undefined => LANGS.find((l) => HTML_LANG[l] === tag);

/** The language in effect now: what the `lang` header carries. */
export function currentLang(): Lang {
  return langOfTag(i18next.language) ?? storedLang();
}

export async function loadCatalogue(lang: Lang): Promise<Catalogue> {
  return lang === 'en' ? en : (await loaders[lang]()).default;
}

async function ensureLoaded(lang: Lang): Promise<void> {
  const tag = HTML_LANG[lang];
  if (!i18next.hasResourceBundle(tag, 'translation')) i18next.addResourceBundle(tag, 'translation', await loadCatalogue(lang));
}

export async function initI18n(lang: Lang = storedLang()): Promise<typeof i18next> {
  if (!i18next.isInitialized) {
    await i18next.use(initReactI18next).init({
      resources: { en: { translation: en } },
      lng: 'en',
      fallbackLng: 'en',
      interpolation: { escapeValue: false },
      returnNull: false,
    });
  }
  await setLanguage(lang, false);
  return i18next;
}

/** Switches the language: loads its catalogue, stores it under `lang` and updates <html lang>. */
export async function setLanguage(lang: Lang, persist = true): Promise<void> {
  await ensureLoaded(lang);
  await i18next.changeLanguage(HTML_LANG[lang]);
  if (persist) storage.set('lang', lang);
  if (typeof document !== 'undefined') document.documentElement.lang = HTML_LANG[lang];
}

export const t = (key: string, options?: Record<string, unknown>): string => i18next.t(key, options) as string;

const displayNames = new Map<string, Intl.DisplayNames>();

/**
 * A country's or a currency's name in the app's language (`Intl.DisplayNames`), for names the API
 * sends in English (the dial codes' countries, the pricing currencies); `fallback` when the
 * browser does not know the code.
 */
export function localName(type: 'region' | 'currency', code: string, fallback: string): string {
  const tag = HTML_LANG[currentLang()];
  const key = `${tag}:${type}`;
  try {
    let names = displayNames.get(key);
    if (!names) displayNames.set(key, (names = new Intl.DisplayNames([tag], { type, fallback: 'none' })));
    return names.of(code) ?? fallback;
  } catch {
    return fallback; // not a well-formed code
  }
}
