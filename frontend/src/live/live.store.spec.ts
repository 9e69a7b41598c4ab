import { act, renderHook } from '@testing-library/react';

/** A socket whose events the test fires. */
const handlers: Record<string, (...args: unknown[]) => void> = {};
const fakeSocket = {
  recovered: false,
  on: (event: string, fn: (...args: unknown[]) => void) => (handlers[event] = fn),
  off: (event: string) => delete handlers[event],
};
jest.mock('../api/socket', () => ({ getSocket: () => fakeSocket }));

import { useSessionStore } from '../stores/session.store';
import { useToastStore } from '../stores/toast.store';
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

it('settlement toasts show P/L and a returned stake truncated to 4 decimals, as the position and option lists do (they showed the 8 the push carries)', () => {
  const { unmount } = renderHook(() => useLive());
  const texts = () => useToastStore.getState().toasts.map((x) => x.text);
  act(() =>
    handlers.position({
      seq: 1,
      data: { positions: [], closed: [{ id: '7', symbol: 'BTC/USDT', status: 'closed', reason: 'liquidation', pnl: '-12.34567891' }] },
    }),
  );
  act(() => handlers.option({ data: { symbol: 'BTC/USDT', result: 'win', pnl: '1234.56789999' } }));
  act(() => handlers.option({ data: { symbol: 'ETH/USDT', result: 'void', payout: '10.99999999' } }));
  expect(texts()).toEqual(
    expect.arrayContaining([
      expect.stringContaining('P/L -12.3456 USDT'),
      expect.stringContaining('P/L 1,234.5678 USDT'),
      expect.stringContaining('the stake of 10.9999 USDT'),
    ]),
  );
  unmount();
});

it("a signed-in socket's first connect makes the screens read again: their first reads may have come before it was in its private room (regression: a change between the two was never seen)", () => {
  useSessionStore.setState({ token: 'a-token' });
  try {
    const { unmount } = renderHook(() => useLive());
    const before = useLiveStore.getState().resync;
    act(() => handlers.connect());
    expect(useLiveStore.getState()).toMatchObject({ status: 'live', resync: before + 1 });
    unmount();
    // A visitor's socket has no private pushes to miss: its first connect reads nothing again.
    useSessionStore.setState({ token: null });
    const visitor = renderHook(() => useLive());
    act(() => handlers.connect());
    expect(useLiveStore.getState().resync).toBe(before + 1);
    visitor.unmount();
  } finally {
    useSessionStore.setState({ token: null });
  }
});
