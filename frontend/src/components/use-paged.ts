import { useCallback, useRef, useState } from 'react';

/**
 * A list read a page at a time and appended by "Load more". Reading page 1 again (`reload`) drops a
 * later page still on its way. A first page that fails sets `failed` (the screen offers a retry); a
 * later one, or a reload over a list already shown, leaves the list as it was. `more`: the last page was full. `idOf` drops items already
 * shown (a list that moved between two pages); `onPage` sees every page as answered.
 */
export function usePaged<P extends { items: unknown[] }>(
  fetchPage: (page: number) => Promise<P>,
  pageSize: number,
  opts: { idOf?: (item: P['items'][number]) => unknown; onPage?: (page: P) => void } = {},
) {
  const [items, setItems] = useState<Array<P['items'][number]> | null>(null);
  const [failed, setFailed] = useState(false);
  const [page, setPage] = useState(0);
  const [more, setMore] = useState(false);
  const [busy, setBusy] = useState(false);
  const run = useRef(0);
  // The caller's functions as of its last render (a page's answer uses those, not the first render's).
  const latest = useRef({ fetchPage, opts });
  latest.current = { fetchPage, opts };
  const load = useCallback(
    (next: number) => {
      const mine = next === 1 ? ++run.current : run.current;
      if (next === 1) setFailed(false);
      setBusy(true);
      const { fetchPage: fetch, opts: o } = latest.current;
      fetch(next).then(
        (p) => {
          if (mine !== run.current) return;
          const idOf = o.idOf;
          setItems((old) => (next === 1 || !old ? p.items : [...old, ...(idOf ? p.items.filter((m) => !old.some((x) => idOf(x) === idOf(m))) : p.items)]));
          setPage(next);
          setMore(p.items.length >= pageSize);
          o.onPage?.(p);
          setBusy(false);
        },
        () => {
          if (mine !== run.current) return;
          // A first page that failed offers a retry (shown while there is no list); a list already shown stays, with its button.
          if (next === 1) setFailed(true);
          setBusy(false);
        },
      );
    },
    [pageSize],
  );
  const reload = useCallback(() => load(1), [load]);
  return { items, setItems, failed, more, busy, reload, loadMore: () => load(page + 1) };
}
