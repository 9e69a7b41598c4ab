import { Body, Controller, Get, Post, Put, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Auth, AuthContext, UserAuth } from '../../infra/auth/guards';
import { LaneRoute } from '../../infra/http/fast-lane';
import { RequestId, RequestLang } from '../../infra/http/request-context';
import { Lang } from '../../infra/i18n/catalogue';
import { CoinTradeService } from './coin-trade.service';
import { BatchOrdersDto } from './dto/batch-orders.dto';
import { OrderQueryDto } from './dto/order-query.dto';
import { CancelOrderDto, PlaceOrderDto } from './dto/place-order.dto';
import { OrderEntry } from './order-entry';

@ApiTags('spot trading')
@Controller('coin')
@UserAuth()
export class CoinTradeController {
  constructor(
    private readonly trade: CoinTradeService,
    readonly entry: OrderEntry,
  ) {}

  /** Place an order; the answer comes after it is journaled, matched and settled. */
  @Post('trade')
  place(@Auth() auth: AuthContext, @Body() dto: PlaceOrderDto) {
    return this.entry.ops.place.handle(auth, dto);
  }

  /** Cancel a waiting order; what is still frozen for it is released. */
  @Put('trade')
  cancel(@Auth() auth: AuthContext, @Body() dto: CancelOrderDto) {
    return this.entry.ops.cancel.handle(auth, dto);
  }

  /** Up to 10 orders in one request, each checked and placed on its own: `data.results[i]` is order i's envelope. */
  @Post('batch_trade')
  batch(@Auth() auth: AuthContext, @RequestLang() lang: Lang, @Body() dto: BatchOrdersDto, @RequestId() reqId: string | undefined) {
    return this.entry.batch(auth, lang, dto, { reqId });
  }

  @Get('list')
  list(@Auth() auth: AuthContext, @Query() q: OrderQueryDto) {
    return this.trade.list(auth.subjectId, q);
  }
}

/**
 * Placing and cancelling carry the trading load: the fast lane (infra/http/fast-lane.ts) answers
 * them with the same definitions the routes above run (OrderEntry.ops: DTO and handler).
 */
export function coinTradeLaneRoutes(c: CoinTradeController): [LaneRoute<PlaceOrderDto>, LaneRoute<CancelOrderDto>] {
  return [
    { method: 'POST', path: '/api/coin/trade', ...c.entry.ops.place },
    { method: 'PUT', path: '/api/coin/trade', ...c.entry.ops.cancel },
  ];
}
