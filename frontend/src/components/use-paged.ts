import { useCallback, useRef, useState } from 'react';

/**
 * A list read a page at a time and appended by "Load more". Reading page 1 again (`reload`) drops a
 * later page still on its way. A first page that fails sets `failed` (the screen offers a retry); a
 * later one, or a reload over a list already shown, leaves the list as it was (`reload` resolves
 * when its page is in, for a pull-down refresh). `restart` (another tab or filter) also clears the
 * list shown meanwhile. `more`: the last page was full. `idOf` drops items already shown (a list
 * that moved between two pages); `onPage` sees every page as answered. `refresh` (a live list
 * that grew at the top: new ledger lines, a delivered option) reads page 1 again and shows it
 * followed by the rows already loaded that it does not hold, so the pages the user opened stay; when
 * page 1 holds none of the rows shown (more new rows than a page: a gap could hide some) it is
 * `reload`, as it is without `idOf` or with no list yet.
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
      return fetch(next).then(
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
  /** Another list (a tab, a filter): nothing shown until its page 1 comes. */
  const restart = useCallback(() => {
    setItems(null);
    void load(1);
  }, [load]);
  const shown = useRef<typeof items>(null);
  shown.current = items;
  const refresh = useCallback(() => {
    const { fetchPage: fetch, opts: o } = latest.current;
    const idOf = o.idOf;
    if (!idOf || shown.current === null) {
      void load(1);
      return;
    }
    const mine = run.current;
    void fetch(1).then(
      (p) => {
        if (mine !== run.current) return;
        const old = shown.current ?? [];
        const fresh = new Set(p.items.map(idOf));
        // A page 1 that is not full is the whole list; one that meets none of the rows shown may have
        // more new rows behind it than it holds: read again from the start rather than leave a gap.
        if (p.items.length < pageSize) {
          setItems(p.items);
          setMore(false);
        } else if (!old.some((x) => fresh.has(idOf(x)))) {
          void load(1);
          return;
        } else setItems([...p.items, ...old.filter((x) => !fresh.has(idOf(x)))]);
        o.onPage?.(p);
      },
      // The list shown stays (a later refresh or a reload tries again).
      () => undefined,
    );
  }, [load, pageSize]);
  return { items, setItems, failed, more, busy, reload, restart, refresh, loadMore: () => load(page + 1) };
}

/** What a screen renders a paged list from (`PagedList`). */
export type Paged<T> = { items: T[] | null; failed: boolean; more: boolean; busy: boolean; reload: () => void; loadMore: () => void };
