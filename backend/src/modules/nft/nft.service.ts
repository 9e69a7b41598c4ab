import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, In } from 'typeorm';
import { EventStoreService } from '../../infra/event-store/event-store.service';
import { BusinessError } from '../../infra/http/business-error';
import { ErrorCode } from '../../infra/http/error-codes';
import { NotLoggedInError } from '../../infra/http/not-logged-in.error';
import { moneyString, units } from '../../infra/money';
import { Coin } from '../reference/coin.entity';
import { UploadService } from '../upload/upload.service';
import { User } from '../user/user.entity';
import { NftCollection } from './nft-collection.entity';
import { HOUSE, NftItem } from './nft-item.entity';
import { NftListing } from './nft-listing.entity';
import { NftSale } from './nft-sale.entity';
import { maskName } from './nft-terms';
import type { NftListDto, NftOrderListDto, NftSellDto } from './nft.dto';

/** Where anyone can fetch an item's image (a minted item's image is public). */
export const nftImageUrl = (itemId: number) => `/api/nft/image/${itemId}`;

/** What the public sees of an owner: the house, or a masked nickname (and whether it is the viewer). */
export interface OwnerView {
  type: 'house' | 'user';
  name: string;
  is_me: boolean;
}

/**
 * The NFT market, the user's side: the collections and items (nft/list, public, with the
 * viewer's own items marked), the owner's listing and withdrawal (nft/sell) and the user's own
 * purchases, sales and listings (nft/order/list). Buying is NftSaleService.
 */
@Injectable()
export class NftService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly events: EventStoreService,
    private readonly uploads: UploadService,
  ) {}

  /** nft/list: the collections, a page of items (filters: collection, on sale, mine), or one item with its provenance. */
  async list(viewer: number | undefined, q: NftListDto) {
    if (q.mine && viewer === undefined) throw new NotLoggedInError();
    const collections = await this.collections();
    if (q.id !== undefined) {
      const item = await this.dataSource.getRepository(NftItem).findOne({ where: { id: q.id } });
      if (!item) throw new BusinessError(ErrorCode.NFT_ITEM_NOT_FOUND);
      const views = await this.itemViews([item], viewer);
      return { collections, items: [], total: 0, page: 1, limit: q.limit, item: { ...views[0], provenance: await this.provenance(item) } };
    }
    if (q.collection_id !== undefined && !collections.some((c) => c.id === q.collection_id)) throw new BusinessError(ErrorCode.NFT_COLLECTION_NOT_FOUND);
    const qb = this.dataSource.getRepository(NftItem).createQueryBuilder('i');
    if (q.collection_id !== undefined) qb.andWhere('i.collection_id = :c', { c: q.collection_id });
    if (q.on_sale) qb.andWhere(`i.state = 'listed'`);
    if (q.mine) qb.andWhere('i.owner_id = :me', { me: viewer });
    const [rows, total] = await qb
      .orderBy('i.collection_id', 'ASC')
      .addOrderBy('i.token_no', 'ASC')
      .skip((q.page - 1) * q.limit)
      .take(q.limit)
      .getManyAndCount();
    return { collections, items: await this.itemViews(rows, viewer), total, page: q.page, limit: q.limit, item: null };
  }

  /** Every collection with its counts, floor price and cover (its first item's image). */
  async collections() {
    const rows = await this.dataSource.getRepository(NftCollection).find({ order: { id: 'ASC' } });
    if (!rows.length) return [];
    const stats: Array<{ collection_id: number; items: number; on_sale: number; floor: string | null; cover: number | null }> = await this.dataSource.query(
      `SELECT collection_id, COUNT(*)::int AS items, COUNT(*) FILTER (WHERE state = 'listed')::int AS on_sale,
              (MIN(price) FILTER (WHERE state = 'listed'))::text AS floor, MIN(id) AS cover
         FROM nft_items GROUP BY collection_id`,
    );
    const by = new Map(stats.map((s) => [Number(s.collection_id), s]));
    const coins = await this.coins(rows.map((c) => c.currencyId));
    return rows.map((c) => {
      const s = by.get(c.id);
      return {
        id: c.id,
        name: c.name,
        description: c.description,
        currency_id: c.currencyId,
        currency: coins.get(c.currencyId)?.symbol ?? '',
        fee_rate: moneyString(c.feeRate),
        items: s?.items ?? 0,
        on_sale: s?.on_sale ?? 0,
        floor_price: s?.floor ? moneyString(s.floor) : null,
        cover: s?.cover ? nftImageUrl(Number(s.cover)) : null,
      };
    });
  }

  /** nft/sell: the owner lists (or re-prices) an item, or withdraws its listing. Only the owner, never during a purchase. */
  async sell(userId: number, dto: NftSellDto) {
    const action = dto.action ?? 'list';
    if (action === 'list' && dto.price === undefined) throw new BusinessError(ErrorCode.VALIDATION, 'error.nft_price_invalid', { field: 'price' });
    if (action === 'list' && units(dto.price!) <= 0n) throw new BusinessError(ErrorCode.VALIDATION, 'error.nft_price_invalid', { field: 'price' });
    const item = await this.dataSource.transaction(async (m) => {
      const item = await this.lockItem(m, dto.item_id);
      if (item.ownerId !== userId) throw new BusinessError(ErrorCode.NFT_NOT_OWNER);
      return action === 'list' ? this.listItem(m, item, userId, dto.price!, `user:${userId}`) : this.withdrawItem(m, item, `user:${userId}`);
    });
    return (await this.itemViews([item], userId))[0];
  }

  /** The item row, locked for this transaction (a reservation waits for it, and it for a reservation). */
  async lockItem(m: EntityManager, id: number): Promise<NftItem> {
    const item = await m.getRepository(NftItem).findOne({ where: { id }, lock: { mode: 'pessimistic_write' } });
    if (!item) throw new BusinessError(ErrorCode.NFT_ITEM_NOT_FOUND);
    return item;
  }

  /**
   * Puts a held or listed item on sale at `price` (a new listing; the previous one, if any, is
   * withdrawn). Already on sale by this seller at this price: nothing changes (the same listing
   * stays, so a purchase checked against it is not refused as "the price has changed").
   */
  async listItem(m: EntityManager, item: NftItem, sellerId: number, price: string, actor: string, reason?: string): Promise<NftItem> {
    if (item.state === 'reserved') throw new BusinessError(ErrorCode.NFT_SALE_IN_PROGRESS);
    if (item.state === 'listed' && item.listingId && item.ownerId === sellerId && item.price !== null && moneyString(item.price) === moneyString(price))
      return item;
    if (item.listingId) await m.query(`UPDATE nft_listings SET status = 'withdrawn', closed_at = now() WHERE id = $1 AND status = 'active'`, [item.listingId]);
    const repo = m.getRepository(NftListing);
    const listing = await repo.save(repo.create({ itemId: item.id, sellerId, price: moneyString(price), status: 'active', closedAt: null }));
    await m.getRepository(NftItem).update({ id: item.id }, { state: 'listed', price: listing.price, listingId: listing.id });
    await this.events.append(m, { streamId: `nft-item:${item.id}`, metadata: { actor, reason } }, [
      { type: 'NftListed', payload: { itemId: item.id, listingId: listing.id, sellerId, price: listing.price, previousListingId: item.listingId } },
    ]);
    return { ...item, state: 'listed', price: listing.price, listingId: listing.id };
  }

  async withdrawItem(m: EntityManager, item: NftItem, actor: string, reason?: string): Promise<NftItem> {
    if (item.state === 'reserved') throw new BusinessError(ErrorCode.NFT_SALE_IN_PROGRESS);
    if (item.state !== 'listed' || !item.listingId) throw new BusinessError(ErrorCode.NFT_NOT_LISTED);
    await m.query(`UPDATE nft_listings SET status = 'withdrawn', closed_at = now() WHERE id = $1 AND status = 'active'`, [item.listingId]);
    await m.getRepository(NftItem).update({ id: item.id }, { state: 'held', price: null, listingId: null });
    await this.events.append(m, { streamId: `nft-item:${item.id}`, metadata: { actor, reason } }, [
      { type: 'NftListingWithdrawn', payload: { itemId: item.id, listingId: item.listingId } },
    ]);
    return { ...item, state: 'held', price: null, listingId: null };
  }

  /** nft/order/list: the caller's own purchases and sales (or, by type, purchases, sales or listings), newest first. */
  async orders(userId: number, q: NftOrderListDto) {
    const skip = (q.page - 1) * q.limit;
    if (q.type === 'listing') {
      const [rows, total] = await this.dataSource
        .getRepository(NftListing)
        .findAndCount({ where: { sellerId: userId }, order: { id: 'DESC' }, skip, take: q.limit });
      const items = await this.itemsById(rows.map((r) => r.itemId));
      return {
        items: rows.map((l) => ({
          id: l.id,
          kind: 'listing' as const,
          ...this.itemRef(items.get(l.itemId)),
          price: moneyString(l.price),
          status: l.status,
          created_at: new Date(l.createdAt).toISOString(),
          closed_at: l.closedAt ? new Date(l.closedAt).toISOString() : null,
        })),
        total,
        page: q.page,
        limit: q.limit,
      };
    }
    const where =
      q.type === 'purchase'
        ? [{ buyerId: userId }]
        : q.type === 'sale'
          ? [{ sellerId: userId, status: 'completed' as const }]
          : [{ buyerId: userId }, { sellerId: userId, status: 'completed' as const }];
    const [rows, total] = await this.dataSource.getRepository(NftSale).findAndCount({ where, order: { id: 'DESC' }, skip, take: q.limit });
    const items = await this.itemsById(rows.map((r) => r.itemId));
    const coins = await this.coins(rows.map((r) => r.currencyId));
    return {
      items: rows.map((s) => {
        const mine = s.buyerId === userId ? 'purchase' : 'sale';
        return {
          id: s.id,
          kind: mine as 'purchase' | 'sale',
          ...this.itemRef(items.get(s.itemId)),
          primary: s.sellerId === HOUSE,
          currency: coins.get(s.currencyId)?.symbol ?? '',
          price: moneyString(s.price),
          // The buyer pays the price; the seller receives it less the fee.
          fee: moneyString(s.fee),
          amount: mine === 'purchase' ? moneyString(s.price) : moneyString(s.proceeds),
          status: s.status === 'pending' ? 'processing' : s.status === 'completed' ? 'completed' : 'failed',
          created_at: new Date(s.createdAt).toISOString(),
          settled_at: s.settledAt ? new Date(s.settledAt).toISOString() : null,
        };
      }),
      total,
      page: q.page,
      limit: q.limit,
    };
  }

  /** A minted item's image, for anyone (it is the item's public face); unknown items are 2801. */
  async image(itemId: number): Promise<{ mime: string; bytes: Buffer }> {
    const item = Number.isSafeInteger(itemId) && itemId > 0 ? await this.dataSource.getRepository(NftItem).findOne({ where: { id: itemId } }) : null;
    if (!item) throw new BusinessError(ErrorCode.NFT_ITEM_NOT_FOUND);
    // The house owns the upload; reading it as its owner is the upload service's own rule.
    return this.uploads.read({ subjectType: 'user', subjectId: HOUSE, token: '' }, item.imageId);
  }

  /** Public provenance: the mint, then each completed sale (price, time, masked parties). */
  async provenance(item: NftItem) {
    const sales = await this.dataSource.getRepository(NftSale).find({ where: { itemId: item.id, status: 'completed' }, order: { id: 'ASC' } });
    const names = await this.names(sales.flatMap((s) => [s.sellerId, s.buyerId]));
    const party = (id: number) => (id === HOUSE ? { type: 'house' as const, name: 'Kestrel' } : { type: 'user' as const, name: maskName(names.get(id) ?? '') });
    return [
      { event: 'mint', price: null, from: null, to: party(HOUSE), at: new Date(item.mintedAt).toISOString() },
      ...sales.map((s) => ({
        event: 'sale',
        price: moneyString(s.price),
        from: party(s.sellerId),
        to: party(s.buyerId),
        at: new Date(s.settledAt ?? s.createdAt).toISOString(),
      })),
    ];
  }

  async itemViews(rows: NftItem[], viewer: number | undefined) {
    const collections = new Map(
      (rows.length ? await this.dataSource.getRepository(NftCollection).find({ where: { id: In([...new Set(rows.map((r) => r.collectionId))]) } }) : []).map(
        (c) => [c.id, c],
      ),
    );
    const names = await this.names(rows.map((r) => r.ownerId));
    const coins = await this.coins([...collections.values()].map((c) => c.currencyId));
    return rows.map((i) => {
      const c = collections.get(i.collectionId);
      const owner: OwnerView =
        i.ownerId === HOUSE
          ? { type: 'house', name: 'Kestrel', is_me: false }
          : { type: 'user', name: maskName(names.get(i.ownerId) ?? ''), is_me: i.ownerId === viewer };
      return {
        id: i.id,
        collection_id: i.collectionId,
        collection: c?.name ?? '',
        token_no: i.tokenNo,
        name: i.name,
        description: i.description,
        image: nftImageUrl(i.id),
        attributes: i.attributes,
        owner,
        state: i.state,
        on_sale: i.state === 'listed',
        price: i.price === null ? null : moneyString(i.price),
        primary: i.ownerId === HOUSE,
        currency: c ? (coins.get(c.currencyId)?.symbol ?? '') : '',
        fee_rate: c ? moneyString(c.feeRate) : '0',
        last_price: i.lastPrice === null ? null : moneyString(i.lastPrice),
        minted_at: new Date(i.mintedAt).toISOString(),
      };
    });
  }

  private itemRef(i: NftItem | undefined) {
    return { item_id: i?.id ?? 0, name: i?.name ?? '', token_no: i?.tokenNo ?? 0, collection_id: i?.collectionId ?? 0, image: i ? nftImageUrl(i.id) : null };
  }

  private async itemsById(ids: number[]): Promise<Map<number, NftItem>> {
    const rows = ids.length ? await this.dataSource.getRepository(NftItem).find({ where: { id: In([...new Set(ids)]) } }) : [];
    return new Map(rows.map((r) => [r.id, r]));
  }

  private async names(ids: number[]): Promise<Map<number, string>> {
    const users = [...new Set(ids.filter((id) => id !== HOUSE))];
    const rows = users.length ? await this.dataSource.getRepository(User).find({ where: { id: In(users) }, select: { id: true, nickname: true } }) : [];
    return new Map(rows.map((u) => [u.id, u.nickname]));
  }

  private async coins(ids: number[]): Promise<Map<number, Coin>> {
    const rows = ids.length ? await this.dataSource.getRepository(Coin).find({ where: { id: In([...new Set(ids)]) } }) : [];
    return new Map(rows.map((c) => [c.id, c]));
  }
}
