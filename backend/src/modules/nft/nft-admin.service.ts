import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { EventStoreService } from '../../infra/event-store/event-store.service';
import { BusinessError } from '../../infra/http/business-error';
import { ErrorCode } from '../../infra/http/error-codes';
import { money, moneyString, units } from '../../infra/money';
import { USDT_ID } from '../coin-rate/pricing.service';
import { IncomingFile, UploadService } from '../upload/upload.service';
import { NftCollection } from './nft-collection.entity';
import { HOUSE, NftItem } from './nft-item.entity';
import { MAX_FEE_RATE } from './nft-terms';
import { NftSale } from './nft-sale.entity';
import type { NftAdminSalesDto, NftCollectionCreateDto, NftMintDto } from './nft.dto';
import { NftService } from './nft.service';

const DEFAULT_FEE_RATE = '0.025';
const MAX_ATTRIBUTES = 20;

/**
 * The operator's side of the NFT market: images (uploaded through the upload service, owned by
 * the house), collections, minting (the house owns each new item) and the primary price. Every
 * change is an event with the operator (`admin:<id>`) and the reason.
 */
@Injectable()
export class NftAdminService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly events: EventStoreService,
    private readonly uploads: UploadService,
    private readonly nft: NftService,
  ) {}

  /** An image for a new item: checked, cleaned and stored by the upload service, owned by the house (user id 0). */
  uploadImage(file: IncomingFile | undefined) {
    return this.uploads.uploadImage(HOUSE, file);
  }

  collections() {
    return this.nft.collections();
  }

  async createCollection(actor: string, dto: NftCollectionCreateDto) {
    const feeRate = dto.fee_rate ?? DEFAULT_FEE_RATE;
    if (money(feeRate).gt(MAX_FEE_RATE)) throw new BusinessError(ErrorCode.VALIDATION, 'error.nft_fee_rate_invalid', { field: 'fee_rate' });
    const name = dto.name.trim();
    if (!name) throw new BusinessError(ErrorCode.VALIDATION, 'error.nft_name_required', { field: 'name' });
    const id = await this.dataSource.transaction(async (m) => {
      const repo = m.getRepository(NftCollection);
      const saved = await repo
        .createQueryBuilder()
        .insert()
        .values(repo.create({ name, description: dto.description ?? '', currencyId: USDT_ID, feeRate: moneyString(feeRate), createdBy: actor }))
        .orIgnore()
        .returning('id')
        .execute();
      const row = saved.raw[0] as { id: number } | undefined;
      if (!row) throw new BusinessError(ErrorCode.NFT_NAME_EXISTS);
      await this.events.append(m, { streamId: `nft-collection:${row.id}`, metadata: { actor, reason: dto.reason } }, [
        {
          type: 'NftCollectionCreated',
          payload: { collectionId: row.id, name, description: dto.description ?? '', feeRate: moneyString(feeRate), currencyId: USDT_ID },
        },
      ]);
      return row.id;
    });
    return (await this.nft.collections()).find((c) => c.id === id)!;
  }

  /** Mints one item into a collection, owned by the house; with a price it goes on sale at once (a primary sale). */
  async mint(actor: string, collectionId: number, dto: NftMintDto) {
    const attributes = checkAttributes(dto.attributes ?? {});
    const name = dto.name.trim();
    if (!name) throw new BusinessError(ErrorCode.VALIDATION, 'error.nft_name_required', { field: 'name' });
    if (dto.price !== undefined && units(dto.price) <= 0n) throw new BusinessError(ErrorCode.VALIDATION, 'error.nft_price_invalid', { field: 'price' });
    const item = await this.dataSource.transaction(async (m) => {
      // The collection row lock numbers its items one at a time.
      const [c] = await m.query('SELECT id FROM nft_collections WHERE id = $1 FOR UPDATE', [collectionId]);
      if (!c) throw new BusinessError(ErrorCode.NFT_COLLECTION_NOT_FOUND);
      await this.uploads.claim(m, HOUSE, dto.image_id);
      const [{ next }] = await m.query('SELECT COALESCE(MAX(token_no), 0) + 1 AS next FROM nft_items WHERE collection_id = $1', [collectionId]);
      const repo = m.getRepository(NftItem);
      const saved = await repo.save(
        repo.create({
          collectionId,
          tokenNo: Number(next),
          name,
          description: dto.description ?? '',
          imageId: dto.image_id,
          attributes,
          ownerId: HOUSE,
          state: 'held',
          price: null,
          listingId: null,
          saleId: null,
          lastPrice: null,
          mintedBy: actor,
        }),
      );
      await this.events.append(m, { streamId: `nft-item:${saved.id}`, metadata: { actor, reason: dto.reason } }, [
        { type: 'NftMinted', payload: { itemId: saved.id, collectionId, tokenNo: saved.tokenNo, name, imageId: dto.image_id, attributes, ownerId: HOUSE } },
      ]);
      const minted = await repo.findOneOrFail({ where: { id: saved.id } });
      return dto.price !== undefined ? this.nft.listItem(m, minted, HOUSE, dto.price, actor, dto.reason) : minted;
    });
    return (await this.nft.itemViews([item], undefined))[0];
  }

  /** Sets (or changes) the primary price of a house-owned item: it goes on sale by the house. */
  async setPrice(actor: string, itemId: number, price: string, reason: string) {
    if (units(price) <= 0n) throw new BusinessError(ErrorCode.VALIDATION, 'error.nft_price_invalid', { field: 'price' });
    const item = await this.dataSource.transaction(async (m) => {
      const item = await this.nft.lockItem(m, itemId);
      if (item.ownerId !== HOUSE) throw new BusinessError(ErrorCode.NFT_NOT_OWNER);
      return this.nft.listItem(m, item, HOUSE, price, actor, reason);
    });
    return (await this.nft.itemViews([item], undefined))[0];
  }

  /** Sales for operators (with the parties' ids and the sequencer's answer), newest first: e.g. `status=pending` shows purchases in flight. */
  async sales(q: NftAdminSalesDto) {
    const qb = this.dataSource.getRepository(NftSale).createQueryBuilder('s');
    if (q.status) qb.andWhere('s.status = :status', { status: q.status });
    if (q.item_id) qb.andWhere('s.item_id = :item', { item: q.item_id });
    if (q.user_id) qb.andWhere('(s.buyer_id = :u OR s.seller_id = :u)', { u: q.user_id });
    const [rows, total] = await qb
      .orderBy('s.id', 'DESC')
      .skip((q.page - 1) * q.limit)
      .take(q.limit)
      .getManyAndCount();
    return {
      items: rows.map((s) => ({
        id: s.id,
        item_id: s.itemId,
        collection_id: s.collectionId,
        listing_id: s.listingId,
        seller_id: s.sellerId,
        buyer_id: s.buyerId,
        currency_id: s.currencyId,
        price: moneyString(s.price),
        fee: moneyString(s.fee),
        proceeds: moneyString(s.proceeds),
        status: s.status,
        result: s.result,
        command_id: `nft-sale:${s.id}`,
        created_at: new Date(s.createdAt).toISOString(),
        settled_at: s.settledAt ? new Date(s.settledAt).toISOString() : null,
      })),
      total,
      page: q.page,
      limit: q.limit,
    };
  }

  /** Takes a house-owned item off sale. */
  async withdraw(actor: string, itemId: number, reason: string) {
    const item = await this.dataSource.transaction(async (m) => {
      const item = await this.nft.lockItem(m, itemId);
      if (item.ownerId !== HOUSE) throw new BusinessError(ErrorCode.NFT_NOT_OWNER);
      return this.nft.withdrawItem(m, item, actor, reason);
    });
    return (await this.nft.itemViews([item], undefined))[0];
  }
}

function invalid(detail: string) {
  return new BusinessError(ErrorCode.NFT_INVALID, undefined, { detail });
}

/** Metadata: at most 20 traits, names up to 40 characters, values (text or numbers) up to 100. */
function checkAttributes(raw: Record<string, unknown>): Record<string, string> {
  const entries = Object.entries(raw);
  if (entries.length > MAX_ATTRIBUTES) throw invalid(`at most ${MAX_ATTRIBUTES} attributes`);
  const out: Record<string, string> = {};
  for (const [k, v] of entries) {
    if (!k.trim() || k.length > 40) throw invalid('attribute names must be 1–40 characters');
    if (typeof v !== 'string' && typeof v !== 'number') throw invalid(`attribute ${k} must be text or a number`);
    const value = String(v);
    if (value.length > 100) throw invalid(`attribute ${k} must be at most 100 characters`);
    out[k.trim()] = value;
  }
  return out;
}
