import { act, renderHook } from '@testing-library/react';
import { useLoaded } from './use-loaded';

/** A read whose answers the test gives, in any order. */
function reads<T>() {
  const pending: Array<{ resolve: (v: T) => void; reject: (e: unknown) => void }> = [];
  const read = () => new Promise<T>((resolve, reject) => pending.push({ resolve, reject }));
  return { read, pending };
}

it('a first read that fails says so (a retry, not a skeleton for ever); the retry that answers shows the data', async () => {
  const r = reads<string>();
  const { result } = renderHook(() => useLoaded(r.read));
  expect(result.current).toMatchObject({ data: null, failed: false });
  await act(async () => r.pending[0].reject(new Error('network')));
  expect(result.current).toMatchObject({ data: null, failed: true });
  act(() => void result.current.reload());
  expect(result.current.failed).toBe(false);
  await act(async () => r.pending[1].resolve('coins'));
  expect(result.current).toMatchObject({ data: 'coins', failed: false });
  // A failed reload keeps what is shown.
  act(() => void result.current.reload());
  await act(async () => r.pending[2].reject(new Error('network')));
  expect(result.current).toMatchObject({ data: 'coins', failed: false });
});

it('only the latest read is taken: an earlier answer arriving late is dropped', async () => {
  const r = reads<string>();
  const { result } = renderHook(() => useLoaded(r.read));
  act(() => void result.current.reload());
  await act(async () => r.pending[1].resolve('new'));
  await act(async () => r.pending[0].resolve('old'));
  expect(result.current.data).toBe('new');
});
