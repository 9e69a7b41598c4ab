import { BusinessError } from '../http/business-error';
import { ErrorCode } from '../http/error-codes';
import { DEFAULT_LANG, isLang } from './catalogue';

/**
 * Texts an operator writes per language (`{en: …, zh: …}`): news categories and banners, wealth
 * products' names. Stored as such (jsonb) and shown in the reader's language.
 */
export type LocalizedTexts = Record<string, string>;

/** A per-language text map in the request's language, else English, else any. */
export function pick(texts: LocalizedTexts | null | undefined, lang: string): string {
  if (!texts) return '';
  return texts[lang] ?? texts[DEFAULT_LANG] ?? Object.values(texts)[0] ?? '';
}

/** `{lang: text}` with only supported languages, texts of 1..max characters, and English. */
export function textsOrFail(value: unknown, max: number, field: string, requireEnglish = true): LocalizedTexts {
  // The message states this field's own rule: its length limit, and English only where it is required.
  const bad = () => new BusinessError(ErrorCode.VALIDATION, requireEnglish ? 'error.texts_invalid_english' : 'error.texts_invalid', { field, max });
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw bad();
  const out: LocalizedTexts = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (!isLang(k) || typeof v !== 'string' || !v.trim() || v.trim().length > max) throw bad();
    out[k] = v.trim();
  }
  if (requireEnglish && !out.en) throw bad();
  return out;
}

/** A DTO transform: a JSON object sent as a form field (`names={"en":"…"}`) is parsed; anything else stays (and fails its check). */
export const jsonField = ({ value }: { value: unknown }) => {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
};
