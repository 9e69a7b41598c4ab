import { Body, Controller, Get, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { DealsQueryDto, DepthQueryDto, KlineQueryDto } from './market.dto';
import { MarketDataService } from './market-data.service';

/** Public market data (no login): the spec's currency/*, currencyMatch/all and kline/historyV3. */
@ApiTags('market data')
@Controller()
export class MarketController {
  constructor(private readonly data: MarketDataService) {}

  @Get('currencyMatch/all')
  markets() {
    return this.data.markets();
  }

  @Get('currency/quotation_new')
  quotation() {
    return this.data.quotation();
  }

  @Get('currency/deal')
  deals(@Query() q: DealsQueryDto) {
    return this.data.deals(q.symbol, q.limit);
  }

  @Get('currency/depth')
  depth(@Query() q: DepthQueryDto) {
    return this.data.depth(q.symbol, q.levels);
  }

  @Post('kline/historyV3')
  klines(@Body() q: KlineQueryDto) {
    return this.data.candles(q.symbol, q.period, q.from, q.to, q.limit);
  }
}
