import { Body, Controller, Get, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AdminAuth, Auth, AuthContext, OptionalUserAuth, UserAuth } from '../../infra/auth/guards';
import { Reply } from '../../infra/http/envelope';
import { IntIdPipe } from '../../infra/http/id-pipes';
import type { IncomingFile } from '../upload/upload.service';
import { NftAdminService } from './nft-admin.service';
import { NftSaleService } from './nft-sale.service';
import { saleView } from './nft-views';
import { NftAdminSalesDto, NftBuyDto, NftCollectionCreateDto, NftListDto, NftMintDto, NftOrderListDto, NftPriceDto, NftSellDto } from './nft.dto';
import { NftService } from './nft.service';
import { ReasonDto } from '../../infra/http/reason.dto';

/** The NFT market (spec: nft/list, nft/buy, nft/sell, nft/order/list). The market is public; money and listings need the user. */
@ApiTags('nft')
@Controller('nft')
export class NftController {
  constructor(
    private readonly nft: NftService,
    private readonly sales: NftSaleService,
  ) {}

  @Get('list')
  @OptionalUserAuth()
  list(@Auth() auth: AuthContext | undefined, @Query() q: NftListDto) {
    return this.nft.list(auth?.subjectId, q);
  }

  @Post('buy')
  @UserAuth()
  async buy(@Auth() auth: AuthContext, @Body() dto: NftBuyDto) {
    const sale = await this.sales.buy(auth.subjectId, dto);
    return new Reply({ sale: saleView(sale), item: (await this.nft.list(auth.subjectId, { id: sale.itemId, page: 1, limit: 1 })).item }, 'msg.nft_bought');
  }

  @Post('sell')
  @UserAuth()
  async sell(@Auth() auth: AuthContext, @Body() dto: NftSellDto) {
    return new Reply(await this.nft.sell(auth.subjectId, dto), dto.action === 'withdraw' ? 'msg.nft_withdrawn' : 'msg.nft_listed');
  }

  @Get('order/list')
  @UserAuth()
  orders(@Auth() auth: AuthContext, @Query() q: NftOrderListDto) {
    return this.nft.orders(auth.subjectId, q);
  }

  /** A minted item's image (bytes, not the envelope; errors are envelopes). Public, like the item. */
  @Get('image/:id')
  async image(@Param('id') id: string, @Res() res: Response): Promise<void> {
    const image = await this.nft.image(/^\d{1,9}$/.test(id) ? Number(id) : 0);
    res.status(200);
    res.setHeader('Content-Type', image.mime);
    res.setHeader('Cache-Control', 'public, max-age=86400, immutable');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.end(image.bytes);
  }
}

/** Operators: images, collections, minting and primary prices (each change an event with the operator and the reason). */
@ApiTags('admin')
@Controller('admin/nft')
@AdminAuth()
export class NftAdminController {
  constructor(private readonly admin: NftAdminService) {}

  @Post('images')
  @ApiConsumes('multipart/form-data')
  @ApiBody({ schema: { type: 'object', properties: { file: { type: 'string', format: 'binary' } }, required: ['file'] } })
  async image(@Req() req: Request) {
    const files = (Array.isArray(req.files) ? req.files : []) as IncomingFile[];
    return new Reply(await this.admin.uploadImage(files.find((f) => f.fieldname === 'file')), 'upload.success');
  }

  @Get('collections')
  collections() {
    return this.admin.collections();
  }

  @Post('collections')
  async create(@Auth() auth: AuthContext, @Body() dto: NftCollectionCreateDto) {
    return new Reply(await this.admin.createCollection(`admin:${auth.subjectId}`, dto), 'msg.nft_saved');
  }

  @Get('sales')
  sales(@Query() q: NftAdminSalesDto) {
    return this.admin.sales(q);
  }

  @Post('collections/:id/items')
  async mint(@Auth() auth: AuthContext, @Param('id', IntIdPipe) id: number, @Body() dto: NftMintDto) {
    return new Reply(await this.admin.mint(`admin:${auth.subjectId}`, id, dto), 'msg.nft_minted');
  }

  @Post('items/:id/price')
  async price(@Auth() auth: AuthContext, @Param('id', IntIdPipe) id: number, @Body() dto: NftPriceDto) {
    return new Reply(await this.admin.setPrice(`admin:${auth.subjectId}`, id, dto.price, dto.reason), 'msg.nft_listed');
  }

  @Post('items/:id/withdraw')
  async withdraw(@Auth() auth: AuthContext, @Param('id', IntIdPipe) id: number, @Body() dto: ReasonDto) {
    return new Reply(await this.admin.withdraw(`admin:${auth.subjectId}`, id, dto.reason), 'msg.nft_withdrawn');
  }
}
