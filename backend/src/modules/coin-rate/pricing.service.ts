import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { BusinessError } from '../../infra/http/business-error';
import { ErrorCode } from '../../infra/http/error-codes';
import { money, Money } from '../../infra/money';

export const USDT_ID = 3;

/**
 * Values in USDT from the venue's own last trades (DESIGN §1: every price comes from our trades).
 * USDT is taken as 1 USD; fiat pricing currencies apply the operator's rate on top.
 */
@Injectable()
export class PricingService {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Last trade price in USDT per coin, for every coin that has a `<coin>/USDT` market with trades:
   * for valuations (wallet totals, limits), whatever the market's state or the trade's age. What the
   * flash desk converts at comes from `deskPrices`.
   */
  async usdtPrices(): Promise<Map<number, Money>> {
    return this.lastPrices('', [USDT_ID]);
  }

  /**
   * What the flash desk prices each of `currencyIds` at, stricter than the valuations' `usdtPrices`:
   * the last trade of its `<coin>/USDT` market only while that market is enabled and the trade is at
   * most `maxAgeSeconds` old (a disabled market or one nobody has traded lately has no price here),
   * and its reference, the price that stood as the market's last trade for the middle of the last
   * `windowSeconds` (the median by time: each trade price weighted by how long it was the last one,
   * the price standing at the window's start included). The reference is a price the venue traded
   * at, and one trade moves it only by standing for half the window. A coin without a tradable last
   * trade is left out; USDT is 1 for both.
   */
  async deskPrices(currencyIds: number[], maxAgeSeconds: number, windowSeconds: number): Promise<Map<number, { last: Money; reference: Money }>> {
    const rows: Array<{ base_currency_id: number; last: string; reference: string }> = await this.dataSource.query(
      `SELECT m.base_currency_id, l.price::text AS last, r.price::text AS reference FROM markets m
       CROSS JOIN LATERAL (SELECT price, executed_at FROM trades WHERE market_id = m.id ORDER BY trade_id DESC LIMIT 1) l
       CROSS JOIN LATERAL (
         SELECT price FROM (
           SELECT price, SUM(held) OVER (ORDER BY price) AS upto, SUM(held) OVER () AS total FROM (
             SELECT price, SUM(held) AS held FROM (
               SELECT price, GREATEST(EXTRACT(EPOCH FROM COALESCE(LEAD(at) OVER (ORDER BY at, trade_id), now()) - at), 0) AS held FROM (
                 SELECT price, executed_at AS at, trade_id FROM trades WHERE market_id = m.id AND executed_at > now() - make_interval(secs => $4)
                 UNION ALL
                 (SELECT price, now() - make_interval(secs => $4), trade_id FROM trades
                   WHERE market_id = m.id AND executed_at <= now() - make_interval(secs => $4) ORDER BY executed_at DESC, trade_id DESC LIMIT 1)
               ) w
             ) h GROUP BY price
           ) g
         ) c WHERE upto * 2 >= total ORDER BY price LIMIT 1
       ) r
       WHERE m.quote_currency_id = $1 AND m.base_currency_id = ANY($2::int[]) AND m.enabled AND l.executed_at >= now() - make_interval(secs => $3)`,
      [USDT_ID, currencyIds, maxAgeSeconds, windowSeconds],
    );
    const prices = new Map(rows.map((r) => [r.base_currency_id, { last: money(r.last), reference: money(r.reference) }]));
    prices.set(USDT_ID, { last: money(1), reference: money(1) });
    return prices;
  }

  /** The last trade price of each `<coin>/USDT` market ($1 is USDT) that `where` keeps, by coin; USDT is 1. */
  private async lastPrices(where: string, params: unknown[]): Promise<Map<number, Money>> {
    const rows: Array<{ base_currency_id: number; price: string }> = await this.dataSource.query(
      `SELECT m.base_currency_id, t.price::text FROM markets m
       CROSS JOIN LATERAL (SELECT price, executed_at FROM trades WHERE market_id = m.id ORDER BY trade_id DESC LIMIT 1) t
       WHERE m.quote_currency_id = $1 ${where}`,
      params,
    );
    const prices = new Map<number, Money>(rows.map((r) => [r.base_currency_id, money(r.price)]));
    prices.set(USDT_ID, money(1));
    return prices;
  }

  /**
   * The USDT value of an amount for a limit (the daily withdrawal amount): at the price the coin's
   * `<coin>/USDT` market has held over the last day, not at its last trade, so that one trade at an
   * odd price (a thin market, or two accounts of one person trading with each other) can neither
   * shrink what a request counts for nor inflate everyone else's. That price is the median (the
   * higher middle one of an even count) of the closes of the hourly K-lines of the last 24 hours and
   * of the last hour before them; with none, the last trade. Refuses (2211) when the coin has never
   * traded against USDT. USDT is 1.
   */
  async limitValue(currencyId: number, amount: Money, symbol = String(currencyId)): Promise<Money> {
    if (currencyId === USDT_ID) return amount;
    const [row]: Array<{ price: string | null }> = await this.dataSource.query(
      `SELECT COALESCE(
         (SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY s.close DESC) FROM (
            SELECT close FROM klines WHERE market_id = m.id AND period = '60min' AND open_time >= now() - interval '24 hours'
            UNION ALL
            (SELECT close FROM klines WHERE market_id = m.id AND period = '60min' AND open_time < now() - interval '24 hours' ORDER BY open_time DESC LIMIT 1)
          ) s),
         (SELECT price FROM trades WHERE market_id = m.id ORDER BY trade_id DESC LIMIT 1)
       )::text AS price
       FROM markets m WHERE m.quote_currency_id = $1 AND m.base_currency_id = $2`,
      [USDT_ID, currencyId],
    );
    if (!row?.price) throw new BusinessError(ErrorCode.PRICE_UNAVAILABLE, undefined, { coin: symbol });
    return amount.times(money(row.price));
  }

  async rate(code: string): Promise<{ code: string; name: string; symbol: string; rate: string }> {
    const [row] = await this.dataSource.query('SELECT code, name, symbol, rate::text FROM fiat_rates WHERE code = $1 AND enabled', [code.toUpperCase()]);
    if (!row) throw new BusinessError(ErrorCode.PRICING_CURRENCY_UNKNOWN);
    return { ...row, rate: money(row.rate).toString() };
  }
}
