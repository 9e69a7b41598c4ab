import { AUTH_PAGES, loginPath, pathOnly } from '../app/paths';
import { currentLang, t } from '../i18n/i18n';
import { useSessionStore } from '../stores/session.store';
import { toast } from '../stores/toast.store';

/** Every answer of the API (DESIGN §5): HTTP 200 with this envelope. */
export interface Envelope<T = unknown> {
  type: string;
  code: number;
  message: string;
  data: T;
}

export class ApiError extends Error {
  constructor(
    message: string,
    readonly code: number,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** No answer (the network, a timeout) or a server error (9000 and up): worth asking again, unlike a refusal, which says why. */
export const unanswered = (err: unknown): boolean => !(err instanceof ApiError) || err.code === 0 || err.code >= 9000;

/** Spec §7: the network timeout. */
export const TIMEOUT_MS = 60_000;
/** Spec §8/§9: the login page opens 0.5 s after a not-logged-in answer; the guard resets after 1 s. */
export const LOGIN_REDIRECT_MS = 500;
export const LOGIN_GUARD_MS = 1000;
/** The event emitted on a not-logged-in answer (on `authEvents`). */
export const NOT_LOGGED_IN = 'not-logged-in';
export const authEvents = new EventTarget();

export type Params = Record<string, string | number | boolean | null | undefined>;
export interface RequestOptions {
  /** Business errors are not toasted (the caller shows them, e.g. beside a field). Not-logged-in still applies. */
  quiet?: boolean;
}

const API_BASE = './api';
let redirecting = false;

/** Form encoding (spec §7): undefined and null fields are left out. */
export function formEncode(params: Params = {}): string {
  const form = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null) form.append(k, String(v));
  return form.toString();
}

/** The path (with query) of the current hash route, e.g. "/pages/assets/index". */
export function currentRoute(): string {
  const hash = typeof window === 'undefined' ? '' : window.location.hash.replace(/^#/, '');
  return hash || '/';
}

function notLoggedIn(message: string): void {
  useSessionStore.getState().clear();
  toast(message || t('common.error'));
  authEvents.dispatchEvent(new Event(NOT_LOGGED_IN));
  const from = currentRoute();
  if (redirecting || AUTH_PAGES.has(pathOnly(from))) return;
  redirecting = true;
  setTimeout(() => (redirecting = false), LOGIN_GUARD_MS);
  setTimeout(() => {
    window.location.hash = `#${loginPath(from)}`;
  }, LOGIN_REDIRECT_MS);
}

/**
 * Spec §8, the response rule. Success (type "ok" or code 1) yields the data, or the message when
 * there is none. type "999", code 401 or code 404 means not logged in: the session is cleared, the
 * message toasted, `not-logged-in` emitted and the login page opened after 0.5 s (with backpage and
 * backtype). Anything else toasts its message (or ERROR) and fails. `sentWith`, the token the
 * request carried (null: none): a not-logged-in answer about a session no longer in use (logged
 * out and in again meanwhile, in this tab or another) fails that request and leaves the new one.
 */
export function applyResponseRule<T>(body: Partial<Envelope<T>> | null | undefined, opts: RequestOptions = {}, sentWith?: string | null): T {
  const message = typeof body?.message === 'string' ? body.message : '';
  if (body && (body.type === 'ok' || body.code === 1)) {
    return (body.data === undefined || body.data === null ? message : body.data) as T;
  }
  if (body && (body.type === '999' || body.code === 401 || body.code === 404)) {
    if (sentWith === undefined || sentWith === useSessionStore.getState().token) notLoggedIn(message);
    throw new ApiError(message || t('common.error'), Number(body.code) || 401, body.data);
  }
  const text = message || t('common.error');
  if (!opts.quiet) toast(text);
  throw new ApiError(text, Number(body?.code) || 0, body?.data);
}

/** One call to the API: form-encoded, `Authorization` and `lang` headers, 60 s timeout, the response rule. */
export async function request<T>(method: 'GET' | 'POST' | 'PUT', path: string, params?: Params | FormData, opts: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { lang: currentLang() };
  const token = useSessionStore.getState().token;
  if (token) headers.Authorization = token;
  const multipart = typeof FormData !== 'undefined' && params instanceof FormData;
  const query = multipart ? '' : formEncode(params as Params | undefined);
  let url = `${API_BASE}/${path}`;
  const init: RequestInit = { method, headers };
  if (multipart) {
    // Uploads (multipart): the browser sets the boundary in Content-Type.
    init.body = params as FormData;
  } else if (method === 'GET') {
    if (query) url += `?${query}`;
  } else {
    headers['Content-Type'] = 'application/x-www-form-urlencoded';
    init.body = query;
  }
  const ctrl = new AbortController();
  const timer = setTimeout(() => ctrl.abort(), TIMEOUT_MS);
  let body: Envelope<T> | null;
  try {
    const res = await fetch(url, { ...init, signal: ctrl.signal });
    body = (await res.json().catch(() => null)) as Envelope<T> | null;
  } catch {
    const text = t('common.networkError');
    if (!opts.quiet) toast(text);
    throw new ApiError(text, 0);
  } finally {
    clearTimeout(timer);
  }
  return applyResponseRule<T>(body, opts, token);
}

export const get = <T>(path: string, params?: Params, opts?: RequestOptions) => request<T>('GET', path, params, opts);
export const post = <T>(path: string, params?: Params, opts?: RequestOptions) => request<T>('POST', path, params, opts);
export const put = <T>(path: string, params?: Params, opts?: RequestOptions) => request<T>('PUT', path, params, opts);
/** One image to `upload/image` (multipart field `file`) under the same response rule. */
export const uploadImage = (file: Blob, name = 'image.jpg', opts?: RequestOptions) => {
  const form = new FormData();
  form.append('file', file, name);
  return request<{ id: string; url: string }>('POST', 'upload/image', form, opts);
};

/** An authorised image (`upload/{id}` needs the Authorization header, which an <img> cannot send) as a blob URL. */
export async function fetchImageUrl(url: string): Promise<string> {
  const token = useSessionStore.getState().token;
  const res = await fetch(url.startsWith('/api/') ? `.${url}` : url, { headers: token ? { Authorization: token } : {} });
  if (!res.ok || !(res.headers.get('content-type') ?? '').startsWith('image/')) throw new ApiError(t('common.error'), res.status);
  return URL.createObjectURL(await res.blob());
}
