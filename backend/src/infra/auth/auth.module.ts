import { Global, Module } from '@nestjs/common';
import { AdminAuthGuard, OptionalUserGuard, UserAuthGuard } from './guards';
import { TokenService } from './token.service';

@Global()
@Module({
  providers: [TokenService, UserAuthGuard, OptionalUserGuard, AdminAuthGuard],
  exports: [TokenService, UserAuthGuard, OptionalUserGuard, AdminAuthGuard],
})
export class AuthModule {}
