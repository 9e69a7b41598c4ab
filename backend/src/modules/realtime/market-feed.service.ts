import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type {
  BalanceData,
  CandleData,
  FeedItem,
  OptionResultData,
  PositionData,
  PositionsData,
  ServerToClientEvents,
  SnapshotData,
  Topic,
  TradeData,
} from '@kestrel/contracts';
import type { Server } from 'socket.io';
import type { Redis } from 'ioredis';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig, intBetween } from '../../infra/config/config';
import { REDIS } from '../../infra/redis/redis.module';
import { moneyString, unitsString } from '../../infra/money';
import { EngineBus, OrderUpdate } from '../engine/engine-bus';
import { EngineHost } from '../engine/engine-host.service';
import { MarketRegistry } from '../engine/market-registry.service';
import { LeverService } from '../lever/lever.service';
import { CandleRow, candleOf, MarketDataService } from '../market/market-data.service';
import { bucketStart, PERIODS, REQUEST_PERIODS, storedPeriod } from '../market/periods';
import { PendingTrades } from './pending-trades';
import { depthTopic, feedRoomTopics, klineTopic, ParsedTopic, tradesTopic, userRoom } from './topics';

/** At most one message per topic per this many ms (DESIGN §8: conflation). */
export const CONFLATE_MS = intBetween('WS_CONFLATE_MS', 200, 10, 10_000);
const DEPTH_LEVELS = 20;
/** The longest the tickers go without being recomputed (their 24 h window moves on without trades). */
const TICKERS_REFRESH_MS = 60_000;
/** Trades in a `trades:<symbol>` snapshot (the newest). */
const SNAPSHOT_TRADES = 50;

/**
 * Turns engine events into conflated, sequenced Socket.IO messages. Engine events only mark
 * topics dirty; a 200 ms cycle publishes each dirty topic once with its current state, so a
 * burst of trades costs subscribers one message per topic.
 */
@Injectable()
export class MarketFeedService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('MarketFeed');
  private server?: Server<Record<string, never>, ServerToClientEvents, { feed: (items: FeedItem[]) => void }>;
  private timer?: NodeJS.Timeout;
  private readonly seq = new Map<string, number>();
  private readonly dirtyBooks = new Set<number>();
  private readonly newTrades = new Map<number, PendingTrades>();
  /** Per `trades:<symbol>` topic, the newest trades sent (`SNAPSHOT_TRADES`, oldest first). */
  private readonly recentTrades = new Map<string, TradeData[]>();
  /**
   * Per `trades:<symbol>` topic, the seq of the last message whose trades are in `recentTrades` (sent
   * here, or on split roles received). Its snapshot carries that seq, not the counter's (which counts
   * a message whose seq is taken but not sent or received here yet, whose trades the snapshot lacks).
   */
  private readonly tradesSeq = new Map<string, number>();
  /**
   * Per `trades:<symbol>` topic, the newest trade id in `recentTrades` (before this process has any:
   * the one below the first it was given). The table's rows above it are not sent yet: a snapshot
   * leaves them out, the next message has them.
   */
  private readonly tradesSentTo = new Map<string, number>();
  /** Markets with trades the projector has not written yet: per journaled batch, [its seq (to wait for), its time]. */
  private readonly candlesDue = new Map<number, Array<[number, number]>>();
  /**
   * Per market whose new trades are projected: the earliest of their times. Every candle from the
   * one holding it on is pushed, so a cycle whose trades cross a period's boundary sends the
   * finished candle (its last trades) before the new one.
   */
  private readonly candlesReady = new Map<number, number>();
  private readonly dirtyUsers = new Set<number>();
  /** Contract positions: users whose positions changed, markets with a new mark tick, and what each user was last sent. */
  private readonly dirtyPositions = new Set<number>();
  private readonly markedMarkets = new Set<number>();
  private readonly sentPositions = new Map<number, { json: string; ids: string[] }>();
  private tickersDirty = true;
  private tickersAt = 0;
  private lastTickers = '';
  private publishing = false;
  /** Users with a socket now (count). */
  private readonly sockets = new Map<number, number>();

  constructor(
    private readonly bus: EngineBus,
    private readonly registry: MarketRegistry,
    private readonly data: MarketDataService,
    private readonly dataSource: DataSource,
    private readonly positions: LeverService,
    private readonly host: EngineHost,
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.shared = config.engine.transport === 'redis';
  }

  /**
   * Split roles: several processes emit (through the Socket.IO Redis adapter), so every topic's and
   * user channel's sequence number comes from one Redis counter, and the market topics are
   * published by the process that holds the books only.
   */
  private readonly shared: boolean;

  attach(server: Server): void {
    this.server = server as unknown as NonNullable<MarketFeedService['server']>;
    // Split roles: the engine sends each cycle's market messages to every process once; each writes
    // them to its own batched sockets.
    if (this.shared) this.server.on('feed', (items) => this.received(items));
  }

  onApplicationBootstrap(): void {
    this.bus.on('book', (marketId) => this.dirtyBooks.add(marketId));
    this.bus.on('trades', (trades, seq) => {
      const id = trades[0].marketId;
      let pending = this.newTrades.get(id);
      if (!pending) {
        this.newTrades.set(id, (pending = new PendingTrades()));
        // The first trades this process is given: the ones before them were sent before it started.
        const m = this.registry.byIdOrUndefined(id);
        if (m && !this.tradesSentTo.has(tradesTopic(m.symbol))) this.tradesSentTo.set(tradesTopic(m.symbol), trades[0].tradeId - 1);
      }
      for (const t of trades) pending.push(t);
      const due = this.candlesDue.get(id);
      if (due) due.push([seq, trades[0].ts]);
      else this.candlesDue.set(id, [[seq, trades[0].ts]]);
    });
    // After a rebuild here (a take-over, a rebuild after a failure), the batches it projected were never
    // given as `trades`: every market's current candles and the tickers are sent again from the tables,
    // so a chart left open shows their trades (it can only replace its last bar: an older one stays
    // as drawn until a reload).
    this.bus.on('rebuilt', () => {
      const now = Date.now();
      for (const m of this.registry.all()) {
        this.candlesReady.set(m.id, Math.min(now, this.candlesReady.get(m.id) ?? now));
        // A book read while there was no sequencer was refused: every book is sent again.
        this.dirtyBooks.add(m.id);
      }
      this.tickersDirty = true;
    });
    // Candles and tickers are read from the tables the projector writes: pushed once it has the trades.
    this.bus.on('projected', (seq) => {
      for (const [id, due] of this.candlesDue) {
        if (due[0][0] > seq) continue;
        // Batch times never go back: the first projected batch's is the earliest, unless one is pending already.
        if (!this.candlesReady.has(id)) this.candlesReady.set(id, due[0][1]);
        const left = due.findIndex(([s]) => s > seq);
        if (left < 0) this.candlesDue.delete(id);
        else due.splice(0, left);
        this.tickersDirty = true;
      }
    });
    this.bus.on('balance', (userId) => {
      if (this.listening(userId)) this.dirtyUsers.add(userId);
    });
    this.bus.on('position', (userId) => {
      if (this.listening(userId)) this.dirtyPositions.add(userId);
    });
    this.bus.on('mark', (marketIds) => marketIds.forEach((id) => this.markedMarkets.add(id)));
    // A push that fails (Redis gone, the process stopping) is logged, never an unhandled rejection.
    const pushed = (p: Promise<void>) => void p.catch((err: unknown) => this.logger.warn({ err }, 'push failed'));
    // One message per owner for what one projector step made visible; users nobody listens for cost nothing.
    this.bus.on('orders', (orders) => {
      const byUser = new Map<number, OrderUpdate[]>();
      for (const o of orders) {
        if (!this.listening(o.userId)) continue;
        const list = byUser.get(o.userId);
        if (list) list.push(o);
        else byUser.set(o.userId, [o]);
      }
      for (const [userId, list] of byUser) pushed(this.pushOrders(userId, list));
    });
    this.bus.on('option', (o) => pushed(this.pushOption(o.userId, o.data)));
    // Split roles: the engine shares each changed book, and every book again a third of a lease after its last share (publish).
    this.timer = setInterval(() => void this.publish(), CONFLATE_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    if (this.timer) clearInterval(this.timer);
  }

  private async next(key: string): Promise<number> {
    if (this.shared) return this.redis.incr(`feed-seq:${key}`);
    const n = (this.seq.get(key) ?? 0) + 1;
    this.seq.set(key, n);
    return n;
  }

  async current(key: string): Promise<number> {
    if (this.shared) return Number((await this.redis.get(`feed-seq:${key}`)) ?? 0);
    return this.seq.get(key) ?? 0;
  }

  online(userId: number): void {
    this.sockets.set(userId, (this.sockets.get(userId) ?? 0) + 1);
    // A new socket gets the full list once (the screen's lever/deal snapshot may be older).
    this.sentPositions.delete(userId);
    this.dirtyPositions.add(userId);
  }

  offline(userId: number): void {
    const n = (this.sockets.get(userId) ?? 1) - 1;
    if (n > 0) return void this.sockets.set(userId, n);
    this.sockets.delete(userId);
    this.sentPositions.delete(userId);
  }

  /**
   * Whether a user's private messages can reach anyone: a socket of theirs is connected (a socket
   * that comes back starts again from snapshots: no recovery, see push-server.ts). Users nobody
   * listens for (API-only clients, bots) cost no message and no balance read.
   */
  private listening(userId: number): boolean {
    // Split roles: the sockets are on other processes; everyone counts as listening.
    return this.shared || this.sockets.has(userId);
  }

  /**
   * A user's order changes, sent as soon as the projector has written them (not conflated: every
   * change, in order), in one message per projector step: a trader whose orders fill by the
   * hundred gets one message for them, not a hundred (the bus handler skips users nobody listens for).
   */
  private async pushOrders(userId: number, orders: OrderUpdate[]): Promise<void> {
    if (!this.server) return;
    const seq = await this.next(`order:${userId}`);
    this.server.to(userRoom(userId)).emit('orders', {
      seq,
      ts: Date.now(),
      data: orders.map((o) => ({
        order_id: String(o.id),
        symbol: this.registry.byIdOrUndefined(o.marketId)?.symbol ?? String(o.marketId),
        status: o.status,
        filled_qty: unitsString(o.filledQty),
        filled_amount: unitsString(o.filledQuote),
        fee: unitsString(o.fee),
      })),
    });
  }

  private async pushOption(userId: number, data: OptionResultData): Promise<void> {
    if (!this.listening(userId) || !this.server) return;
    this.server.to(userRoom(userId)).emit('option', { seq: await this.next(`option:${userId}`), ts: Date.now(), data });
  }

  async publish(): Promise<void> {
    if (!this.server || this.publishing) return;
    this.publishing = true;
    try {
      if (!this.shared || this.host.owner) {
        await this.publishMarkets();
        if (this.shared) await this.data.refreshSharedDepth();
      } else {
        // Another process holds the books and sends the market topics: nothing piles up here to be sent on a later take-over.
        this.dirtyBooks.clear();
        this.newTrades.clear();
        this.candlesDue.clear();
        this.candlesReady.clear();
      }
      await this.publishBalances();
      await this.publishPositions();
    } catch (err) {
      this.logger.warn({ err }, 'publish failed');
    } finally {
      this.publishing = false;
    }
  }

  /**
   * One conflation cycle: builds every dirty topic's message (concurrently: each topic's data, then
   * its sequence number), then sends them together, stamped with the send time — one event per
   * topic to the topic rooms, and one `feed` per set of topics to the batched sockets. A part that
   * fails (a query, a Redis call) is queued again for the next cycle and the others are sent: no
   * message that took a sequence number is dropped.
   */
  private async publishMarkets(): Promise<void> {
    const parts: Array<Promise<FeedItem[]>> = [];
    for (const marketId of this.dirtyBooks) {
      const m = this.registry.byIdOrUndefined(marketId);
      // No sequencer here right now (a rebuild): every book is sent once it is back ('rebuilt').
      if (!m || (!this.shared && !this.host.book(marketId))) continue;
      const topic = depthTopic(m.symbol);
      parts.push(
        (async (): Promise<FeedItem[]> => {
          if (this.shared) await this.data.shareDepth(marketId);
          const data = await this.depth(m.symbol);
          return [['depth', { topic, seq: await this.next(topic), ts: 0, data }]];
        })().catch(this.retried(() => this.dirtyBooks.add(marketId))),
      );
    }
    this.dirtyBooks.clear();

    const watched = this.newTrades.size ? this.watchedTopics() : undefined;
    for (const [marketId, trades] of this.newTrades) {
      const m = this.registry.byIdOrUndefined(marketId);
      if (!m) continue;
      const topic = tradesTopic(m.symbol);
      // Nobody here listens: no message is built (a later subscriber starts from the snapshot and its
      // sequence number); only the newest trades are kept, for that snapshot.
      if (watched && !watched.has(topic)) {
        this.rememberTrades(topic, trades.data(m.engine, SNAPSHOT_TRADES));
        continue;
      }
      const data = trades.data(m.engine);
      // Remembered for the snapshot with the message's seq, once it has one; without one they go in the next cycle's message.
      parts.push(
        this.next(topic).then(
          (seq): FeedItem[] => (this.rememberTrades(topic, data, seq), [['trades', { topic, seq, ts: 0, data }]]),
          this.retried(() => this.newTrades.set(marketId, trades.before(this.newTrades.get(marketId)))),
        ),
      );
    }
    this.newTrades.clear();

    for (const [marketId, from] of this.candlesReady) {
      const m = this.registry.byIdOrUndefined(marketId);
      if (!m) continue;
      // Sent again from the same candle on the next cycle (with the market's later trades) if any of them is not sent now.
      const again = () => this.candlesReady.set(marketId, Math.min(from, this.candlesReady.get(marketId) ?? from));
      parts.push(
        this.candlesSince(marketId, from)
          .then(async (candles) => {
            const built = await Promise.allSettled(
              candles.map(async ([period, candle]): Promise<FeedItem> => {
                const topic = klineTopic(m.symbol, period);
                return ['kline', { topic, seq: await this.next(topic), ts: 0, data: candle }];
              }),
            );
            const failed = built.find((b) => b.status === 'rejected');
            if (failed) this.retried(again)(failed.reason);
            return built.flatMap((b) => (b.status === 'fulfilled' ? [b.value] : []));
          })
          .catch(this.retried(again)),
      );
    }
    this.candlesReady.clear();

    // The 24 h window moves on without trades too (a quiet market's volume, high and low age out):
    // recomputed at least once a minute, sent only if it changed.
    const now = Date.now();
    if (this.tickersDirty || now - this.tickersAt >= TICKERS_REFRESH_MS) {
      this.tickersDirty = false;
      this.tickersAt = now;
      parts.push(
        (async (): Promise<FeedItem[]> => {
          const tickers = await this.data.tickers(true);
          const json = JSON.stringify(tickers);
          if (json === this.lastTickers) return [];
          const seq = await this.next('tickers');
          this.lastTickers = json;
          return [['tickers', { topic: 'tickers', seq, ts: 0, data: tickers }]];
        })().catch(this.retried(() => (this.tickersDirty = true))),
      );
    }
    // Every part settles (a failed one with nothing to send).
    const items = (await Promise.all(parts)).flat();
    if (!items.length) return;
    const server = this.server!;
    const ts = Date.now();
    for (const [, message] of items) message.ts = ts;
    for (const [event, message] of items) server.to(message.topic).emit(event, message as never);
    this.writeFeed(items);
    if (this.shared) server.serverSideEmit('feed', items);
  }

  /** A cycle's part failed: logged, and `again` queues its work for the next cycle; the cycle sends the other parts. */
  private retried(again: () => void): (err: unknown) => FeedItem[] {
    return (err) => {
      again();
      this.logger.warn({ err }, 'push failed: tried again next cycle');
      return [];
    };
  }

  /**
   * The topics someone on this process listens to (a topic's room or a batched socket's set of
   * topics), read once per cycle; undefined for split roles, whose sockets are on other processes
   * (every topic counts as listened to there).
   */
  private watchedTopics(): Set<string> | undefined {
    if (this.shared || !this.server) return undefined;
    const topics = new Set<string>();
    for (const [room, members] of this.server.of('/').adapter.rooms) {
      if (!members.size) continue;
      const feed = feedRoomTopics(room);
      if (!feed) topics.add(room);
      else for (const topic of feed) topics.add(topic);
    }
    return topics;
  }

  /** This process's batched sockets: one `feed` per set of topics with any of the cycle's messages, encoded once for the set. */
  private writeFeed(items: FeedItem[]): void {
    const server = this.server;
    if (!server) return;
    for (const room of server.of('/').adapter.rooms.keys()) {
      const topics = feedRoomTopics(room);
      if (!topics) continue;
      const mine = items.filter(([, m]) => topics.includes(m.topic));
      if (mine.length) server.local.to(room).emit('feed', mine);
    }
  }

  /** Split roles: a cycle's market messages from the process holding the books, for this process's sockets and snapshots. */
  received(items: FeedItem[]): void {
    for (const [event, m] of items) if (event === 'trades') this.rememberTrades(m.topic, m.data as TradeData[], m.seq);
    this.writeFeed(items);
  }

  /**
   * The newest trades sent on a topic (oldest first), for its snapshot, with their message's seq
   * (none: trades nobody here listened to, in no message; the next message has the later ones).
   */
  private rememberTrades(topic: string, data: TradeData[], seq?: number): void {
    if (!data.length) return;
    const list = data.length >= SNAPSHOT_TRADES ? data : (this.recentTrades.get(topic) ?? []).concat(data);
    this.recentTrades.set(topic, list.length > SNAPSHOT_TRADES ? list.slice(-SNAPSHOT_TRADES) : list);
    this.tradesSentTo.set(topic, Number(data[data.length - 1].trade_id));
    if (seq !== undefined) this.tradesSeq.set(topic, seq);
  }

  private depth(symbol: string) {
    return this.data.depth(symbol, DEPTH_LEVELS) as Promise<{ symbol: string; bids: Array<[string, string]>; asks: Array<[string, string]> }>;
  }

  /**
   * Every period's candles from the one holding `from` (ms) on, oldest first (time-share shares the
   * 1-minute ones): the candles the trades projected since the last cycle changed.
   */
  private async candlesSince(marketId: number, from: number): Promise<Array<[(typeof REQUEST_PERIODS)[number], CandleData]>> {
    const rows: Array<CandleRow & { period: string }> = await this.dataSource.query(
      `SELECT k.period, EXTRACT(EPOCH FROM k.open_time)::bigint AS time, k.open::text, k.high::text, k.low::text, k.close::text, k.volume::text
       FROM unnest($2::text[], $3::timestamptz[]) AS s(period, since)
       JOIN klines k ON k.market_id = $1 AND k.period = s.period AND k.open_time >= s.since
       ORDER BY k.period, k.open_time`,
      [marketId, PERIODS, PERIODS.map((p) => new Date(bucketStart(p, from)).toISOString())],
    );
    const by = new Map<string, CandleData[]>();
    for (const r of rows) {
      const c = candleOf(r);
      const list = by.get(r.period);
      if (list) list.push(c);
      else by.set(r.period, [c]);
    }
    return REQUEST_PERIODS.flatMap((p) => (by.get(storedPeriod(p)) ?? []).map((c): [(typeof REQUEST_PERIODS)[number], CandleData] => [p, c]));
  }

  private async publishBalances(): Promise<void> {
    if (!this.dirtyUsers.size) return;
    const users = [...this.dirtyUsers];
    this.dirtyUsers.clear();
    // A cycle that fails (the database, Redis) leaves every user it has not pushed to for the next
    // one, as the market topics' parts are (regression: they were dropped until their next change).
    let pushed = 0;
    try {
      await this.pushBalances(users, () => pushed++);
    } catch (err) {
      for (const u of users.slice(pushed)) this.dirtyUsers.add(u);
      throw err;
    }
  }

  private async pushBalances(users: number[], sent: () => void): Promise<void> {
    const rows: Array<{ owner_id: number; account_type: string; currency_id: number; available: string; frozen: string }> = await this.dataSource.query(
      `SELECT owner_id, account_type, currency_id, available::text, frozen::text FROM balances WHERE owner_type = 'user' AND owner_id = ANY($1) ORDER BY account_type, currency_id`,
      [users],
    );
    const by = new Map<number, BalanceData[]>();
    for (const r of rows)
      by.set(r.owner_id, [
        ...(by.get(r.owner_id) ?? []),
        { account_type: r.account_type, currency_id: r.currency_id, available: moneyString(r.available), frozen: moneyString(r.frozen) },
      ]);
    const now = Date.now();
    for (const u of users) {
      this.server!.to(userRoom(u)).emit('balance', { seq: await this.next(`balance:${u}`), ts: now, data: by.get(u) ?? [] });
      sent();
    }
  }

  /**
   * Contract positions, conflated like the market topics: every cycle, the users with a position
   * change and the holders of a position in a market with a new mark tick get their open list,
   * valued at the latest tick — only when it differs from what they were last sent. Positions that
   * left the list since then come with how they ended (the app's live toast).
   */
  private async publishPositions(): Promise<void> {
    if (this.markedMarkets.size) {
      const markets = [...this.markedMarkets];
      this.markedMarkets.clear();
      // Split roles: the ticks are recorded (and marked) on the process holding the books, whose
      // sockets are none: every holder in those markets, pushed through the adapter to the process
      // their socket is on (regression: only the holders connected here, so none, were pushed).
      const connected = this.shared ? undefined : [...this.sockets.keys()];
      if (!connected || connected.length) {
        const rows: Array<{ user_id: number }> = await this.dataSource.query(
          `SELECT DISTINCT user_id FROM lever_positions WHERE status = 'holding' AND market_id = ANY($1)${connected ? ' AND user_id = ANY($2)' : ''}`,
          connected ? [markets, connected] : [markets],
        );
        for (const r of rows) if (this.listening(r.user_id)) this.dirtyPositions.add(r.user_id);
      }
    }
    if (!this.dirtyPositions.size) return;
    const users = [...this.dirtyPositions];
    this.dirtyPositions.clear();
    let done = 0;
    try {
      const open = await this.positions.openViews(users);
      for (const u of users) {
        const positions = (open.get(u) ?? []) as PositionData[];
        const json = JSON.stringify(positions);
        const prev = this.sentPositions.get(u);
        if (prev?.json !== json) {
          const ids = positions.map((p) => p.id);
          const gone = prev ? prev.ids.filter((id) => !ids.includes(id)) : [];
          const closed = (await this.positions.endings(gone)) as PositionsData['closed'];
          const seq = await this.next(`position:${u}`);
          this.server!.to(userRoom(u)).emit('position', { seq, ts: Date.now(), data: { positions, closed } });
          // Remembered as sent once it is (before, a list that failed to go out was skipped as sent).
          this.sentPositions.set(u, { json, ids });
        }
        done++;
      }
    } catch (err) {
      // As for balances: the users not pushed yet go in the next cycle.
      for (const u of users.slice(done)) this.dirtyPositions.add(u);
      throw err;
    }
  }

  /**
   * The topic with its market's canonical symbol (`depth:btc_usdt` → `depth:BTC/USDT`, the room the
   * topic is published to); undefined for a market that does not exist (`tickers` always does).
   */
  canonical(parsed: ParsedTopic): ParsedTopic | undefined {
    if (parsed.kind === 'tickers') return parsed;
    const m = this.registry.find(parsed.symbol);
    return m && { ...parsed, symbol: m.symbol };
  }

  /** A topic's state now, with the seq the next message will exceed. */
  async snapshot(topic: Topic, parsed: ParsedTopic): Promise<SnapshotData> {
    if (parsed.kind === 'trades') return this.tradesSnapshot(topic, this.registry.get(parsed.symbol).symbol);
    const seq = await this.current(topic);
    if (parsed.kind === 'tickers') return { topic, seq, data: await this.data.tickers() };
    const symbol = this.registry.get(parsed.symbol).symbol;
    if (parsed.kind === 'depth') return { topic, seq, data: await this.depth(symbol) };
    if (parsed.kind === 'kline') return { topic, seq, data: await this.data.candles(symbol, parsed.period, undefined, undefined, 300) };
    throw new Error(`unhandled topic ${topic}`);
  }

  /**
   * The table has a trade once it is projected, the feed once it is journaled: the snapshot has the
   * trades sent here (so one sent before this subscriber joined, not projected yet, is not lost to
   * it) and the table's rows up to the newest of them. A row above it (projected, its message not
   * sent yet) is left out: that message has it, with a seq above the snapshot's.
   */
  private async tradesSnapshot(topic: Topic, symbol: string): Promise<SnapshotData> {
    const table = (await this.data.deals(symbol, SNAPSHOT_TRADES)) as TradeData[];
    // Read after the table and together (nothing awaited between them), so the seq and the trades sent by then agree.
    // No message here yet: this process's own counter is 0 (a seq it took is not sent yet); the shared one counts earlier processes'.
    const seq = this.tradesSeq.get(topic) ?? (this.shared ? await this.current(topic) : 0);
    const sentTo = this.tradesSentTo.get(topic) ?? Infinity;
    const byId = new Map<string, TradeData>();
    for (const t of table) if (Number(t.trade_id) <= sentTo) byId.set(t.trade_id, t);
    for (const t of this.recentTrades.get(topic) ?? []) byId.set(t.trade_id, t);
    const data = [...byId.values()].sort((a, b) => Number(a.trade_id) - Number(b.trade_id)).slice(-SNAPSHOT_TRADES);
    return { topic, seq, data };
  }
}
