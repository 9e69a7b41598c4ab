import { Empty, LoadFailed, Skeleton } from '../../components/feedback';
import type { MarketsState } from './use-markets';

/** What a market screen shows while it has no market: the list loading, its load failed (try again), or no market listed. */
export function MarketsPending({ state, retry }: { state: MarketsState; retry: () => void }) {
  if (state === 'failed') return <LoadFailed onRetry={retry} />;
  if (state === 'ready') return <Empty />;
  return <Skeleton rows={6} />;
}
