import type { CandleData, DepthData, Period, SpotOrderView, TradeData } from '@kestrel/contracts';
import { get, post, put } from './client';

/** Spot trading and market data calls (docs/api.md "Spot trading", "Market data"). */
export interface MarketInfo {
  symbol: string;
  base: string;
  quote: string;
  tick_size: string;
  lot_size: string;
  min_qty: string;
  price_decimals: number;
  qty_decimals: number;
  maker_fee: string;
  taker_fee: string;
}
export type OrderStatus = SpotOrderView['status'];
/** As /api/coin/trade answers it (the type lives once, in contracts). */
export type Order = SpotOrderView;
export interface Page<T> {
  items: T[];
  total: number;
  page: number;
  limit: number;
}
export interface PlaceOrder {
  symbol: string;
  side: 'buy' | 'sell';
  type: 'limit' | 'market';
  price?: string;
  quantity?: string;
  amount?: string;
  client_order_id: string;
}

export const tradingApi = {
  markets: () => get<MarketInfo[]>('currencyMatch/all', undefined, { quiet: true }),
  depth: (symbol: string) => get<DepthData>('currency/depth', { symbol, levels: 20 }, { quiet: true }),
  deals: (symbol: string) => get<TradeData[]>('currency/deal', { symbol, limit: 30 }, { quiet: true }),
  candles: (symbol: string, period: Period, to?: number) => post<CandleData[]>('kline/historyV3', { symbol, period, to, limit: 300 }, { quiet: true }),
  place: (order: PlaceOrder) => post<Order>('coin/trade', { ...order }),
  cancel: (orderId: string) => put<Order>('coin/trade', { order_id: orderId }),
  orders: (params: { status?: OrderStatus; symbol?: string; page?: number; limit?: number }) => get<Page<Order>>('coin/list', params),
};
