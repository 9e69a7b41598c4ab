import type { CandleData } from '@kestrel/contracts';
import { get, post } from './client';

/** The Markets tab: favourites of the logged-in user (`market/favorites*`) and the 24 h sparkline's hourly candles. */
export const marketsApi = {
  favorites: () => get<{ symbols: string[] }>('market/favorites', undefined, { quiet: true }),
  addFavorite: (symbol: string) => post<{ symbols: string[] }>('market/favorites/add', { symbol }),
  removeFavorite: (symbol: string) => post<{ symbols: string[] }>('market/favorites/remove', { symbol }),
  /** The hourly candles of the last 24 hours (only those: a quiet market's older hours are not "24 h"). */
  spark: (symbol: string) =>
    post<CandleData[]>(
      'kline/historyV3',
      { symbol, period: '60min', from: Math.floor(Date.now() / 3_600_000) * 3_600 - 23 * 3_600, limit: 24 },
      { quiet: true },
    ),
};
