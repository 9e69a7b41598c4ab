import { Global, Module } from '@nestjs/common';
import { NoticePushService } from './notice-push.service';
import { NoticeController } from './notice.controller';
import { NoticeGateway } from './notice.gateway';
import { NoticeService } from './notice.service';
import { UserMessageService } from './user-message.service';

/** Users' messages (notice/*): left by the deciding services, listed and marked read here, pushed live. */
@Global()
@Module({
  controllers: [NoticeController],
  providers: [UserMessageService, NoticeService, NoticePushService, NoticeGateway],
  exports: [UserMessageService],
})
export class NoticeModule {}
