import { Module } from '@nestjs/common';
import { UserModule } from '../user/user.module';
import { VerificationCodeModule } from '../verification-code/verification-code.module';
import { SmsController } from './sms.controller';
import { SmsService } from './sms.service';

@Module({ imports: [UserModule, VerificationCodeModule], controllers: [SmsController], providers: [SmsService] })
export class SmsModule {}
