import type { MessageKey } from '../i18n/catalogue';
import { MessageParams, translate } from '../i18n/i18n';
import { Envelope } from './envelope';
import { ErrorCode } from './error-codes';

export function errorEnvelope(lang: string, code: number, key: MessageKey, params?: MessageParams, data: unknown = null): Envelope {
  const type = code === ErrorCode.NOT_LOGGED_IN ? '999' : 'error';
  return { type, code, message: translate(lang, key, params), data };
}
