import { act, renderHook, waitFor } from '@testing-library/react';

const fakeSocket = { recovered: false, connected: false, on: () => undefined, off: () => undefined, emit: () => undefined };
jest.mock('../api/socket', () => ({ getSocket: () => fakeSocket }));

import { ApiError } from '../api/client';
import { walletApi, type WalletList } from '../api/wallet';
import { useAccountHoldings } from './use-balances';

const list: WalletList = {
  pricing: { code: 'USD', symbol: '$', rate: '1' } as WalletList['pricing'],
  total_value: '100',
  accounts: [
    {
      account: 'coin',
      total_value: '100',
      items: [{ currency_id: 3, symbol: 'USDT', total: '100', available: '100', frozen: '0', value: '100', decimals: 4 }],
    },
  ],
};

afterEach(() => {
  jest.useRealTimers();
  jest.restoreAllMocks();
});

it('a first load of the holdings that fails is tried again by itself (regression: the trade form read 0 and refused every order until the page was left)', async () => {
  jest.useFakeTimers();
  const load = jest.spyOn(walletApi, 'list').mockRejectedValueOnce(new ApiError('Network error', 0)).mockResolvedValue(list);
  const { result } = renderHook(() => useAccountHoldings('coin'));
  await act(async () => undefined);
  expect(result.current.loaded).toBe(false);
  await act(async () => void jest.advanceTimersByTime(3000));
  await waitFor(() => expect(result.current.loaded).toBe(true));
  expect(result.current.holdings.USDT).toMatchObject({ available: '100' });
  expect(load).toHaveBeenCalledTimes(2);
});
