import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../../infra/config/config';
import { orConcurrentRetry, updateReturning } from '../../infra/database/sql';
import { EventStoreService } from '../../infra/event-store/event-store.service';
import { BusinessError } from '../../infra/http/business-error';
import { ErrorCode } from '../../infra/http/error-codes';
import { moneyString, units } from '../../infra/money';
import { EngineBus } from '../engine/engine-bus';
import { EngineHost } from '../engine/engine-host.service';
import type { Leg, SeqCode } from '../engine/sequencer/commands';
import { coinLeg, refusal, systemLeg, TradeAccountCommands } from '../engine/trade-account-commands';
import { LedgerCode } from '../ledger/ledger-codes';
import { NftCollection } from './nft-collection.entity';
import { HOUSE, NftItem } from './nft-item.entity';
import { NftSale } from './nft-sale.entity';
import { splitSale } from './nft-terms';
import type { NftBuyDto } from './nft.dto';

/** The item is reserved by a sale of the same buyer (found inside the reservation's transaction, answered after it rolls back). */
class ReservedByBuyer extends Error {
  constructor(readonly saleId: string) {
    super(`reserved by the buyer's sale ${saleId}`);
  }
}

/** The owner withdrew the listing a purchase was checked against and listed the item again at the same price: the purchase reads it again. */
class ListedAgain extends Error {}

/** How often the engine's owner resolves sales left pending (a crash, a lost answer), and how old they must be. */
const SWEEP_MS = 3000;
const STALE_MS = 2000;

/** The account that receives a primary sale's proceeds: the collection's issuer account (a database account, owner id = the collection). */
export const issuerLeg = (collectionId: number, currencyId: number, available: string): Leg => ({
  ownerType: 'system',
  ownerId: collectionId,
  accountType: 'nft',
  currencyId,
  code: LedgerCode.NftIncrease,
  available,
});

/**
 * The one payment of a sale, as a sequencer posting with a deterministic id (`nft-sale:<id>`):
 * the buyer's trade account pays the price (700), the seller's trade account (or, for a primary
 * sale, the collection's issuer account) receives price − fee (702), the fee account the fee
 * (701). The only debit is on a trade account, so the sequencer checks it; the other legs only
 * receive. Sent again for the same sale, it is the same command: one effect.
 */
export function salePosting(s: Pick<NftSale, 'id' | 'buyerId' | 'sellerId' | 'collectionId' | 'currencyId' | 'price' | 'fee' | 'proceeds' | 'itemId'>) {
  const legs: Leg[] = [coinLeg(s.buyerId, s.currencyId, LedgerCode.NftDeduction, `-${moneyString(s.price)}`)];
  const proceeds = moneyString(s.proceeds);
  if (units(proceeds) > 0n)
    legs.push(s.sellerId === HOUSE ? issuerLeg(s.collectionId, s.currencyId, proceeds) : coinLeg(s.sellerId, s.currencyId, LedgerCode.NftIncrease, proceeds));
  const fee = moneyString(s.fee);
  if (units(fee) > 0n) legs.push(systemLeg('fees', s.currencyId, LedgerCode.NftFee, fee));
  return { commandId: `nft-sale:${s.id}`, refType: 'nft-sale', refId: String(s.id), actor: `user:${s.buyerId}`, memo: `nft item ${s.itemId}`, legs };
}

/**
 * Buying an NFT (nft/buy), exactly once and crash-safe, in three steps:
 *  1. reserve: one transaction inserts the sale (`pending`, its terms fixed) and moves the item
 *     `listed → reserved` with a conditional update on its state, owner, listing and price; of
 *     buyers in the same instant one wins, the others are answered "sold" and nothing of theirs
 *     is written or paid (a request of the winner's own, under another client id, is answered
 *     with the winner's sale);
 *  2. pay: the posting `nft-sale:<id>` goes to the sequencer (the single writer of trade accounts);
 *  3. finish from the answer, in one transaction conditional on the sale being `pending`:
 *     OK → the buyer owns the item (`completed`); refused → the item is back on sale (`released`).
 * A process that dies between the steps leaves the sale `pending` and the item `reserved`: the
 * engine's owner finds it (sweep) and resolves it the same way — from the ledger if the posting
 * is there, else by sending the same command again — so it completes or is released, never both.
 */
@Injectable()
export class NftSaleService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('NftSale');
  private sweeper?: NodeJS.Timeout;
  private sweeping = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly trading: TradeAccountCommands,
    private readonly host: EngineHost,
    private readonly events: EventStoreService,
    private readonly bus: EngineBus,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.sweeper = setInterval(() => void this.sweep(), SWEEP_MS);
    this.sweeper.unref();
  }

  onApplicationShutdown(): void {
    if (this.sweeper) clearInterval(this.sweeper);
  }

  async buy(userId: number, dto: NftBuyDto): Promise<NftSale> {
    const prior = () => this.dataSource.getRepository(NftSale).findOne({ where: { buyerId: userId, clientId: dto.client_id } });
    const first = await prior();
    if (first) return this.answer(await this.drive(first));
    // A twin with the same client id got there first, and its reservation or payment is what this
    // one's checks refused ("sold", "you own it", the balance): its sale is the answer.
    return orConcurrentRetry(
      () => this.buyNew(userId, dto),
      async () => {
        const twin = await prior();
        return twin && this.answer(await this.drive(twin));
      },
    );
  }

  private async buyNew(userId: number, dto: NftBuyDto, readAgain = true): Promise<NftSale> {
    const item = await this.dataSource.getRepository(NftItem).findOne({ where: { id: dto.item_id } });
    if (!item) throw new BusinessError(ErrorCode.NFT_ITEM_NOT_FOUND);
    if (item.ownerId === userId) throw new BusinessError(ErrorCode.NFT_OWN_ITEM);
    if (item.state === 'reserved') return this.reservedBy(userId, item.saleId);
    if (item.state !== 'listed' || item.price === null || item.listingId === null) throw await this.notOnSale(this.dataSource.manager, item.id);
    const price = moneyString(item.price);
    if (dto.price !== undefined && moneyString(dto.price) !== price) throw new BusinessError(ErrorCode.NFT_PRICE_CHANGED, undefined, { price });
    const collection = await this.dataSource.getRepository(NftCollection).findOneOrFail({ where: { id: item.collectionId } });
    // Checked before anything is written, so a buyer who cannot pay holds no item (the sequencer checks again when it pays).
    if (await this.trading.shortBeforeHolding(userId, collection.currencyId, units(price))) throw new BusinessError(ErrorCode.INSUFFICIENT_BALANCE);

    let sale: NftSale;
    try {
      sale = await this.reserve(userId, item, collection, price, dto.client_id);
    } catch (err) {
      if (err instanceof ReservedByBuyer) return this.reservedBy(userId, err.saleId);
      // Its new listing asks what this buyer agreed to: checked again against it, once (a second change is answered as it is).
      if (err instanceof ListedAgain) {
        if (readAgain) return this.buyNew(userId, dto, false);
        throw new BusinessError(ErrorCode.NFT_PRICE_CHANGED, undefined, { price });
      }
      throw err;
    }
    this.fault('nft:after-reserve');
    return this.answer(await this.drive(sale, true));
  }

  /**
   * An item reserved by a sale: "sold" when it is another buyer's. When it is this buyer's own
   * purchase still going through (a retry of a request that heard 2105/2107, sent with another
   * client id, or two taps at once), that sale is the answer, driven to its end as a retry with
   * its client id would be (2107 again while the sequencer's answer is still unknown): never
   * "sold to another buyer" for a purchase the sweep would then charge.
   */
  private async reservedBy(userId: number, saleId: string | null): Promise<NftSale> {
    const sale = saleId === null ? null : await this.dataSource.getRepository(NftSale).findOne({ where: { id: saleId } });
    if (!sale || sale.buyerId !== userId) throw new BusinessError(ErrorCode.NFT_SOLD);
    return this.answer(await this.drive(sale));
  }

  /** Step 1: the sale row and the item's reservation, in one transaction; "sold" when another buyer got there first. */
  private async reserve(userId: number, item: NftItem, collection: NftCollection, price: string, clientId: string): Promise<NftSale> {
    const create = async (m: EntityManager) => {
      const split = splitSale(price, collection.feeRate);
      const repo = m.getRepository(NftSale);
      const sale = await repo.save(
        repo.create({
          itemId: item.id,
          collectionId: item.collectionId,
          listingId: item.listingId!,
          sellerId: item.ownerId,
          buyerId: userId,
          currencyId: collection.currencyId,
          ...split,
          status: 'pending',
          result: null,
          clientId,
          settledAt: null,
        }),
      );
      const reserved = await updateReturning(
        m,
        `UPDATE nft_items SET state = 'reserved', sale_id = $2
          WHERE id = $1 AND state = 'listed' AND owner_id = $3 AND listing_id = $4 AND price = $5 RETURNING id`,
        [item.id, sale.id, item.ownerId, item.listingId, price],
      );
      if (reserved.length === 1) return sale;
      // Someone else changed it first: tell the buyer what it is now (the insert above is rolled back).
      const [now]: Array<{ state: string; owner_id: number; price: string | null; sale_id: string | null; buyer_id: number | null }> = await m.query(
        'SELECT i.state, i.owner_id, i.price::text, i.sale_id::text, s.buyer_id FROM nft_items i LEFT JOIN nft_sales s ON s.id = i.sale_id WHERE i.id = $1',
        [item.id],
      );
      // Reserved a moment ago by this buyer's own other request: its sale is the answer (outside this transaction).
      if (now?.state === 'reserved' && now.sale_id !== null && now.buyer_id === userId) throw new ReservedByBuyer(now.sale_id);
      // Bought a moment ago by this buyer's own other request: theirs now, not "sold to another buyer".
      if (now?.owner_id === userId) throw new BusinessError(ErrorCode.NFT_OWN_ITEM);
      if (!now || now.state === 'reserved' || now.owner_id !== item.ownerId) throw new BusinessError(ErrorCode.NFT_SOLD);
      if (now.state === 'listed' && now.price !== null) {
        if (moneyString(now.price) === price) throw new ListedAgain();
        throw new BusinessError(ErrorCode.NFT_PRICE_CHANGED, undefined, { price: moneyString(now.price) });
      }
      throw await this.notOnSale(m, item.id);
    };
    // The same client id sent twice at once: the other request's sale is the answer.
    const prior = () => this.dataSource.getRepository(NftSale).findOne({ where: { buyerId: userId, clientId } });
    return orConcurrentRetry(() => this.dataSource.transaction(create), prior);
  }

  /** An item that is not on sale: "sold" when its last listing ended in a sale (a buyer who came a moment late), else "not for sale". */
  private async notOnSale(m: EntityManager, itemId: number): Promise<BusinessError> {
    const [last]: Array<{ status: string }> = await m.query('SELECT status FROM nft_listings WHERE item_id = $1 ORDER BY id DESC LIMIT 1', [itemId]);
    return new BusinessError(last?.status === 'sold' ? ErrorCode.NFT_SOLD : ErrorCode.NFT_NOT_ON_SALE);
  }

  /** Steps 2 and 3 for a sale (a no-op for a finished one): the payment command, then the row from its answer. */
  async drive(sale: NftSale, request = false): Promise<NftSale> {
    if (sale.status !== 'pending') return sale;
    const r = await this.trading.post(salePosting(sale));
    if (request) this.fault('nft:after-payment');
    return this.finish(sale, r.code);
  }

  /** Step 3, once: conditional on the sale still being pending (a sweep and the request may both get here). */
  async finish(sale: NftSale, code: SeqCode): Promise<NftSale> {
    const done = await this.dataSource.transaction(async (m) => {
      const ok = code === 'OK';
      const moved = await updateReturning(
        m,
        `UPDATE nft_sales SET status = $2, result = $3, settled_at = now() WHERE id = $1 AND status = 'pending' RETURNING id`,
        [sale.id, ok ? 'completed' : 'released', code],
      );
      if (moved.length === 0) return undefined;
      const item = ok
        ? await updateReturning(
            m,
            `UPDATE nft_items SET owner_id = $3, state = 'held', price = NULL, listing_id = NULL, sale_id = NULL, last_price = $4 WHERE id = $1 AND sale_id = $2 RETURNING id`,
            [sale.itemId, sale.id, sale.buyerId, sale.price],
          )
        : await updateReturning(m, `UPDATE nft_items SET state = 'listed', sale_id = NULL WHERE id = $1 AND sale_id = $2 RETURNING id`, [sale.itemId, sale.id]);
      // The reservation is this sale's until it is finished: anything else is a broken invariant, never papered over.
      if (item.length !== 1) throw new Error(`nft sale ${sale.id}: item ${sale.itemId} is not reserved for it`);
      if (ok) await m.query(`UPDATE nft_listings SET status = 'sold', closed_at = now() WHERE id = $1 AND status = 'active'`, [sale.listingId]);
      await this.events.append(
        m,
        { streamId: `nft-item:${sale.itemId}`, metadata: { actor: `user:${sale.buyerId}`, commandId: `nft-sale-finish:${sale.id}` } },
        [
          ok
            ? {
                type: 'NftSold',
                payload: {
                  saleId: sale.id,
                  itemId: sale.itemId,
                  listingId: sale.listingId,
                  sellerId: sale.sellerId,
                  buyerId: sale.buyerId,
                  price: sale.price,
                  fee: sale.fee,
                  proceeds: sale.proceeds,
                },
              }
            : { type: 'NftSaleReleased', payload: { saleId: sale.id, itemId: sale.itemId, buyerId: sale.buyerId, result: code } },
        ],
      );
      return true;
    });
    const row = await this.dataSource.getRepository(NftSale).findOneOrFail({ where: { id: sale.id } });
    if (done && row.status === 'completed') {
      await this.trading.settled(row.buyerId).catch(() => undefined);
      this.bus.emit('balance', row.buyerId);
      if (row.sellerId !== HOUSE) this.bus.emit('balance', row.sellerId);
    }
    return row;
  }

  /** A finished sale as the buyer's answer: the sale, or the refusal that released it. */
  private answer(sale: NftSale): NftSale {
    if (sale.status === 'released') {
      const code = (sale.result ?? 'INSUFFICIENT_BALANCE') as SeqCode;
      throw code === 'OK' ? new BusinessError(ErrorCode.NFT_SOLD) : refusal(code);
    }
    return sale;
  }

  /** Pending sales older than a moment: the engine's owner resolves them (after a crash, or a lost answer). */
  async sweep(olderThanMs = STALE_MS): Promise<number> {
    if (this.sweeping || !this.host.settled) return 0;
    this.sweeping = true;
    try {
      const pending = await this.dataSource
        .getRepository(NftSale)
        .createQueryBuilder('s')
        .where(`s.status = 'pending' AND s.created_at < now() - make_interval(secs => :secs)`, { secs: olderThanMs / 1000 })
        .orderBy('s.id')
        .take(200)
        .getMany();
      if (!pending.length) return 0;
      // What the sequencer applied but nobody recorded is recorded from the ledger, not resent (beyond its dedup window too).
      await this.host.idle();
      const applied = await this.appliedSales(this.dataSource.manager, pending);
      for (const s of pending) {
        try {
          if (applied.has(String(s.id))) await this.finish(s, 'OK');
          else await this.drive(s);
        } catch (err) {
          this.logger.warn({ err, saleId: s.id }, 'pending nft sale not resolved; retrying on the next sweep');
        }
      }
      return pending.length;
    } catch (err) {
      this.logger.warn({ err }, 'nft sale sweep failed');
      return 0;
    } finally {
      this.sweeping = false;
    }
  }

  /** Which of these sales' payments the projector has written (each has a leg on the buyer's trade account). */
  private async appliedSales(m: EntityManager, sales: NftSale[]): Promise<Set<string>> {
    const rows: Array<{ ref_id: string }> = await m.query(
      `SELECT DISTINCT e.ref_id FROM ledger_entries e JOIN unnest($1::int[], $2::int[], $3::text[]) v(uid, cur, rid)
         ON e.owner_type = 'user' AND e.owner_id = v.uid AND e.currency_id = v.cur AND e.ref_type = 'nft-sale' AND e.ref_id = v.rid`,
      [sales.map((s) => s.buyerId), sales.map((s) => s.currencyId), sales.map((s) => String(s.id))],
    );
    return new Set(rows.map((r) => r.ref_id));
  }

  /** Crash tests only (FAULT_POINTS): the process kills itself here, as a power cut would. */
  private fault(point: string): void {
    if (this.config.faultPoints.includes(point)) process.kill(process.pid, 'SIGKILL');
  }
}
