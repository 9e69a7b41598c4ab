import { useSessionStore, type User } from '../stores/session.store';
import { useToastStore } from '../stores/toast.store';
import { applyResponseRule, ApiError, authEvents, formEncode, NOT_LOGGED_IN, request, TIMEOUT_MS } from './client';

const user = { id: 7, account: 'a@b.co', nickname: 'a' } as User;
const toasts = () => useToastStore.getState().toasts.map((t) => t.text);

function mockFetch(body: unknown) {
  const fn = jest.fn().mockResolvedValue({ json: () => Promise.resolve(body) });
  global.fetch = fn as unknown as typeof fetch;
  return fn;
}

beforeEach(() => {
  useToastStore.setState({ toasts: [] });
  useSessionStore.getState().setSession('tok-1', user);
  window.location.hash = '#/pages/assets/index';
});
afterEach(() => jest.useRealTimers());

describe('the response rule (spec §8)', () => {
  it('success yields the data, or the message when there is none', () => {
    expect(applyResponseRule({ type: 'ok', code: 1, message: 'Success', data: { x: 1 } })).toEqual({ x: 1 });
    expect(applyResponseRule({ type: 'ok', code: 1, message: 'Password changed', data: null })).toBe('Password changed');
    expect(applyResponseRule({ type: 'x', code: 1, message: 'm', data: [1] })).toEqual([1]);
    expect(toasts()).toEqual([]);
  });

  it.each([
    ['code 401', { type: '999', code: 401, message: 'Please log in', data: null }],
    ['type 999', { type: '999', code: 0, message: 'Please log in', data: null }],
    ['code 404', { type: 'error', code: 404, message: 'Please log in', data: null }],
  ])('%s: clears the session, toasts, emits not-logged-in, opens login after 0.5 s with backpage/backtype', (_, body) => {
    jest.useFakeTimers();
    const heard = jest.fn();
    authEvents.addEventListener(NOT_LOGGED_IN, heard);
    expect(() => applyResponseRule(body)).toThrow(ApiError);
    authEvents.removeEventListener(NOT_LOGGED_IN, heard);
    expect(useSessionStore.getState()).toMatchObject({ token: null, user: null });
    expect(localStorage.getItem('token')).toBeNull();
    expect(localStorage.getItem('user')).toBeNull();
    expect(toasts()).toEqual(['Please log in']);
    expect(heard).toHaveBeenCalledTimes(1);
    jest.advanceTimersByTime(499);
    expect(window.location.hash).toBe('#/pages/assets/index');
    jest.advanceTimersByTime(1);
    // Assets is a tab page: backtype 2.
    expect(window.location.hash).toBe(`#/pages/user/login/login?backpage=${encodeURIComponent('/pages/assets/index')}&backtype=2`);
    jest.advanceTimersByTime(1000);
  });

  it('uses backtype 1 for a page that is not a tab, and keeps its query', () => {
    jest.useFakeTimers();
    window.location.hash = '#/pages/settings/security/changePassword?x=1';
    expect(() => applyResponseRule({ type: '999', code: 401, message: 'Please log in' })).toThrow();
    jest.advanceTimersByTime(500);
    expect(window.location.hash).toBe(`#/pages/user/login/login?backpage=${encodeURIComponent('/pages/settings/security/changePassword?x=1')}&backtype=1`);
    jest.advanceTimersByTime(1000);
  });

  it('opens login once for answers arriving together (the guard resets after 1 s)', () => {
    jest.useFakeTimers();
    const spy = jest.spyOn(window, 'setTimeout');
    expect(() => applyResponseRule({ code: 401, message: 'a' })).toThrow();
    const afterFirst = spy.mock.calls.length;
    expect(() => applyResponseRule({ code: 401, message: 'a' })).toThrow();
    expect(spy.mock.calls.length - afterFirst).toBeLessThanOrEqual(1); // only the toast's own timer
    jest.advanceTimersByTime(1500);
    spy.mockRestore();
  });

  it('any other answer toasts its message (or ERROR) and fails', () => {
    expect(() => applyResponseRule({ type: 'error', code: 2000, message: 'Insufficient balance', data: null })).toThrow('Insufficient balance');
    expect(() => applyResponseRule({ type: 'error', code: 9000, message: '' })).toThrow('ERROR');
    expect(() => applyResponseRule(null)).toThrow('ERROR');
    expect(toasts()).toEqual(['Insufficient balance', 'ERROR']);
    expect(useSessionStore.getState().token).toBe('tok-1');
  });

  it('quiet calls fail without a toast', () => {
    expect(() => applyResponseRule({ type: 'error', code: 1000, message: 'No' }, { quiet: true })).toThrow('No');
    expect(toasts()).toEqual([]);
  });
});

describe('request', () => {
  it('POSTs a form-encoded body with the Authorization and lang headers', async () => {
    const fetchMock = mockFetch({ type: 'ok', code: 1, message: 'Success', data: { ok: true } });
    localStorage.setItem('lang', 'zh');
    await expect(request('POST', 'user/login', { account: 'a b@x.co', password: 'p&q', skip: undefined })).resolves.toEqual({ ok: true });
    const [url, init] = fetchMock.mock.calls[0];
    expect(url).toBe('./api/user/login');
    expect(init.method).toBe('POST');
    expect(init.headers).toMatchObject({ Authorization: 'tok-1', 'Content-Type': 'application/x-www-form-urlencoded', lang: 'en' });
    expect(init.body).toBe('account=a+b%40x.co&password=p%26q');
  });

  it('GETs with a query string and no token when logged out', async () => {
    useSessionStore.getState().clear();
    const fetchMock = mockFetch({ type: 'ok', code: 1, message: 'Success', data: [] });
    await request('GET', 'coin/list', { page: 2 });
    const [url, init] = fetchMock.mock.calls[0];
    expect(url).toBe('./api/coin/list?page=2');
    expect(init.headers.Authorization).toBeUndefined();
    expect(init.body).toBeUndefined();
  });

  it('gives up after 60 s', async () => {
    jest.useFakeTimers();
    global.fetch = jest.fn(
      (_url: string, init: RequestInit) =>
        new Promise((_, reject) => init.signal!.addEventListener('abort', () => reject(new Error('aborted')))),
    ) as unknown as typeof fetch;
    const pending = request('GET', 'user/center');
    jest.advanceTimersByTime(TIMEOUT_MS);
    await expect(pending).rejects.toThrow('Network error');
  });

  // Regression: a slow request sent before a logout and a new login answered 401 for the old token, and that
  // cleared the new session (here, and in the storage another tab shares).
  it('a not-logged-in answer for a token no longer in use fails that request and leaves the session', async () => {
    let answer: (body: unknown) => void = () => undefined;
    global.fetch = jest.fn(() => Promise.resolve({ json: () => new Promise((r) => (answer = r)) })) as unknown as typeof fetch;
    const pending = request('GET', 'user/center');
    useSessionStore.getState().setSession('tok-2', user);
    await new Promise((r) => setTimeout(r, 0));
    answer({ type: '999', code: 401, message: 'Please log in', data: null });
    await expect(pending).rejects.toMatchObject({ code: 401 });
    expect(useSessionStore.getState().token).toBe('tok-2');
    expect(localStorage.getItem('token')).toBe('tok-2');
    expect(toasts()).toEqual([]);
  });

  it('a tab whose session ended keeps the one another tab logged in with since', () => {
    localStorage.setItem('token', 'tok-other-tab');
    useSessionStore.getState().clear();
    expect(useSessionStore.getState().token).toBeNull();
    expect(localStorage.getItem('token')).toBe('tok-other-tab');
  });

  it('formEncode leaves out null and undefined', () => {
    expect(formEncode({ a: 1, b: null, c: undefined, d: true, e: '' })).toBe('a=1&d=true&e=');
  });
});
