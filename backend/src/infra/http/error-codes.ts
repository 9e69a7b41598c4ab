import type { MessageKey } from '../i18n/catalogue';

/**
 * Stable numeric codes of the /api envelope. Never reuse or renumber one: clients switch on them.
 * 1 = ok; 401 = not logged in (type "999"). 404 is never used in the envelope: clients read it as
 * "logged out". Listed with their meaning in docs/api.md.
 * Ranges: 1000s request/accounts, 2000–2199 spot trading, 2200–2299 wallets and funding,
 * 2300–2399 identity verification and uploads.
 */
export const ErrorCode = {
  OK: 1,
  NOT_LOGGED_IN: 401,
  VALIDATION: 1000,
  UNKNOWN_FIELD: 1001,
  RATE_LIMITED: 1002,
  UPLOAD_FAILED: 1003,
  PASSWORDS_DIFFER: 1100,
  AGREEMENT_REQUIRED: 1101,
  CODE_INVALID: 1102,
  CODE_BURNED: 1103,
  CODE_TOO_FREQUENT: 1104,
  ACCOUNT_EXISTS: 1105,
  LOGIN_FAILED: 1106,
  ACCOUNT_NOT_FOUND: 1107,
  ACCOUNT_DISABLED: 1108,
  INVITE_CODE_INVALID: 1109,
  OLD_PASSWORD_WRONG: 1110,
  NO_CONTACT_FOR_CODE: 1111,
  INSUFFICIENT_BALANCE: 2000,
  MARKET_NOT_FOUND: 2001,
  SELLABLE_INSUFFICIENT: 2002,
  FUND_PASSWORD_NOT_SET: 2100,
  QUANTITY_TOO_SMALL: 2101,
  PRICE_INVALID: 2102,
  ORDER_NOT_FOUND: 2103,
  ORDER_CLOSED: 2104,
  MARKET_BUSY: 2105,
  INTERNAL: 9000,
} as const;
export type ErrorCodeValue = (typeof ErrorCode)[keyof typeof ErrorCode];

/** Default message for a code, when the thrower does not name a more precise one. */
export const defaultMessage: Partial<Record<ErrorCodeValue, MessageKey>> = {
  [ErrorCode.NOT_LOGGED_IN]: 'error.not_logged_in',
  [ErrorCode.VALIDATION]: 'error.validation',
  [ErrorCode.UPLOAD_FAILED]: 'error.upload_failed',
  [ErrorCode.PASSWORDS_DIFFER]: 'error.passwords_differ',
  [ErrorCode.AGREEMENT_REQUIRED]: 'error.agreement_required',
  [ErrorCode.CODE_INVALID]: 'error.code_invalid',
  [ErrorCode.CODE_BURNED]: 'error.code_burned',
  [ErrorCode.ACCOUNT_EXISTS]: 'error.account_exists',
  [ErrorCode.LOGIN_FAILED]: 'error.login_failed',
  [ErrorCode.ACCOUNT_NOT_FOUND]: 'error.account_not_found',
  [ErrorCode.ACCOUNT_DISABLED]: 'error.account_disabled',
  [ErrorCode.INVITE_CODE_INVALID]: 'error.invite_code_invalid',
  [ErrorCode.OLD_PASSWORD_WRONG]: 'error.old_password_wrong',
  [ErrorCode.NO_CONTACT_FOR_CODE]: 'error.no_contact_for_code',
  [ErrorCode.INSUFFICIENT_BALANCE]: 'error.insufficient_balance',
  [ErrorCode.MARKET_NOT_FOUND]: 'error.market_not_found',
  [ErrorCode.SELLABLE_INSUFFICIENT]: 'error.sellable_insufficient',
  [ErrorCode.FUND_PASSWORD_NOT_SET]: 'error.fund_password_not_set',
  [ErrorCode.QUANTITY_TOO_SMALL]: 'error.quantity_below_min',
  [ErrorCode.PRICE_INVALID]: 'error.price_invalid',
  [ErrorCode.ORDER_NOT_FOUND]: 'error.order_not_found',
  [ErrorCode.ORDER_CLOSED]: 'error.order_closed',
  [ErrorCode.MARKET_BUSY]: 'error.market_busy',
  [ErrorCode.INTERNAL]: 'error.internal',
};
