import { act, renderHook } from '@testing-library/react';
import { ApiError } from '../api/client';
import { useMoneySubmit } from './client-id';

describe('useMoneySubmit', () => {
  it('ignores a second press while the first is in flight, and renews the id after an answer', async () => {
    const { result } = renderHook(() => useMoneySubmit());
    const ids: string[] = [];
    let release!: () => void;
    const slow = (id: string) => {
      ids.push(id);
      return new Promise<string>((r) => (release = () => r('ok')));
    };
    let first!: Promise<unknown>;
    await act(async () => {
      first = result.current.run(slow);
      await expect(result.current.run(slow)).resolves.toBeUndefined();
    });
    await act(async () => {
      release();
      await first;
    });
    await act(async () => {
      const p = result.current.run(slow);
      release();
      await p;
    });
    expect(ids).toHaveLength(2);
    expect(ids[0]).not.toBe(ids[1]);
  });

  it('keeps the id after a network failure so the retry has one effect', async () => {
    const { result } = renderHook(() => useMoneySubmit());
    const ids: string[] = [];
    await act(async () => {
      await expect(result.current.run(async (id) => (ids.push(id), Promise.reject(new ApiError('net', 0))))).rejects.toThrow();
    });
    await act(async () => {
      await result.current.run(async (id) => ids.push(id));
    });
    expect(ids[0]).toBe(ids[1]);
  });
});
