import { useCallback, useEffect, useRef, useState } from 'react';

/**
 * A screen's read (`read` must be stable: a module function or a memoised one): `data` once
 * answered; `failed` when the last read failed and no answer is shown (the screen offers a retry
 * instead of a skeleton that never ends; a failed reload keeps what is shown); `reload` reads
 * again. Only the latest read's answer is taken (a late one would replace a newer).
 */
export function useLoaded<T>(read: () => Promise<T>): { data: T | null; failed: boolean; reload: () => Promise<void> } {
  const [data, setData] = useState<T | null>(null);
  const [failed, setFailed] = useState(false);
  const latest = useRef(0);
  const reload = useCallback(() => {
    const mine = ++latest.current;
    setFailed(false);
    return read().then(
      (d) => {
        if (mine === latest.current) setData(d);
      },
      () => {
        if (mine === latest.current) setFailed(true);
      },
    );
  }, [read]);
  useEffect(() => void reload(), [reload]);
  return { data, failed: failed && data === null, reload };
}
