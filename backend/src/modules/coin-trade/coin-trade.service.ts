import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { BusinessError } from '../../infra/http/business-error';
import { ErrorCode } from '../../infra/http/error-codes';
import { Page } from '../../infra/http/page.dto';
import { moneyString, units, unitsDiv, unitsString } from '../../infra/money';
import { OrderUpdate } from '../engine/engine-bus';
import { EngineHost, PlaceRequest } from '../engine/engine-host.service';
import { MarketInfo, MarketRegistry } from '../engine/market-registry.service';
import { OrderQueryDto } from './dto/order-query.dto';
import { PlaceOrderDto } from './dto/place-order.dto';
import { Order } from './order.entity';

export interface OrderView {
  order_id: string;
  symbol: string;
  side: 'buy' | 'sell';
  type: 'limit' | 'market';
  price: string | null;
  quantity: string | null;
  amount: string | null;
  filled_qty: string;
  filled_amount: string;
  avg_price: string | null;
  fee: string;
  fee_currency: string;
  status: 'waiting' | 'completed' | 'cancelled';
  client_order_id: string | null;
  created_at: string;
  updated_at: string;
}

/** Spot orders: the spec's rules (§5, §6) before anything reaches the engine host. */
@Injectable()
export class CoinTradeService {
  private readonly withFundPassword = new Set<number>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly markets: MarketRegistry,
    private readonly host: EngineHost,
  ) {}

  async place(userId: number, dto: PlaceOrderDto): Promise<OrderView> {
    const market = this.markets.get(dto.symbol);
    await this.requireFundPassword(userId);
    // Balance is checked by the freeze in the journal transaction (the spec's messages come from there).
    const req = this.toRequest(userId, market, dto);
    const { orderId, order, createdAt } = await this.host.place(market.id, req);
    if (!order) {
      // A retried client id: the earlier order as stored, once what it did is settled.
      await this.host.settledFor(userId);
      return this.view(userId, orderId);
    }
    // Built from the state after matching (what settlement writes): no read on the hot path.
    const at = createdAt ?? new Date();
    const { price, quantity, quoteAmount } = req.row;
    return this.settledView(
      {
        id: orderId,
        userId,
        marketId: market.id,
        side: req.side,
        type: req.type,
        price,
        quantity,
        quoteAmount,
        clientOrderId: req.clientOrderId,
        createdAt: at,
        updatedAt: at,
      },
      order,
    );
  }

  /** An order's answer from what the request or the journal knew of it plus its state after settlement. */
  private settledView(
    fixed: Pick<Order, 'id' | 'userId' | 'marketId' | 'side' | 'type' | 'price' | 'quantity' | 'quoteAmount' | 'clientOrderId' | 'createdAt' | 'updatedAt'>,
    u: OrderUpdate,
  ): OrderView {
    return this.toView({ ...fixed, filledQty: u.filledQty, filledQuote: u.filledQuote, fee: u.fee, status: u.status } as Order);
  }

  /** A fund password, once set, can be changed but never removed: a positive answer is cached. */
  private async requireFundPassword(userId: number): Promise<void> {
    if (this.withFundPassword.has(userId)) return;
    const [user] = await this.dataSource.query('SELECT fund_password_hash IS NOT NULL AS has FROM users WHERE id = $1', [userId]);
    if (!user?.has) throw new BusinessError(ErrorCode.FUND_PASSWORD_NOT_SET);
    if (this.withFundPassword.size > 100_000) this.withFundPassword.clear();
    this.withFundPassword.add(userId);
  }

  /** Converts the decimal fields to engine units (truncating) and works out what to freeze. */
  private toRequest(userId: number, market: MarketInfo, dto: PlaceOrderDto): PlaceRequest {
    const e = market.engine;
    const price = dto.price !== undefined ? e.priceToTicks(dto.price) : 0;
    if (price === undefined || (dto.type === 'limit' && price < 1)) throw new BusinessError(ErrorCode.PRICE_INVALID);
    const base = { userId, side: dto.side, type: dto.type, price, clientOrderId: dto.client_order_id ?? null };

    if (dto.type === 'market' && dto.side === 'buy' && dto.quantity === undefined) {
      const budget = e.quoteToUnits(dto.amount!);
      if (!budget) throw new BusinessError(ErrorCode.VALIDATION, 'error.amount_empty');
      const amount = e.unitsToQuote(budget);
      return {
        ...base,
        qty: 0,
        quoteBudget: budget,
        row: { price: price ? e.ticksToPrice(price) : null, quantity: null, quoteAmount: amount },
        freeze: { currencyId: market.quote.id, amount },
      };
    }
    const lots = e.qtyToLots(dto.quantity!);
    if (lots === undefined || lots === 0) throw new BusinessError(ErrorCode.VALIDATION, 'error.quantity_empty');
    if (lots < e.minLots) throw new BusinessError(ErrorCode.QUANTITY_TOO_SMALL, 'error.quantity_below_min', { min: market.minQty });
    const quantity = e.lotsToQty(lots);
    const row = { price: price ? e.ticksToPrice(price) : null, quantity, quoteAmount: null };
    if (dto.side === 'sell') return { ...base, qty: lots, quoteBudget: 0, row, freeze: { currencyId: market.base.id, amount: quantity } };
    // A market buy by quantity needs a worst price to know what to freeze.
    if (dto.type === 'market' && !price) throw new BusinessError(ErrorCode.PRICE_INVALID);
    const units = price * lots;
    if (!Number.isSafeInteger(units)) throw new BusinessError(ErrorCode.PRICE_INVALID);
    return { ...base, qty: lots, quoteBudget: 0, row, freeze: { currencyId: market.quote.id, amount: e.unitsToQuote(units) } };
  }

  /**
   * A live order is found in its market's book (no read on the hot path); the host checks the
   * owner and the status again when it journals the cancel, and answers with the row it read.
   */
  async cancel(userId: number, orderId: string): Promise<OrderView> {
    const marketId = this.host.marketOf(Number(orderId));
    if (marketId === undefined) {
      // Seen leaving its book here (the common late cancel): closed, no read needed.
      if (this.host.ownerOfClosed(Number(orderId)) === userId) throw new BusinessError(ErrorCode.ORDER_CLOSED);
      // Not in a book: unknown, someone else's, already closed, or a market this process does not match.
      const [order] = await this.dataSource.query('SELECT market_id, status FROM orders WHERE id = $1 AND user_id = $2', [orderId, userId]);
      if (!order) throw new BusinessError(ErrorCode.ORDER_NOT_FOUND);
      // Waiting in the table but out of the book: it filled or was cancelled and settlement is catching up.
      if (order.status !== 'waiting' || this.host.owner) throw new BusinessError(ErrorCode.ORDER_CLOSED);
      throw new BusinessError(ErrorCode.MARKET_BUSY);
    }
    const { row, update } = await this.host.cancel(marketId, userId, Number(orderId));
    if (!update) return this.view(userId, orderId);
    const { side, type, price, quantity, quote_amount: quoteAmount, client_order_id: clientOrderId, created_at: createdAt } = row;
    return this.settledView(
      { id: row.id, userId, marketId: row.market_id, side, type, price, quantity, quoteAmount, clientOrderId, createdAt, updatedAt: new Date() },
      update,
    );
  }

  async view(userId: number, orderId: string): Promise<OrderView> {
    const order = await this.dataSource.getRepository(Order).findOne({ where: { id: orderId, userId } });
    if (!order) throw new BusinessError(ErrorCode.ORDER_NOT_FOUND);
    return this.toView(order);
  }

  async list(userId: number, q: OrderQueryDto): Promise<Page<OrderView>> {
    const where: Record<string, unknown> = { userId };
    if (q.status) where.status = q.status;
    if (q.symbol) where.marketId = this.markets.get(q.symbol).id;
    const [rows, total] = await this.dataSource
      .getRepository(Order)
      .findAndCount({ where, order: { id: 'DESC' }, skip: (q.page - 1) * q.limit, take: q.limit });
    return { items: rows.map((o) => this.toView(o)), total, page: q.page, limit: q.limit };
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
