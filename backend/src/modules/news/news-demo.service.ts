import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { PNG } from 'pngjs';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../../infra/config/config';
import { NewsAdminService } from './news-admin.service';
import { ArticleCreateDto, BannerCreateDto, TranslationDto } from './news.dto';

const ACTOR = 'system:demo';
const REASON = 'demo venue: news, notices and help articles on a fresh stack';

type Text = { title: string; summary: string; body: string };
const ARTICLES: Array<{ category: string; pinned?: boolean; recommended?: boolean; daysAgo: number; en: Text; zh: Text }> = [
  {
    category: 'announcement',
    pinned: true,
    recommended: true,
    daysAgo: 0,
    en: {
      title: 'Kestrel Exchange is live: spot, contracts and options in one app',
      summary: 'Trade on a real order book with prices from our own trades.',
      body: 'Welcome to **Kestrel Exchange**.\n\n- Spot trading on a price-time order book\n- Leveraged contracts and up/down options\n- Wealth products, new coin subscriptions and NFTs\n\nEvery price you see comes from trades on this venue. Happy trading!',
    },
    zh: {
      title: 'Kestrel 交易所正式上线：现货、合约、期权一站式交易',
      summary: '真实订单簿撮合，价格来自本平台成交。',
      body: '欢迎来到 **Kestrel 交易所**。\n\n- 价格-时间优先的现货订单簿\n- 杠杆合约与涨跌期权\n- 理财、新币申购与 NFT\n\n您看到的每一个价格都来自本平台的真实成交。祝交易愉快！',
    },
  },
  {
    category: 'announcement',
    recommended: true,
    daysAgo: 1,
    en: {
      title: 'Scheduled maintenance of USDT (TRC20) withdrawals',
      summary: 'Withdrawals on TRC20 pause for about 30 minutes during the wallet upgrade.',
      body: 'We will upgrade the TRC20 wallet service. During the upgrade **withdrawals on TRC20 pause for about 30 minutes**; deposits are credited after it ends.\n\nTrading is not affected. Thank you for your patience.',
    },
    zh: {
      title: 'USDT（TRC20）提现维护通知',
      summary: '钱包升级期间，TRC20 提现暂停约 30 分钟。',
      body: '我们将升级 TRC20 钱包服务。升级期间 **TRC20 提现暂停约 30 分钟**，充值将在升级完成后到账。\n\n交易不受影响，感谢您的耐心。',
    },
  },
  {
    category: 'announcement',
    daysAgo: 3,
    en: {
      title: 'Invite friends and earn a share of their trading fees',
      summary: 'Referral rebates are credited to your trade account every hour.',
      body: 'Share your invite link from **Invite friends**. When your friends trade spot, contracts or options, a share of the fees they pay is credited to you.\n\nRebates are settled every hour.',
    },
    zh: {
      title: '邀请好友，赚取交易手续费返佣',
      summary: '返佣每小时结算至您的币币账户。',
      body: '在 **邀请好友** 中分享您的邀请链接。好友交易现货、合约或期权时，其手续费的一部分将返还给您。\n\n返佣每小时结算一次。',
    },
  },
  {
    category: 'news',
    recommended: true,
    daysAgo: 2,
    en: {
      title: 'How options are settled: two recorded prices and your direction',
      summary: 'The result of an option is a pure function of the recorded price at purchase and at delivery.',
      body: 'Each option order stores the **price tick at purchase** and the **price tick at delivery**. If the delivery price is above the purchase price, *up* wins; below, *down* wins; equal returns the stake.\n\nYou can audit both ticks on the order.',
    },
    zh: {
      title: '期权如何结算：两笔记录价格与您选择的方向',
      summary: '期权结果只取决于买入时与交割时记录的价格。',
      body: '每笔期权订单都保存 **买入时的价格** 和 **交割时的价格**。交割价高于买入价则 *看涨* 获胜；低于则 *看跌* 获胜；相等则退还本金。\n\n您可以在订单中核对这两笔价格。',
    },
  },
  {
    category: 'faq',
    daysAgo: 5,
    en: {
      title: 'How do I deposit?',
      summary: 'Choose a coin and network, send to the address shown, then submit the amount and proof.',
      body: '1. Open **Assets → Deposit** and choose a coin and network.\n2. Send the coins to the address shown.\n3. Enter the amount, upload the transfer screenshot and submit.\n\nAn operator checks the transfer; you get a message when it is credited.',
    },
    zh: {
      title: '如何充值？',
      summary: '选择币种和网络，转账至显示的地址，然后提交金额与凭证。',
      body: '1. 打开 **资产 → 充值**，选择币种和网络。\n2. 将币转至显示的地址。\n3. 填写金额、上传转账截图并提交。\n\n运营人员核对后到账，您会收到一条消息。',
    },
  },
  {
    category: 'faq',
    daysAgo: 5,
    en: {
      title: 'Why was my withdrawal rejected?',
      summary: 'The message in Notices tells you the reason; the frozen amount is returned at once.',
      body: 'When an operator rejects a withdrawal, **the whole frozen amount returns to your available balance** and a message in **Notices → Messages** tells you the reason.\n\nCheck the address and network, then submit again.',
    },
    zh: {
      title: '为什么我的提现被拒绝？',
      summary: '通知中的消息会说明原因，冻结金额立即退回。',
      body: '运营人员拒绝提现时，**冻结的金额会全部退回可用余额**，并在 **通知 → 消息** 中说明原因。\n\n请核对地址与网络后重新提交。',
    },
  },
  {
    category: 'faq',
    daysAgo: 6,
    en: {
      title: 'How long does identity verification take?',
      summary: 'Usually within one working day.',
      body: 'Basic verification needs your name and ID number; advanced verification needs photos of your ID. Operators usually review **within one working day** and you receive a message with the result.',
    },
    zh: {
      title: '身份认证需要多久？',
      summary: '通常在一个工作日内完成。',
      body: '初级认证需要姓名和证件号码；高级认证需要证件照片。运营人员通常在 **一个工作日内** 审核，结果会以消息通知您。',
    },
  },
];

const BANNERS: Array<{ hue: number; titles: Record<string, string>; link_type: 'route' | 'article'; link: string | number }> = [
  { hue: 215, titles: { en: 'Kestrel Exchange is live', zh: 'Kestrel 交易所正式上线' }, link_type: 'article', link: 0 },
  { hue: 160, titles: { en: 'Invite friends, earn rebates', zh: '邀请好友，赚取返佣' }, link_type: 'route', link: '/pages/promotion/index' },
  { hue: 35, titles: { en: 'Up/down options: settle in minutes', zh: '涨跌期权：分钟级交割' }, link_type: 'route', link: '/pages/option/index' },
];

/** A 750×300 banner background: a diagonal gradient with soft circles (no text: the app overlays the title). */
export function bannerArtwork(hue: number, width = 750, height = 300): Buffer {
  const png = new PNG({ width, height });
  const circles = [
    [0.78, 0.3, 0.28],
    [0.9, 0.85, 0.2],
    [0.62, 0.95, 0.14],
  ];
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const t = (x / width) * 0.6 + (y / height) * 0.4;
      let l = 0.28 + 0.22 * t;
      for (const [cx, cy, r] of circles) {
        const d = Math.hypot(x / width - cx, (y / height - cy) * (height / width));
        if (d < r) l += 0.08 * (1 - d / r);
      }
      const [R, G, B] = hsl(hue + 25 * t, 0.65, Math.min(l, 0.8));
      const i = (y * width + x) * 4;
      png.data[i] = R;
      png.data[i + 1] = G;
      png.data[i + 2] = B;
      png.data[i + 3] = 255;
    }
  return PNG.sync.write(png);
}

function hsl(h: number, s: number, l: number): [number, number, number] {
  const k = (n: number) => (n + h / 30) % 12;
  const a = s * Math.min(l, 1 - l);
  const f = (n: number) => l - a * Math.max(-1, Math.min(k(n) - 3, Math.min(9 - k(n), 1)));
  return [Math.round(255 * f(0)), Math.round(255 * f(8)), Math.round(255 * f(4))];
}

/**
 * The demo venue (MARKET_SIMULATOR on, as `npm start` runs) opens with announcements, news,
 * help-centre FAQ (English and Chinese) and three home banners, written once on a database
 * without articles through the operator's own path (same rules and events, actor `system:demo`).
 */
@Injectable()
export class NewsDemoService implements OnApplicationBootstrap {
  private readonly logger = new Logger('NewsDemo');

  constructor(
    private readonly dataSource: DataSource,
    private readonly admin: NewsAdminService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.marketSimulator) return;
    await this.seed().catch((err: unknown) => this.logger.warn({ err }, 'demo news not created'));
  }

  async seed(): Promise<void> {
    // One process seeds (an advisory lock), and only a database without articles.
    await this.dataSource.transaction(async (m) => {
      const [{ locked }] = await m.query('SELECT pg_try_advisory_xact_lock(hashtext($1)) AS locked', ['news-demo']);
      if (!locked) return;
      const [{ n }] = await m.query('SELECT COUNT(*)::int AS n FROM news_articles');
      if (n > 0) return;
      const categories: Array<{ id: number; code: string }> = await m.query('SELECT id, code FROM news_categories');
      const ids = new Map(categories.map((c) => [c.code, c.id]));
      const created: number[] = [];
      for (const a of ARTICLES) {
        const categoryId = ids.get(a.category);
        if (!categoryId) continue;
        const published = new Date(Date.now() - a.daysAgo * 86_400_000 - 60_000).toISOString();
        const art = await this.admin.createArticle(
          ACTOR,
          plainToInstance(ArticleCreateDto, {
            category_id: categoryId,
            lang: 'en',
            ...a.en,
            published_at: published,
            pinned: !!a.pinned,
            recommended: !!a.recommended,
            reason: REASON,
          }),
        );
        await this.admin.setTranslation(ACTOR, art.id, plainToInstance(TranslationDto, { lang: 'zh', ...a.zh, reason: REASON }));
        created.push(art.id);
      }
      for (const [i, b] of BANNERS.entries()) {
        const bytes = bannerArtwork(b.hue);
        const image = await this.admin.uploadImage({ fieldname: 'file', size: bytes.length, buffer: bytes });
        await this.admin.createBanner(
          ACTOR,
          plainToInstance(BannerCreateDto, {
            image_id: image.id,
            titles: b.titles,
            link_type: b.link_type,
            link: b.link_type === 'article' ? String(created[Number(b.link)]) : b.link,
            sort: i + 1,
            reason: REASON,
          }),
        );
      }
      this.logger.log(`demo news: ${created.length} articles, ${BANNERS.length} banners`);
    });
  }
}
