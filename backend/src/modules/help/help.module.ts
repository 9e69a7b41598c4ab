import { Module } from '@nestjs/common';
import { RateLimitService } from '../../infra/http/rate-limit.service';
import { LedgerModule } from '../ledger/ledger.module';
import { NoticeModule } from '../notice/notice.module';
import { UploadModule } from '../upload/upload.module';
import { ChatPush } from './chat-push';
import { ChatGateway } from './chat.gateway';
import { ChatService } from './chat.service';
import { HelpAdminController, HelpController } from './help.controller';
import { HelpService } from './help.service';

/** Help centre (help/*, get/customer_url): feedback with operators' replies and the live chat over Socket.IO. */
@Module({
  imports: [LedgerModule, UploadModule, NoticeModule],
  controllers: [HelpController, HelpAdminController],
  providers: [HelpService, ChatService, ChatPush, ChatGateway, RateLimitService],
})
export class HelpModule {}
