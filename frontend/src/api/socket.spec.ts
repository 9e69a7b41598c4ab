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
import { getSocket, SOCKET_RETRY_MS } from './socket';

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

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
  s.active = false;
  s.handlers.disconnect('io server disconnect');
  jest.advanceTimersByTime(SOCKET_RETRY_MS);
  expect(s.connects).toBe(2);
});

it('a socket the app replaced (a new session) is not connected again', () => {
  useSessionStore.setState({ token: 'first-token' });
  getSocket();
  const old = made.at(-1)!;
  old.active = false;
  old.handlers.connect_error(new Error('session unavailable: connect again'));
  useSessionStore.setState({ token: 'second-token' });
  getSocket();
  jest.advanceTimersByTime(SOCKET_RETRY_MS);
  expect(old.connects).toBe(0);
});
