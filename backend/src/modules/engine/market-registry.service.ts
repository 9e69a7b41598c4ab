import { Injectable } from '@nestjs/common';
import { createMarket, Market as EngineMarket } from '@kestrel/matching-engine';
import { DataSource } from 'typeorm';
import { BusinessError } from '../../infra/http/business-error';
import { ErrorCode } from '../../infra/http/error-codes';
import { Market } from '../reference/market.entity';
import { Coin } from '../reference/coin.entity';
import { unitsKey } from './sequencer/sequencer';

export interface MarketInfo {
  id: number;
  symbol: string;
  base: { id: number; symbol: string };
  quote: { id: number; symbol: string };
  makerFee: string;
  takerFee: string;
  tickSize: string;
  lotSize: string;
  minQty: string;
  /** Decimal ↔ ticks/lots converters of the engine (truncating). */
  engine: EngineMarket;
  /** The units `engine` converts with (`unitsKey`): a place forwarded to the sequencer carries them. */
  unitsKey: string;
}

/** The enabled spot markets, loaded once at start (a market change needs a restart of its owner). */
@Injectable()
export class MarketRegistry {
  private byId = new Map<number, MarketInfo>();
  private bySymbol = new Map<string, MarketInfo>();
  /** Every market's symbol, disabled ones too (symbolOf). */
  private symbols = new Map<number, string>();

  constructor(private readonly dataSource: DataSource) {}

  async load(): Promise<void> {
    const [markets, coins] = await Promise.all([
      this.dataSource.getRepository(Market).find({ order: { sort: 'ASC', id: 'ASC' } }),
      this.dataSource.getRepository(Coin).find(),
    ]);
    const coin = new Map(coins.map((c) => [c.id, c]));
    this.byId.clear();
    this.bySymbol.clear();
    this.symbols = new Map(markets.map((m) => [m.id, m.symbol]));
    for (const m of markets) {
      if (!m.enabled) continue;
      const tickSize = strip(m.tickSize);
      const lotSize = strip(m.lotSize);
      const minQty = strip(m.minQty);
      const info: MarketInfo = {
        id: m.id,
        symbol: m.symbol,
        base: { id: m.baseCurrencyId, symbol: coin.get(m.baseCurrencyId)?.symbol ?? String(m.baseCurrencyId) },
        quote: { id: m.quoteCurrencyId, symbol: coin.get(m.quoteCurrencyId)?.symbol ?? String(m.quoteCurrencyId) },
        makerFee: strip(m.makerFee),
        takerFee: strip(m.takerFee),
        tickSize,
        lotSize,
        minQty,
        engine: createMarket({ symbol: m.symbol, tickSize, lotSize, minQty }),
        unitsKey: unitsKey(tickSize, lotSize),
      };
      this.byId.set(info.id, info);
      this.bySymbol.set(normalizeSymbol(info.symbol), info);
    }
  }

  all(): MarketInfo[] {
    return [...this.byId.values()];
  }

  /** Puts these markets back as they were (a change the sequencer refused: prices are read with the units it trades with). */
  keep(markets: MarketInfo[]): void {
    for (const m of markets) {
      const now = this.byId.get(m.id);
      if (now) this.bySymbol.delete(normalizeSymbol(now.symbol));
      this.byId.set(m.id, m);
      this.bySymbol.set(normalizeSymbol(m.symbol), m);
    }
  }

  /**
   * The sequencer refused a place converted with this registry's units of a market: its own tick and
   * lot (its answer's `market`) are taken, as `keep` takes a refused change's. They may differ from the
   * row (a change the sequencer refused while orders rest), which a reload would read again.
   */
  adopt(p: { id: number; tickSize: string; lotSize: string }): boolean {
    const now = this.byId.get(p.id);
    if (!now) return false;
    let engine: EngineMarket;
    try {
      engine = createMarket({ symbol: now.symbol, tickSize: p.tickSize, lotSize: p.lotSize, minQty: now.minQty });
    } catch {
      return false; // the row's minimum does not fit those units: the caller reloads instead
    }
    this.keep([{ ...now, tickSize: p.tickSize, lotSize: p.lotSize, engine, unitsKey: unitsKey(p.tickSize, p.lotSize) }]);
    return true;
  }

  byIdOrUndefined(id: number): MarketInfo | undefined {
    return this.byId.get(id);
  }

  /** A market's symbol for display, also one disabled since (positions, options and notices on it still name it); '' for none. */
  symbolOf(id: number): string {
    return this.byId.get(id)?.symbol ?? this.symbols.get(id) ?? '';
  }

  /** Accepts "BTC/USDT", "btc_usdt", "BTCUSDT"-style spellings; undefined for no such market. */
  find(symbol: string): MarketInfo | undefined {
    return this.bySymbol.get(normalizeSymbol(symbol));
  }

  /** As `find`, refusing an unknown market (2001). */
  get(symbol: string): MarketInfo {
    const m = this.find(symbol);
    if (!m) throw new BusinessError(ErrorCode.MARKET_NOT_FOUND);
    return m;
  }
}

/** A symbol as markets are looked up: case and separators ignored (`btc_usdt` is `BTC/USDT`). */
export function normalizeSymbol(s: string): string {
  return s.toUpperCase().replace(/[^A-Z0-9]/g, '');
}

/** "0.010000000000000000" → "0.01" (numeric columns come back padded). */
function strip(v: string): string {
  return v.includes('.') ? v.replace(/0+$/, '').replace(/\.$/, '') : v;
}
