import { Module } from '@nestjs/common';
import { EngineModule } from '../engine/engine.module';
import { LedgerModule } from '../ledger/ledger.module';
import { NoticeModule } from '../notice/notice.module';
import { PromotionSettingsService } from './promotion-settings.service';
import { PromotionAdminController, PromotionController } from './promotion.controller';
import { PromotionService } from './promotion.service';
import { RebateService } from './rebate.service';

/** Referral promotion (user/invite…): invite codes and links, partners, rebates from invitees' fees (ledger 905). */
@Module({
  imports: [LedgerModule, EngineModule, NoticeModule],
  controllers: [PromotionController, PromotionAdminController],
  providers: [PromotionService, PromotionSettingsService, RebateService],
  exports: [RebateService],
})
export class PromotionModule {}
