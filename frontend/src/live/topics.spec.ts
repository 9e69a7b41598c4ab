const acks: Array<(answer: unknown) => void> = [];
const fakeSocket = {
  connected: true,
  recovered: false,
  on: () => undefined,
  off: () => undefined,
  emit: (event: string, _topics: unknown, ack?: (answer: unknown) => void) => void (event === 'subscribe' && ack && acks.push(ack)),
};
jest.mock('../api/socket', () => ({ getSocket: () => fakeSocket }));

import { followTopics, SUBSCRIBE_RETRY_MS } from './topics';

afterEach(() => jest.useRealTimers());

it('a subscribe answered with an error is sent again until a snapshot comes (regression: the screen went on without the history before the pushes)', () => {
  jest.useFakeTimers();
  const snaps: unknown[] = [];
  const stop = followTopics(['depth:BTC/USDT'], (s) => snaps.push(s));
  acks.shift()!({ error: 'snapshot unavailable: subscribe again' });
  expect(acks).toHaveLength(0);
  jest.advanceTimersByTime(SUBSCRIBE_RETRY_MS);
  expect(acks).toHaveLength(1);
  acks.shift()!([{ topic: 'depth:BTC/USDT', seq: 3, data: null }]);
  expect(snaps).toEqual([{ topic: 'depth:BTC/USDT', seq: 3, data: null }]);
  stop();
  // Stopped: an error answer after it is not retried.
  jest.advanceTimersByTime(SUBSCRIBE_RETRY_MS * 3);
  expect(acks).toHaveLength(0);
});
