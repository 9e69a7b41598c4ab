import { Injectable } from '@nestjs/common';
import { DataSource, In } from 'typeorm';
import { BusinessError } from '../../infra/http/business-error';
import { ErrorCode } from '../../infra/http/error-codes';
import { MarketInfo, MarketRegistry } from '../engine/market-registry.service';
import { MarketFavorite } from './market-favorite.entity';

/** At most this many favourites per user: the Markets tab lists every market anyway. */
export const MAX_FAVORITES = 200;

/** The Markets tab's favourites: per user, by market, in the order they were added. */
@Injectable()
export class MarketFavoritesService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly registry: MarketRegistry,
  ) {}

  /** The user's favourite symbols, oldest first; markets no longer listed are left out. */
  async list(userId: number): Promise<{ symbols: string[] }> {
    const rows = await this.dataSource.getRepository(MarketFavorite).find({ where: { userId }, order: { createdAt: 'ASC', marketId: 'ASC' } });
    const symbols = rows.map((r) => this.registry.byIdOrUndefined(r.marketId)?.symbol).filter((s): s is string => !!s);
    return { symbols };
  }

  /** Adds a listed market (idempotent); an unknown symbol or a full list changes nothing. */
  async add(userId: number, symbol: string): Promise<{ symbols: string[] }> {
    const market = this.market(symbol);
    await this.dataSource.transaction(async (em) => {
      // One user's adds are serialised so the limit holds under concurrent taps.
      await em.query('SELECT pg_advisory_xact_lock($1, $2)', [3100, userId]);
      const repo = em.getRepository(MarketFavorite);
      if (await repo.existsBy({ userId, marketId: market.id })) return;
      // Listed markets only: a favourite whose market was delisted is hidden and cannot be removed, so it takes no place.
      const listed = await repo.countBy({ userId, marketId: In(this.registry.all().map((m) => m.id)) });
      if (listed >= MAX_FAVORITES) throw new BusinessError(ErrorCode.FAVORITES_FULL, undefined, { max: MAX_FAVORITES });
      await repo.insert({ userId, marketId: market.id });
    });
    return this.list(userId);
  }

  /** Removes a market from the list (idempotent); an unknown symbol is refused. */
  async remove(userId: number, symbol: string): Promise<{ symbols: string[] }> {
    const market = this.market(symbol);
    await this.dataSource.getRepository(MarketFavorite).delete({ userId, marketId: market.id });
    return this.list(userId);
  }

  private market(symbol: string): MarketInfo {
    const market = this.registry.find(symbol);
    if (!market) throw new BusinessError(ErrorCode.FAVORITE_MARKET_UNKNOWN, undefined, { symbol: symbol.slice(0, 32) });
    return market;
  }
}
