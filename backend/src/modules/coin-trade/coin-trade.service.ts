import { Injectable } from '@nestjs/common';
import type { SpotOrderView } from '@kestrel/contracts';
import { DataSource, In } from 'typeorm';
import { FundPasswordGate } from '../../infra/auth/fund-password-gate';
import { BusinessError } from '../../infra/http/business-error';
import { ErrorCode } from '../../infra/http/error-codes';
import { Page, TOTAL_MAX } from '../../infra/http/page.dto';
import { isoTime } from '../../infra/iso-time';
import { moneyString, trimDecimal, units, unitsDiv, unitsString } from '../../infra/money';
import { MarketInfo, MarketRegistry } from '../engine/market-registry.service';
import type { OrderState, PlaceCmd, SeqOutcome } from '../engine/sequencer/commands';
import { refusal, TradeAccountCommands } from '../engine/trade-account-commands';
import { OrderQueryDto } from './dto/order-query.dto';
import { PlaceOrderDto } from './dto/place-order.dto';
import { ORDER_STATUSES, Order } from './order.entity';

/** The order as /api answers it: one type with the web app (contracts). */
export type OrderView = SpotOrderView;

/** Spot orders: the spec's rules (§5, §6) before anything reaches the sequencer. */
@Injectable()
export class CoinTradeService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly markets: MarketRegistry,
    private readonly trading: TradeAccountCommands,
    private readonly fundPassword: FundPasswordGate,
  ) {}

  /** Answered once journaled and matched, with the order's state after matching (from the sequencer's memory). */
  async place(userId: number, dto: PlaceOrderDto): Promise<OrderView> {
    const market = this.markets.get(dto.symbol);
    // A user known to have one costs no read and no await.
    if (!this.fundPassword.known(userId)) await this.fundPassword.require(userId);
    // Balance is checked (and frozen) by the sequencer: the spec's messages come from its result code.
    const cmd = this.toCommand(userId, market, dto);
    const r = await this.trading.place(cmd);
    if (r.code !== 'OK') {
      // Forwarded, it reached the sequencer past its deadline (the engine was slow to take it): not placed, retry.
      if (r.code === 'EXPIRED') throw new BusinessError(ErrorCode.MARKET_BUSY);
      if (r.code !== 'UNITS_CHANGED') throw refusal(r.code);
      // Converted with other units than the sequencer's (its tick or lot changed at the engine's start,
      // or a change it refused): nothing happened; the sequencer's units are taken, so the retry is
      // converted with the units it trades with.
      if (!r.market || !this.markets.adopt(r.market)) await this.markets.load().catch(() => undefined);
      throw new BusinessError(ErrorCode.MARKET_BUSY);
    }
    if (r.duplicate) return this.retried(userId, cmd, r);
    return this.liveView(r.order!);
  }

  /**
   * A client order id seen before: the same request retried answers its order; another request
   * under that id (another market, side, type, price or amount) is refused and changes nothing.
   */
  private async retried(userId: number, cmd: PlaceCmd, r: SeqOutcome): Promise<OrderView> {
    if (r.order) {
      if (!sameOrder(cmd, r.order)) throw new BusinessError(ErrorCode.VALIDATION, 'error.client_id_reused');
      return this.liveView(r.order);
    }
    // Its order has left the book: the order as stored, once projected.
    await this.trading.settled(userId);
    const order = await this.dataSource.getRepository(Order).findOne({ where: { id: String(r.orderId), userId } });
    if (!order) throw new BusinessError(ErrorCode.ORDER_NOT_FOUND);
    const e = this.markets.byIdOrUndefined(order.marketId)?.engine;
    const stored = e && {
      marketId: order.marketId,
      side: order.side,
      type: order.type,
      price: order.price === null ? 0 : e.priceToTicks(order.price),
      qty: order.quantity === null ? 0 : e.qtyToLots(order.quantity),
      quoteBudget: order.quoteAmount === null ? 0 : e.quoteToUnits(order.quoteAmount),
    };
    if (!stored || !sameOrder(cmd, stored)) throw new BusinessError(ErrorCode.VALIDATION, 'error.client_id_reused');
    return this.toView(order);
  }

  /** An order's answer from the sequencer's state of it (its amounts are units already: no round trip through text). */
  private liveView(o: OrderState): OrderView {
    const market = this.markets.byIdOrUndefined(o.marketId)!;
    const e = market.engine;
    return {
      order_id: String(o.id),
      symbol: market.symbol,
      side: o.side,
      type: o.type,
      price: o.price ? trimDecimal(e.ticksToPrice(o.price)) : null,
      quantity: o.qty ? trimDecimal(e.lotsToQty(o.qty)) : null,
      amount: o.quoteBudget ? trimDecimal(e.unitsToQuote(o.quoteBudget)) : null,
      filled_qty: unitsString(o.filledQty),
      filled_amount: unitsString(o.filledQuote),
      avg_price: o.filledQty === 0n ? null : unitsString(unitsDiv(o.filledQuote, o.filledQty)),
      fee: unitsString(o.fee),
      fee_currency: o.side === 'buy' ? market.base.symbol : market.quote.symbol,
      status: o.status,
      client_order_id: o.clientOrderId,
      created_at: isoTime(o.createdTs),
      updated_at: isoTime(o.updatedTs),
    };
  }

  /** Converts the decimal fields to engine units (truncating); the sequencer works out what to freeze. */
  private toCommand(userId: number, market: MarketInfo, dto: PlaceOrderDto): PlaceCmd {
    const e = market.engine;
    // One exact conversion on the usual path; the truncating one only tells a refused price's reason.
    const exact = dto.price !== undefined ? e.priceToTicksExact(dto.price) : 0;
    const price = exact ?? e.priceToTicks(dto.price!);
    if (price === undefined || (dto.type === 'limit' && price < 1)) throw new BusinessError(ErrorCode.PRICE_INVALID);
    // Not truncated onto the tick grid: a sell's limit would drop below the price asked, and a worst
    // price under one tick would become 0, no bound at all.
    if (exact === undefined) throw new BusinessError(ErrorCode.PRICE_INVALID, 'error.price_tick', { tick: market.tickSize });
    // A market order's worst price, when given, is at least one tick: 0 is the command's "no bound" (it would sweep the book).
    if (dto.type === 'market' && price < 1 && dto.price !== undefined) throw new BusinessError(ErrorCode.PRICE_INVALID);
    // The command is built once, in one shape, at the end (no partial object spread into another).
    let qty = 0;
    let quoteBudget = 0;
    // The DTO checked the amounts' form, so a conversion without an answer is one past the engine's
    // integers (2^53 quote units, lots, or ticks × lots): too large, not empty nor a bad price.
    if (dto.type === 'market' && dto.side === 'buy' && dto.quantity === undefined) {
      const budget = e.quoteToUnits(dto.amount!);
      if (budget === undefined) throw new BusinessError(ErrorCode.VALIDATION, 'error.amount_too_large');
      if (!budget) throw new BusinessError(ErrorCode.VALIDATION, 'error.amount_empty');
      quoteBudget = budget;
    } else {
      const lots = e.qtyToLots(dto.quantity!);
      if (lots === undefined) throw new BusinessError(ErrorCode.VALIDATION, 'error.amount_too_large');
      if (lots === 0) throw new BusinessError(ErrorCode.VALIDATION, 'error.quantity_empty');
      if (lots < e.minLots) throw new BusinessError(ErrorCode.QUANTITY_TOO_SMALL, 'error.quantity_below_min', { min: market.minQty });
      // A market buy by quantity needs a worst price to know what to freeze.
      if (dto.side === 'buy' && dto.type === 'market' && !price) throw new BusinessError(ErrorCode.PRICE_INVALID);
      if (dto.side === 'buy' && !Number.isSafeInteger(price * lots)) throw new BusinessError(ErrorCode.VALIDATION, 'error.amount_too_large');
      qty = lots;
    }
    // `units`: those of the MarketInfo it was converted with (read once, before any await of the caller's).
    return {
      t: 'place',
      userId,
      marketId: market.id,
      side: dto.side,
      type: dto.type,
      price,
      qty,
      quoteBudget,
      clientOrderId: dto.client_order_id ?? null,
      units: market.unitsKey,
    };
  }

  /** A live order is cancelled by the sequencer, which releases what is still frozen for it and answers at once. */
  async cancel(userId: number, orderId: string): Promise<OrderView> {
    const r = await this.trading.cancel(userId, Number(orderId));
    if (r.code === 'OK') return this.liveView(r.order!);
    // Not live. Seen leaving its book here (the usual late cancel): closed, answered at once.
    if (this.trading.ownerOfClosed(Number(orderId)) === userId) throw new BusinessError(ErrorCode.ORDER_CLOSED);
    // Else closed before this process started (its row says so once projected), someone else's, or unknown.
    await this.trading.settled(userId);
    const [order] = await this.dataSource.query('SELECT status FROM orders WHERE id = $1 AND user_id = $2', [orderId, userId]);
    throw new BusinessError(order ? ErrorCode.ORDER_CLOSED : ErrorCode.ORDER_NOT_FOUND);
  }

  async view(userId: number, orderId: string): Promise<OrderView> {
    const order = await this.dataSource.getRepository(Order).findOne({ where: { id: orderId, userId } });
    if (!order) throw new BusinessError(ErrorCode.ORDER_NOT_FOUND);
    return this.toView(order);
  }

  /**
   * coin/list: the trader's orders, newest first. Every read goes through `orders (user_id, status,
   * id)`: the page's ids are the newest of each status's newest `page × limit` (of one status, or
   * of each of the three, merged in SQL: only the page's ids come back), not every order of the
   * trader sorted (a market maker has millions); then those orders' rows. `total` counts up to
   * TOTAL_MAX orders (a longer history answers that; its pages go on).
   */
  async list(userId: number, q: OrderQueryDto): Promise<Page<OrderView>> {
    const marketId = q.symbol ? this.markets.get(q.symbol).id : undefined;
    const params: unknown[] = [userId];
    const where = ['user_id = $1'];
    if (marketId !== undefined) where.push(`market_id = $${params.push(marketId)}`);
    if (q.status) where.push(`status = $${params.push(q.status)}`);
    // Each status's newest (statuses are the entity's constants, not input).
    const parts = q.status ? [where] : ORDER_STATUSES.map((status) => [...where, `status = '${status}'`]);
    const newest = parts.map((w) => `(SELECT id FROM orders WHERE ${w.join(' AND ')} ORDER BY id DESC LIMIT ${q.page * q.limit})`);
    const [ids, [{ total }]] = await Promise.all([
      this.dataSource.query(
        `SELECT id::text FROM (${newest.join(' UNION ALL ')}) o ORDER BY o.id DESC LIMIT ${q.limit} OFFSET ${(q.page - 1) * q.limit}`,
        params,
      ) as Promise<Array<{ id: string }>>,
      this.dataSource.query(`SELECT COUNT(*)::int AS total FROM (SELECT 1 FROM orders WHERE ${where.join(' AND ')} LIMIT ${TOTAL_MAX}) c`, params) as Promise<
        Array<{ total: number }>
      >,
    ]);
    const rows = ids.length ? await this.dataSource.getRepository(Order).findBy({ id: In(ids.map((r) => r.id)) }) : [];
    const byId = new Map(rows.map((o) => [o.id, o]));
    return { items: ids.map((r) => this.toView(byId.get(r.id) as Order)), total, page: q.page, limit: q.limit };
  }

  toView(o: Order): OrderView {
    const market = this.markets.byIdOrUndefined(o.marketId);
    const filled = units(o.filledQty);
    return {
      order_id: o.id,
      symbol: market?.symbol ?? String(o.marketId),
      side: o.side,
      type: o.type,
      price: o.price === null ? null : moneyString(o.price),
      quantity: o.quantity === null ? null : moneyString(o.quantity),
      amount: o.quoteAmount === null ? null : moneyString(o.quoteAmount),
      filled_qty: unitsString(filled),
      filled_amount: moneyString(o.filledQuote),
      avg_price: filled === 0n ? null : unitsString(unitsDiv(units(o.filledQuote), filled)),
      fee: moneyString(o.fee),
      fee_currency: (o.side === 'buy' ? market?.base.symbol : market?.quote.symbol) ?? '',
      status: o.status,
      client_order_id: o.clientOrderId,
      created_at: new Date(o.createdAt).toISOString(),
      updated_at: new Date(o.updatedAt).toISOString(),
    };
  }
}

/** Whether a retried place asks for the order it names (the same market, side, type and engine amounts). */
function sameOrder(cmd: PlaceCmd, o: { marketId: number; side: string; type: string; price?: number; qty?: number; quoteBudget?: number }): boolean {
  return (
    cmd.marketId === o.marketId && cmd.side === o.side && cmd.type === o.type && cmd.price === o.price && cmd.qty === o.qty && cmd.quoteBudget === o.quoteBudget
  );
}
