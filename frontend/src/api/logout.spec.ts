import { useSessionStore, type User } from '../stores/session.store';
import { useToastStore } from '../stores/toast.store';
import { endPendingSessions, logOut, LOGOUT_RETRY_MS, PENDING_LOGOUT_KEY } from './logout';

const user = { id: 7, account: 'a@b.co', nickname: 'a' } as User;
const pendingTokens = () => JSON.parse(localStorage.getItem(PENDING_LOGOUT_KEY) ?? '[]') as string[];
const answer = (body: unknown) => Promise.resolve({ json: () => Promise.resolve(body) });
const offline = () => Promise.reject(new TypeError('Failed to fetch'));

beforeEach(() => {
  useToastStore.setState({ toasts: [] });
  useSessionStore.getState().setSession('tok-1', user);
});

describe('logging out', () => {
  it('online: the server ends the session, the device forgets it, nothing is left to end', async () => {
    const fetchMock = jest.fn(() => answer({ type: 'ok', code: 1, message: 'Logged out', data: null }));
    global.fetch = fetchMock as unknown as typeof fetch;
    expect(await logOut()).toBe('Logged out');
    expect(fetchMock).toHaveBeenCalledTimes(1);
    expect(useSessionStore.getState().token).toBeNull();
    expect(localStorage.getItem(PENDING_LOGOUT_KEY)).toBeNull();
  });

  it('offline: the device forgets the session at once and ends it on the server once online', async () => {
    global.fetch = jest.fn(offline) as unknown as typeof fetch;
    expect(await logOut()).toBe('Logged out on this device. The session also ends on the server when you are back online.');
    expect(useSessionStore.getState().token).toBeNull();
    expect(pendingTokens()).toEqual(['tok-1']);

    // Still offline: kept for the next time.
    await endPendingSessions();
    expect(pendingTokens()).toEqual(['tok-1']);

    // Online, and logged in again meanwhile: the old token is ended with its own header; the new session is untouched.
    useSessionStore.getState().setSession('tok-2', user);
    const fetchMock = jest.fn((_url: string, init: RequestInit) =>
      answer((init.headers as Record<string, string>).Authorization === 'tok-1' ? { type: 'ok', code: 1, message: 'Logged out', data: null } : null),
    );
    global.fetch = fetchMock as unknown as typeof fetch;
    await endPendingSessions();
    expect(fetchMock).toHaveBeenCalledTimes(1);
    expect(fetchMock.mock.calls[0][0]).toBe('./api/user/logout');
    expect(localStorage.getItem(PENDING_LOGOUT_KEY)).toBeNull();
    expect(useSessionStore.getState().token).toBe('tok-2');
  });

  // Regression: an error answer (the server's database away a moment) forgot the token as if the
  // logout had been done, and a queued one answered with an error was dropped: the session kept working.
  it('a logout the server answers with an error keeps the token aside and ends it later, asking again while it fails; an error answer keeps it too', async () => {
    jest.useFakeTimers();
    try {
      const failing = jest.fn(() => answer({ type: 'error', code: 9000, message: 'Server error', data: null }));
      global.fetch = failing as unknown as typeof fetch;
      expect(await logOut()).toBe('Logged out on this device. The server could not end the session just now: the app ends it there as soon as it can.');
      expect(useSessionStore.getState().token).toBeNull();
      expect(pendingTokens()).toEqual(['tok-1']);
      expect(useToastStore.getState().toasts).toEqual([]);
      await endPendingSessions();
      expect(pendingTokens()).toEqual(['tok-1']);
      // Still failing when the app asks again: kept, and asked again later (the wait doubles).
      failing.mockClear();
      await jest.advanceTimersByTimeAsync(LOGOUT_RETRY_MS);
      expect(failing).toHaveBeenCalledTimes(1);
      expect(pendingTokens()).toEqual(['tok-1']);
      const ended = jest.fn((_url: string, _init: RequestInit) => answer({ type: 'ok', code: 1, message: 'Logged out', data: null }));
      global.fetch = ended as unknown as typeof fetch;
      await jest.advanceTimersByTimeAsync(LOGOUT_RETRY_MS);
      expect(ended).not.toHaveBeenCalled();
      await jest.advanceTimersByTimeAsync(LOGOUT_RETRY_MS);
      expect(ended).toHaveBeenCalledTimes(1);
      expect((ended.mock.calls[0][1].headers as Record<string, string>).Authorization).toBe('tok-1');
      expect(localStorage.getItem(PENDING_LOGOUT_KEY)).toBeNull();
    } finally {
      jest.useRealTimers();
    }
  });

  it('a token the server no longer knows (expired) is forgotten without touching the session in use', async () => {
    localStorage.setItem(PENDING_LOGOUT_KEY, JSON.stringify(['old']));
    global.fetch = jest.fn(() => answer({ type: '999', code: 401, message: 'Please log in', data: null })) as unknown as typeof fetch;
    await endPendingSessions();
    expect(localStorage.getItem(PENDING_LOGOUT_KEY)).toBeNull();
    expect(useSessionStore.getState().token).toBe('tok-1');
    expect(useToastStore.getState().toasts).toEqual([]);
  });
});
