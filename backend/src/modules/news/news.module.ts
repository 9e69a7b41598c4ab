import { Module } from '@nestjs/common';
import { LedgerModule } from '../ledger/ledger.module';
import { UploadModule } from '../upload/upload.module';
import { NewsAdminService } from './news-admin.service';
import { NewsController, NewsAdminController } from './news.controller';
import { NewsDemoService } from './news-demo.service';
import { NewsService } from './news.service';

/** The news CMS (news/*, newsArticle/*, newsRecommend/*): categories, articles per language, banners. */
@Module({
  imports: [LedgerModule, UploadModule],
  controllers: [NewsController, NewsAdminController],
  providers: [NewsService, NewsAdminService, NewsDemoService],
  exports: [NewsService],
})
export class NewsModule {}
