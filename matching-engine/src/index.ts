export type * from './types';
export type { OrderBook, OrderBookFactory } from './order-book';
export type { EventSink } from './event-sink';
export { EventCollector, NullSink } from './event-sink';
export { Fnv1a64, HashingSink, canonicalEvent, hashEvents } from './event-hash';
export { FastBook } from './fast-book';
export { ReferenceBook } from './reference-book';
export { createMarket, formatScaled, parseDecimal } from './market-config';
export type { Market, MarketConfig } from './market-config';
