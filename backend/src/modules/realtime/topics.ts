import type { Period, Topic } from '@kestrel/contracts';
import { normalizeSymbol } from '../engine/market-registry.service';
import { REQUEST_PERIODS } from '../market/periods';

export type ParsedTopic = { kind: 'tickers' } | { kind: 'depth' | 'trades'; symbol: string } | { kind: 'kline'; symbol: string; period: Period };

/** "depth:BTC/USDT" → {kind, symbol}; undefined for anything else. */
export function parseTopic(topic: unknown): ParsedTopic | undefined {
  if (typeof topic !== 'string' || topic.length > 64) return undefined;
  if (topic === 'tickers') return { kind: 'tickers' };
  const [kind, symbol, period, ...rest] = topic.split(':');
  if (rest.length || !symbol) return undefined;
  if ((kind === 'depth' || kind === 'trades') && period === undefined) return { kind, symbol };
  if (kind === 'kline' && (REQUEST_PERIODS as readonly string[]).includes(period)) return { kind, symbol, period: period as Period };
  return undefined;
}

/**
 * A parsed topic's name. With the market's canonical symbol (`MarketFeedService.canonical`) it is
 * the one room the topic is published to, however the client spelled it.
 */
export function topicOf(parsed: ParsedTopic): Topic {
  if (parsed.kind === 'tickers') return 'tickers';
  return parsed.kind === 'kline' ? klineTopic(parsed.symbol, parsed.period) : `${parsed.kind}:${parsed.symbol}`;
}

/**
 * A parsed topic compared as the market registry finds a symbol (`MarketRegistry.find`: case and
 * separators ignored): equal for two spellings of one topic. Matches a followed topic whose market
 * the registry no longer holds (disabled at run time), which `canonical` cannot name.
 */
export function topicKey(parsed: ParsedTopic): string {
  if (parsed.kind === 'tickers') return 'tickers';
  return topicOf({ ...parsed, symbol: normalizeSymbol(parsed.symbol) });
}

export const depthTopic = (symbol: string): Topic => `depth:${symbol}`;
export const tradesTopic = (symbol: string): Topic => `trades:${symbol}`;
export const klineTopic = (symbol: string, period: Period): Topic => `kline:${symbol}:${period}`;
export const userRoom = (userId: number) => `user:${userId}`;

/**
 * Sockets that take their market data batched (`auth.feed = 'batch'`) share one room per distinct
 * set of topics instead of a room per topic: a conflation cycle is then encoded once per set and
 * written once per socket (one frame, not one per topic).
 */
const FEED_ROOM = 'feed:';
export const feedRoom = (topics: readonly string[]): string => FEED_ROOM + [...topics].sort().join('|');
/** The topics of a feed room; undefined for any other room. */
export const feedRoomTopics = (room: string): string[] | undefined => (room.startsWith(FEED_ROOM) ? room.slice(FEED_ROOM.length).split('|') : undefined);
