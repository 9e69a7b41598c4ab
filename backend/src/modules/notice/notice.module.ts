import { Global, Module } from '@nestjs/common';
import { UserMessageService } from './user-message.service';

@Global()
@Module({ providers: [UserMessageService], exports: [UserMessageService] })
export class NoticeModule {}
