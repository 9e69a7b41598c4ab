import { act, renderHook, waitFor } from '@testing-library/react';

jest.mock('../../api/socket', () => ({ getSocket: () => jest.requireActual('../../../test/fake-socket').fakeSocket }));

import { noticeApi } from '../../api/news';
import { fire, resetFakeSocket } from '../../../test/fake-socket';
import { useSessionStore, type User } from '../../stores/session.store';
import { useUnreadNotices, useUnreadStore } from './unread.store';

afterEach(() => {
  jest.restoreAllMocks();
  resetFakeSocket();
});

// Regression: the count was read once per session; a message sent while the socket was down (never pushed) left
// the badge at its old count until the screen was left and opened again.
it('the unread count is read again after a reconnect and when the app is shown again', async () => {
  useSessionStore.getState().setSession('tok', { id: 1 } as User);
  const unread = jest.spyOn(noticeApi, 'unread').mockResolvedValueOnce({ unread: 0 } as never);
  const { result } = renderHook(() => useUnreadNotices());
  await waitFor(() => expect(unread).toHaveBeenCalledTimes(1));
  unread.mockResolvedValueOnce({ unread: 2 } as never);
  act(() => fire('connect'));
  await waitFor(() => expect(result.current).toBe(2));
  const version = useUnreadStore.getState().version;
  unread.mockResolvedValueOnce({ unread: 3 } as never);
  act(() => void document.dispatchEvent(new Event('visibilitychange')));
  await waitFor(() => expect(result.current).toBe(3));
  expect(useUnreadStore.getState().version).toBe(version + 1);
});

it("an unread count answered after the session changed is not shown (another user's count)", async () => {
  useSessionStore.getState().setSession('tok-a', { id: 1 } as User);
  let answer: (v: { unread: number }) => void = () => undefined;
  const unread = jest.spyOn(noticeApi, 'unread').mockResolvedValueOnce({ unread: 0 } as never);
  const { result } = renderHook(() => useUnreadNotices());
  await waitFor(() => expect(unread).toHaveBeenCalledTimes(1));
  unread.mockReturnValueOnce(new Promise((r) => (answer = r)) as never);
  act(() => void document.dispatchEvent(new Event('visibilitychange')));
  expect(unread).toHaveBeenCalledTimes(2);
  act(() => useSessionStore.getState().clear());
  await act(async () => answer({ unread: 7 }));
  expect(result.current).toBe(0);
});
