import { act, renderHook } from '@testing-library/react';

/** A socket whose events the test fires. */
const handlers: Record<string, (...args: unknown[]) => void> = {};
const fakeSocket = {
  recovered: false,
  on: (event: string, fn: (...args: unknown[]) => void) => (handlers[event] = fn),
  off: (event: string) => delete handlers[event],
};
jest.mock('../api/socket', () => ({ getSocket: () => fakeSocket }));

import { useLive, useLiveStore } from './live.store';

it('a reconnect without recovery drops the balances pushed before it, so the fresh snapshots stand (regression: an old push stood over them)', () => {
  const { unmount } = renderHook(() => useLive());
  act(() => handlers.connect());
  act(() => handlers.balance({ seq: 4, data: [{ account_type: 'coin', currency_id: 1, symbol: 'BTC', available: '0.5', frozen: '0' }] }));
  expect(useLiveStore.getState().balances['coin:1']).toMatchObject({ available: '0.5' });
  act(() => handlers.disconnect());
  act(() => handlers.connect());
  expect(useLiveStore.getState()).toMatchObject({ status: 'live', resync: 1, balanceSeq: -1 });
  expect(useLiveStore.getState().balances).toEqual({});
  // The pushes after it apply again from their first seq.
  act(() => handlers.balance({ seq: 1, data: [{ account_type: 'coin', currency_id: 1, symbol: 'BTC', available: '0.2', frozen: '0' }] }));
  expect(useLiveStore.getState().balances['coin:1']).toMatchObject({ available: '0.2' });
  unmount();
});
