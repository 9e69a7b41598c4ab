import { Module } from '@nestjs/common';
import { EngineModule } from '../engine/engine.module';
import { LedgerModule } from '../ledger/ledger.module';
import { UploadModule } from '../upload/upload.module';
import { NftAdminService } from './nft-admin.service';
import { NftDemoService } from './nft-demo.service';
import { NftAdminController, NftController } from './nft.controller';
import { NftSaleService } from './nft-sale.service';
import { NftService } from './nft.service';

/** The NFT market (routes nft/…): collections and items, primary and secondary sales paid from the trade account. */
@Module({
  imports: [LedgerModule, EngineModule, UploadModule],
  controllers: [NftController, NftAdminController],
  providers: [NftService, NftSaleService, NftAdminService, NftDemoService],
})
export class NftModule {}
