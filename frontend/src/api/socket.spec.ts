/** The Socket.IO client as `getSocket` uses it: events the test fires, and how often it was told to connect. */
type Handler = (...args: unknown[]) => void;
const made: Array<{ handlers: Record<string, Handler>; active: boolean; connected: boolean; connects: number }> = [];
jest.mock('socket.io-client', () => ({
  io: () => {
    const handlers: Record<string, Handler> = {};
    const s = {
      handlers,
      active: true,
      connected: false,
      connects: 0,
      on: (event: string, fn: Handler) => (handlers[event] = fn),
      listeners: () => [],
      connect() {
        s.connects++;
        s.active = true;
        return s;
      },
      disconnect() {
        s.active = false;
        s.connected = false;
        return s;
      },
    };
    made.push(s);
    return s;
  },
}));

import { useSessionStore } from '../stores/session.store';
import { getSocket, SOCKET_RETRY_MAX_MS, SOCKET_RETRY_MS } from './socket';

beforeEach(() => {
  jest.useFakeTimers();
  // The top of each retry's range (a wait is drawn between half and all of it).
  jest.spyOn(Math, 'random').mockReturnValue(1);
});
afterEach(() => {
  jest.useRealTimers();
  jest.restoreAllMocks();
});

it('a connection the server refused (its session could not be read) is made again by the app (regression: Socket.IO does not retry it, and the app stayed offline)', () => {
  useSessionStore.setState({ token: 'refused-token' });
  getSocket();
  const s = made.at(-1)!;
  // A lost transport: Socket.IO is still at it (active), the app leaves it alone.
  s.handlers.connect_error(new Error('xhr poll error'));
  jest.advanceTimersByTime(SOCKET_RETRY_MS);
  expect(s.connects).toBe(0);
  // Refused by the server's middleware: no longer active.
  s.active = false;
  s.handlers.connect_error(Object.assign(new Error('session unavailable: connect again'), { data: { retry: true } }));
  jest.advanceTimersByTime(SOCKET_RETRY_MS - 1);
  expect(s.connects).toBe(0);
  jest.advanceTimersByTime(1);
  expect(s.connects).toBe(1);
  // Closed by the server once connected: the same.
  s.handlers.connect();
  s.active = false;
  s.handlers.disconnect('io server disconnect');
  jest.advanceTimersByTime(SOCKET_RETRY_MS);
  expect(s.connects).toBe(2);
});

// Regression: the socket took a new token only when a screen next asked for it, so after a logout (the login page
// asks for none) it stayed in the old user's private room, with their notices.
it('a new session reconnects the one socket with its token at once; its listeners stay', () => {
  useSessionStore.setState({ token: 'first-token' });
  const first = getSocket() as unknown as { auth: unknown; connects: number };
  const [before, connects] = [made.length, first.connects];
  useSessionStore.setState({ token: null });
  expect(first.auth).toEqual({ feed: 'batch' });
  expect(first.connects).toBe(connects + 1);
  useSessionStore.setState({ token: 'second-token' });
  expect(first.auth).toMatchObject({ token: 'second-token', feed: 'batch' });
  expect(first.connects).toBe(connects + 2);
  expect(getSocket()).toBe(first);
  expect(made.length).toBe(before);
});

// Regression: every app refused at once (a server restarting) came back every 2 s in step, for ever.
it('refusals in a row wait twice as long each time, up to a bound, drawn between half and all of it; a connect starts again', () => {
  useSessionStore.setState({ token: 'busy-token' });
  getSocket();
  const s = made.at(-1)!;
  s.handlers.connect();
  const refuse = () => {
    s.active = false;
    s.handlers.connect_error(new Error('session unavailable: connect again'));
  };
  const waited = () => {
    const before = s.connects;
    let ms = 0;
    while (s.connects === before && ms < 60_000) {
      jest.advanceTimersByTime(100);
      ms += 100;
    }
    return ms;
  };
  const waits = [1, 2, 3, 4, 5, 6].map(() => (refuse(), waited()));
  expect(waits).toEqual([2000, 4000, 8000, 16000, SOCKET_RETRY_MAX_MS, SOCKET_RETRY_MAX_MS]);
  s.handlers.connect();
  jest.spyOn(Math, 'random').mockReturnValue(0);
  refuse();
  expect(waited()).toBe(SOCKET_RETRY_MS / 2);
});
