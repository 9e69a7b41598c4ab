import { Body, Controller, Get, Post, Put, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Auth, AuthContext, UserAuth } from '../../infra/auth/guards';
import { LaneRoute } from '../../infra/http/fast-lane';
import { Reply } from '../../infra/http/envelope';
import { CoinTradeService } from './coin-trade.service';
import { OrderQueryDto } from './dto/order-query.dto';
import { CancelOrderDto, PlaceOrderDto } from './dto/place-order.dto';

@ApiTags('spot trading')
@Controller('coin')
@UserAuth()
export class CoinTradeController {
  constructor(private readonly trade: CoinTradeService) {}

  /** Place an order; the answer comes after it is journaled, matched and settled. */
  @Post('trade')
  async place(@Auth() auth: AuthContext, @Body() dto: PlaceOrderDto) {
    return new Reply(await this.trade.place(auth.subjectId, dto), 'msg.order_placed');
  }

  /** Cancel a waiting order; what is still frozen for it is released. */
  @Put('trade')
  async cancel(@Auth() auth: AuthContext, @Body() dto: CancelOrderDto) {
    return new Reply(await this.trade.cancel(auth.subjectId, dto.order_id), 'msg.order_cancel_sent');
  }

  @Get('list')
  list(@Auth() auth: AuthContext, @Query() q: OrderQueryDto) {
    return this.trade.list(auth.subjectId, q);
  }
}

/** Placing and cancelling carry the trading load: the fast lane answers them with these same handlers (infra/http/fast-lane.ts). */
export function coinTradeLaneRoutes(c: CoinTradeController): [LaneRoute<PlaceOrderDto>, LaneRoute<CancelOrderDto>] {
  return [
    { method: 'POST', path: '/api/coin/trade', dto: PlaceOrderDto, handle: (auth, dto) => c.place(auth, dto) },
    { method: 'PUT', path: '/api/coin/trade', dto: CancelOrderDto, handle: (auth, dto) => c.cancel(auth, dto) },
  ];
}
