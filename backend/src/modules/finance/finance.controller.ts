import { Body, Controller, Get, Param, ParseIntPipe, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { AdminAuth, Auth, AuthContext, UserAuth } from '../../infra/auth/guards';
import { Lang } from '../../infra/i18n/catalogue';
import { Reply } from '../../infra/http/envelope';
import { RequestLang } from '../../infra/http/request-context';
import { ProductEditDto, ProductIdDto, ProductListDto, PurchaseDto, RedeemDto, WealthOrderListDto } from './finance.dto';
import { FinanceService } from './finance.service';
import { WealthProductsService } from './wealth-products.service';
import { ReasonDto } from '../../infra/http/reason.dto';

/** Wealth products (spec: lh/deposit…): listings are public, everything about money needs the user. */
@ApiTags('finance')
@Controller()
export class FinanceController {
  constructor(
    private readonly finance: FinanceService,
    private readonly products: WealthProductsService,
  ) {}

  @Get('lh/deposit/config')
  config(@RequestLang() lang: Lang, @Query() q: ProductListDto) {
    return this.finance.list(q.type, lang);
  }

  @Get('lh/deposit/product_info')
  productInfo(@RequestLang() lang: Lang, @Query() q: ProductIdDto) {
    return this.finance.product(q.id, lang);
  }

  @Post('lh/deposit')
  @UserAuth()
  async purchase(@Auth() auth: AuthContext, @RequestLang() lang: Lang, @Body() dto: PurchaseDto) {
    return new Reply(await this.finance.purchase(auth.subjectId, dto, lang), 'msg.wealth_bought');
  }

  @Post('lh/deposit/cancel')
  @UserAuth()
  async cancel(@Auth() auth: AuthContext, @RequestLang() lang: Lang, @Body() dto: RedeemDto) {
    const out = await this.finance.redeem(auth.subjectId, dto, lang);
    return out.preview ? out : new Reply(out, 'msg.wealth_redeemed');
  }

  @Get('lh/deposit/order')
  @UserAuth()
  orders(@Auth() auth: AuthContext, @RequestLang() lang: Lang, @Query() q: WealthOrderListDto) {
    return this.finance.orders(auth.subjectId, q, lang);
  }

  @Get('lh/deposit/report')
  @UserAuth()
  report(@Auth() auth: AuthContext) {
    return this.finance.report(auth.subjectId);
  }

  @Get('admin/wealth/products')
  @AdminAuth()
  all() {
    return this.products.all();
  }

  @Post('admin/wealth/products')
  @AdminAuth()
  async create(@Auth() auth: AuthContext, @Body() dto: ProductEditDto) {
    return new Reply(await this.products.create(auth.subjectId, dto), 'msg.wealth_saved');
  }

  @Post('admin/wealth/products/:id')
  @AdminAuth()
  async edit(@Auth() auth: AuthContext, @Param('id', ParseIntPipe) id: number, @Body() dto: ProductEditDto) {
    return new Reply(await this.products.edit(auth.subjectId, id, dto), 'msg.wealth_saved');
  }

  @Post('admin/wealth/products/:id/open')
  @AdminAuth()
  open(@Auth() auth: AuthContext, @Param('id', ParseIntPipe) id: number, @Body() dto: ReasonDto) {
    return this.products.setOpen(auth.subjectId, id, true, dto.reason);
  }

  @Post('admin/wealth/products/:id/close')
  @AdminAuth()
  close(@Auth() auth: AuthContext, @Param('id', ParseIntPipe) id: number, @Body() dto: ReasonDto) {
    return this.products.setOpen(auth.subjectId, id, false, dto.reason);
  }
}
