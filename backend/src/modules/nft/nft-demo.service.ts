import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { PNG } from 'pngjs';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../../infra/config/config';
import { EngineHost } from '../engine/engine-host.service';
import { NftAdminService } from './nft-admin.service';
import { NftCollectionCreateDto, NftMintDto } from './nft.dto';

const ACTOR = 'system:demo';
const REASON = 'demo venue: one collection on sale on a fresh stack';
/** Hue pairs (background, rings) and primary prices of the demo items. */
const ITEMS: Array<{ name: string; trait: string; hues: [number, number]; price: string }> = [
  { name: 'Dawn Kestrel', trait: 'dawn', hues: [20, 200], price: '10' },
  { name: 'Tide Kestrel', trait: 'tide', hues: [190, 40], price: '25' },
  { name: 'Moss Kestrel', trait: 'moss', hues: [110, 300], price: '40' },
  { name: 'Ember Kestrel', trait: 'ember', hues: [0, 50], price: '60' },
  { name: 'Dusk Kestrel', trait: 'dusk', hues: [265, 170], price: '120' },
  { name: 'Frost Kestrel', trait: 'frost', hues: [210, 330], price: '250' },
];

/** HSL (degrees, 0–1, 0–1) to RGB bytes. */
function hsl(h: number, s: number, l: number): [number, number, number] {
  const k = (n: number) => (n + h / 30) % 12;
  const a = s * Math.min(l, 1 - l);
  const f = (n: number) => l - a * Math.max(-1, Math.min(k(n) - 3, Math.min(9 - k(n), 1)));
  return [Math.round(255 * f(0)), Math.round(255 * f(8)), Math.round(255 * f(4))];
}

/** A small generated artwork (no network, no files): rings around a diamond on a gradient, deterministic per item. */
export function demoArtwork(index: number, size = 240): Buffer {
  const [bg, fg] = ITEMS[index % ITEMS.length].hues;
  const png = new PNG({ width: size, height: size });
  const c = (size - 1) / 2;
  for (let y = 0; y < size; y++)
    for (let x = 0; x < size; x++) {
      const dx = x - c;
      const dy = y - c;
      const r = Math.sqrt(dx * dx + dy * dy) / c;
      const diamond = Math.abs(dx) + Math.abs(dy) < size * (0.18 + 0.02 * index);
      const ring = Math.floor(r * (5 + index)) % 2 === 0 && r < 0.92;
      const [R, G, B] = diamond ? hsl((fg + 180) % 360, 0.7, 0.92) : ring ? hsl(fg, 0.65, 0.55 + 0.15 * (1 - r)) : hsl(bg, 0.6, 0.22 + 0.3 * (y / size));
      const i = (y * size + x) * 4;
      png.data[i] = R;
      png.data[i + 1] = G;
      png.data[i + 2] = B;
      png.data[i + 3] = 255;
    }
  return PNG.sync.write(png);
}

/**
 * The demo venue (MARKET_SIMULATOR on, as `npm start` runs) opens with one NFT collection on
 * sale, so the NFT screens show a real market on a fresh stack: created once, on a database
 * without collections, through the operator's own path (the upload service, the same rules and
 * events, actor `system:demo`). Off with the simulator (tests, production).
 */
@Injectable()
export class NftDemoService implements OnApplicationBootstrap {
  private readonly logger = new Logger('NftDemo');

  constructor(
    private readonly dataSource: DataSource,
    private readonly admin: NftAdminService,
    private readonly host: EngineHost,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.marketSimulator) return;
    await this.host.whenOwner(() => this.seed()).catch((err: unknown) => this.logger.warn({ err }, 'demo NFT collection not created'));
  }

  async seed(): Promise<void> {
    const [{ n }] = await this.dataSource.query('SELECT COUNT(*)::int AS n FROM nft_collections');
    if (n > 0) return;
    const collection = await this.admin.createCollection(
      ACTOR,
      plainToInstance(NftCollectionCreateDto, {
        name: 'Kestrel Genesis',
        description: 'Six generated kestrels, the first collection of the venue. Pay in USDT from your trade account; resell any you own.',
        fee_rate: '0.025',
        reason: REASON,
      }),
    );
    for (const [i, item] of ITEMS.entries()) {
      const bytes = demoArtwork(i);
      const image = await this.admin.uploadImage({ fieldname: 'file', size: bytes.length, buffer: bytes });
      await this.admin.mint(
        ACTOR,
        collection.id,
        plainToInstance(NftMintDto, {
          name: item.name,
          description: `${item.name}, number ${i + 1} of the Kestrel Genesis collection.`,
          image_id: image.id,
          attributes: { palette: item.trait, rings: String(5 + i), edition: 'genesis' },
          price: item.price,
          reason: REASON,
        }),
      );
    }
    this.logger.log(`demo NFT collection ${collection.id} created with ${ITEMS.length} items on sale`);
  }
}
