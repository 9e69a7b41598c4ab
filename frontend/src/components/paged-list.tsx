import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Empty, LoadFailed, Skeleton } from './feedback';
import type { Paged } from './use-paged';

/**
 * A list read a page at a time (`usePaged`), in its states: placeholder rows while the first page
 * loads, a retry when it failed (not the empty state, which would say there is nothing), the empty
 * state, the items, and "Load more" while the last page was full.
 */
export function PagedList<T>({
  list,
  skeleton,
  empty,
  children,
}: {
  list: Paged<T>;
  skeleton?: ReactNode;
  /** What an empty list shows instead of "No data". */
  empty?: ReactNode;
  children: (items: T[]) => ReactNode;
}) {
  const { t } = useTranslation();
  if (list.items === null) return list.failed ? <LoadFailed onRetry={list.reload} /> : <>{skeleton ?? <Skeleton rows={3} height={64} />}</>;
  return (
    <>
      {list.items.length === 0 ? (empty ?? <Empty />) : children(list.items)}
      {list.more && (
        <button type="button" className="button button--block" onClick={list.loadMore} disabled={list.busy}>
          {t('common.loadMore')}
        </button>
      )}
    </>
  );
}
