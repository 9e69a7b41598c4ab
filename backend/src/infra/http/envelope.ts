/** The one answer shape of /api (DESIGN §5): always HTTP 200 with this body. */
export interface Envelope<T = unknown> {
  type: string;
  code: number;
  message: string;
  data: T;
}

/** Returned by a handler that wants a specific success message (otherwise "Success"). */
export class Reply<T> {
  constructor(
    readonly data: T,
    readonly messageKey: import('../i18n/catalogue').MessageKey = 'common.ok',
  ) {}
}
