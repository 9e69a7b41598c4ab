import { Module } from '@nestjs/common';
import { UserModule } from '../user/user.module';
import { SettingsController } from './settings.controller';
import { SettingsService } from './settings.service';

@Module({ imports: [UserModule], controllers: [SettingsController], providers: [SettingsService], exports: [SettingsService] })
export class SettingsModule {}
