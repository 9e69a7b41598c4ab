import { Body, Controller, Get, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Auth, AuthContext, UserAuth } from '../../infra/auth/guards';
import { FavoriteSymbolDto } from './market-favorites.dto';
import { MarketFavoritesService } from './market-favorites.service';

/** The Markets tab's favourites of the logged-in user (visitors keep theirs in the browser). */
@ApiTags('market favorites')
@Controller('market/favorites')
@UserAuth()
export class MarketFavoritesController {
  constructor(private readonly favorites: MarketFavoritesService) {}

  @Get()
  list(@Auth() auth: AuthContext) {
    return this.favorites.list(auth.subjectId);
  }

  @Post('add')
  add(@Auth() auth: AuthContext, @Body() dto: FavoriteSymbolDto) {
    return this.favorites.add(auth.subjectId, dto.symbol);
  }

  @Post('remove')
  remove(@Auth() auth: AuthContext, @Body() dto: FavoriteSymbolDto) {
    return this.favorites.remove(auth.subjectId, dto.symbol);
  }
}
