import { Module } from '@nestjs/common';
import { ReferenceController } from './reference.controller';
import { SeedService } from './seed.service';

@Module({ controllers: [ReferenceController], providers: [SeedService], exports: [SeedService] })
export class ReferenceModule {}
