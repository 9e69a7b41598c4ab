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

/**
 * A decision on a record someone has decided already (2209, 2314, 2708): the answer carries what
 * stands and whose decision it is (`{status, reviewed_by, reviewed_at}`), so an operator resending
 * a decision whose answer was lost learns whether theirs stands.
 */
export function alreadyDecided(code: ErrorCodeValue, r: { status: string; reviewedBy: number | null; reviewedAt: Date | string | null }): BusinessError {
  const stands = { status: r.status, reviewed_by: r.reviewedBy, reviewed_at: r.reviewedAt ? new Date(r.reviewedAt).toISOString() : null };
  return new BusinessError(code, undefined, undefined, stands);
}
