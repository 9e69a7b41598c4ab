import type { CandleData } from '@kestrel/contracts';
import { get, post } from './client';

/** The Markets tab: favourites of the logged-in user (`market/favorites*`) and the 24 h sparkline's hourly candles. */
export const marketsApi = {
  favorites: () => get<{ symbols: string[] }>('market/favorites', undefined, { quiet: true }),
  addFavorite: (symbol: string) => post<{ symbols: string[] }>('market/favorites/add', { symbol }),
  removeFavorite: (symbol: string) => post<{ symbols: string[] }>('market/favorites/remove', { symbol }),
  /** The last 24 hourly closes of a market. */
  spark: (symbol: string) => post<CandleData[]>('kline/historyV3', { symbol, period: '60min', limit: 24 }, { quiet: true }),
};
