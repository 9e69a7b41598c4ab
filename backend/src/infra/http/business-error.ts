import type { MessageKey } from '../i18n/catalogue';
import type { MessageParams } from '../i18n/i18n';
import { defaultMessage, ErrorCodeValue } from './error-codes';

/**
 * A refusal a client can cause (bad input, a rule of the spec). Thrown from services; the
 * exception filter turns it into the envelope with a message in the request's language.
 * Thrown inside a transaction it also rolls the transaction back: "changes nothing".
 */
export class BusinessError extends Error {
  readonly messageKey: MessageKey;
  constructor(
    readonly code: ErrorCodeValue,
    messageKey?: MessageKey,
    readonly params?: MessageParams,
    readonly data: unknown = null,
  ) {
    const key = messageKey ?? defaultMessage[code] ?? 'error.validation';
    // An expected answer, not a fault: no stack trace is captured (it was ~3 % of the order path's CPU, late cancels).
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(key);
    Error.stackTraceLimit = limit;
    this.messageKey = key;
  }
}
