import { act, renderHook } from '@testing-library/react';
import { ApiError } from '../api/client';
import { useSessionStore } from '../stores/session.store';
import { KEPT_MS, useMoneySubmit } from './client-id';

describe('useMoneySubmit', () => {
  it('ignores a second press while the first is in flight, and renews the id after an answer', async () => {
    const { result } = renderHook(() => useMoneySubmit('test'));
    const ids: string[] = [];
    let release!: () => void;
    const slow = (id: string) => {
      ids.push(id);
      return new Promise<string>((r) => (release = () => r('ok')));
    };
    let first!: Promise<unknown>;
    await act(async () => {
      first = result.current.run('r', slow);
      await expect(result.current.run('r', slow)).resolves.toBeUndefined();
    });
    await act(async () => {
      release();
      await first;
    });
    await act(async () => {
      const p = result.current.run('r', slow);
      release();
      await p;
    });
    expect(ids).toHaveLength(2);
    expect(ids[0]).not.toBe(ids[1]);
  });

  it.each([0, 2105, 2106, 2107])('keeps the id after an answer of unknown fate (%i) so a retry of the same request has one effect', async (code) => {
    const { result } = renderHook(() => useMoneySubmit('test'));
    const ids: string[] = [];
    const request = { side: 'buy', quantity: '1' };
    await act(async () => {
      await expect(result.current.run(request, async (id) => (ids.push(id), Promise.reject(new ApiError('?', code))))).rejects.toThrow();
    });
    await act(async () => {
      await result.current.run({ ...request }, async (id) => ids.push(id));
    });
    expect(ids[0]).toBe(ids[1]);
  });

  it('gives an edited request a new id after an unknown fate (regression: the server answered with the first request and the edited one was never placed)', async () => {
    const { result } = renderHook(() => useMoneySubmit('test'));
    const ids: string[] = [];
    await act(async () => {
      await expect(result.current.run({ side: 'buy', quantity: '1' }, async (id) => (ids.push(id), Promise.reject(new ApiError('net', 0))))).rejects.toThrow();
    });
    await act(async () => {
      await result.current.run({ side: 'sell', quantity: '2' }, async (id) => ids.push(id));
    });
    expect(ids[0]).not.toBe(ids[1]);
  });

  it('sends what `derive` worked out for an id again with that id, and works it out anew for a new id', async () => {
    const { result } = renderHook(() => useMoneySubmit('test'));
    const sent: Array<[string, string]> = [];
    let book = '100';
    const send = async (id: string, worst: string) => {
      sent.push([id, worst]);
      if (sent.length === 1) throw new ApiError('?', 2107);
    };
    await act(async () => {
      await expect(result.current.run('order', send, () => book)).rejects.toThrow();
    });
    book = '105';
    await act(async () => {
      await result.current.run('order', send, () => book);
    });
    await act(async () => {
      await result.current.run('order', send, () => book);
    });
    expect(sent[1]).toEqual(sent[0]);
    expect(sent[0][1]).toBe('100');
    expect(sent[2][1]).toBe('105');
    expect(sent[2][0]).not.toBe(sent[0][0]);
  });

  it('renews the id after a refusal', async () => {
    const { result } = renderHook(() => useMoneySubmit('test'));
    const ids: string[] = [];
    await act(async () => {
      await expect(result.current.run('same', async (id) => (ids.push(id), Promise.reject(new ApiError('no', 2000))))).rejects.toThrow();
    });
    await act(async () => {
      await result.current.run('same', async (id) => ids.push(id));
    });
    expect(ids[0]).not.toBe(ids[1]);
  });

  it('keeps the id for the screen (scope) when it is left and opened again, and only for it (regression: the retry after a remount was a second order)', async () => {
    const ids: string[] = [];
    const request = { side: 'buy', quantity: '1' };
    const first = renderHook(() => useMoneySubmit('trade'));
    await act(async () => {
      await expect(first.result.current.run(request, async (id) => (ids.push(id), Promise.reject(new ApiError('?', 2107))))).rejects.toThrow();
    });
    first.unmount();
    const other = renderHook(() => useMoneySubmit('lever'));
    expect(other.result.current.holds(request)).toBe(false);
    const again = renderHook(() => useMoneySubmit('trade'));
    expect(again.result.current.holds(request)).toBe(true);
    await act(async () => {
      await again.result.current.run(request, async (id) => ids.push(id));
    });
    expect(ids[1]).toBe(ids[0]);
    // Answered: the next order is a new one.
    expect(again.result.current.holds(request)).toBe(false);
  });

  it('does not keep an id across sessions: another login sends its own', async () => {
    const ids: string[] = [];
    useSessionStore.setState({ token: 'token-a' });
    const { result } = renderHook(() => useMoneySubmit('trade'));
    await act(async () => {
      await expect(result.current.run('order', async (id) => (ids.push(id), Promise.reject(new ApiError('?', 0))))).rejects.toThrow();
    });
    useSessionStore.setState({ token: 'token-b' });
    expect(result.current.holds('order')).toBe(false);
    await act(async () => {
      await result.current.run('order', async (id) => ids.push(id));
    });
    expect(ids[1]).not.toBe(ids[0]);
    useSessionStore.setState({ token: null });
  });

  it('keeps the id for a few minutes only: the same request sent later is a new one (regression review: the server answered it with the first, and nothing was placed)', async () => {
    const ids: string[] = [];
    const now = jest.spyOn(Date, 'now').mockReturnValue(1_000_000);
    const { result } = renderHook(() => useMoneySubmit('trade'));
    await act(async () => {
      await expect(result.current.run('order', async (id) => (ids.push(id), Promise.reject(new ApiError('?', 2107))))).rejects.toThrow();
    });
    now.mockReturnValue(1_000_000 + KEPT_MS);
    expect(result.current.holds('order')).toBe(true);
    now.mockReturnValue(1_000_000 + KEPT_MS + 1);
    expect(result.current.holds('order')).toBe(false);
    await act(async () => {
      await result.current.run('order', async (id) => ids.push(id));
    });
    expect(ids[1]).not.toBe(ids[0]);
    now.mockRestore();
  });
});
