import { Injectable, Logger } from '@nestjs/common';
import { DataSource, EntityManager, In, IsNull, Not, Repository } from 'typeorm';
import { orConcurrentRetry, updateReturning } from '../../infra/database/sql';
import { FundPasswordGate } from '../../infra/auth/fund-password-gate';
import { BusinessError } from '../../infra/http/business-error';
import { ErrorCode } from '../../infra/http/error-codes';
import type { Page } from '../../infra/http/page.dto';
import { money, Money, moneyString } from '../../infra/money';
import { USDT_ID } from '../coin-rate/pricing.service';
import { EngineBus } from '../engine/engine-bus';
import { MarketInfo, MarketRegistry } from '../engine/market-registry.service';
import { LedgerCode, SYSTEM_OWNER_ID } from '../ledger/ledger-codes';
import { LedgerService, Movement } from '../ledger/ledger.service';
import { MarkPriceService, Tick } from '../market/mark-price.service';
import { UserMessageService } from '../notice/user-message.service';
import { LeverConfig } from './lever-config.entity';
import { equityAt, feeOf, isLiquidated, liquidationPrice, maintenanceOf, marginOf, pnlAt, settledPnl, slHit, tpHit, tpSlLive, type PositionTerms } from './lever-math';
import { CloseReason, LeverPosition } from './lever-position.entity';
import type { LeverListDto, LeverSubmitDto, LeverTpSlDto } from './lever.dto';

const user = (userId: number, code: LedgerCode, available?: Money, frozen?: Money): Movement => ({
  ownerType: 'user',
  ownerId: userId,
  accountType: 'lever',
  currencyId: USDT_ID,
  code,
  ...(available ? { available: moneyString(available) } : {}),
  ...(frozen ? { frozen: moneyString(frozen) } : {}),
});
const house = (code: LedgerCode, available: Money): Movement => ({
  ownerType: 'system',
  ownerId: SYSTEM_OWNER_ID,
  accountType: 'treasury',
  currencyId: USDT_ID,
  code,
  available: moneyString(available),
});

function terms(p: LeverPosition): PositionTerms {
  return { side: p.side, lots: p.lots, lotValue: p.lotValue, multiple: p.multiple, openPrice: p.openPrice!, maintenanceRate: p.maintenanceRate };
}

/** The watcher passed the tick a submit read before it could commit: the submit reads the price again. */
class WatcherPassed extends Error {}

/** The watcher holds (or waits for) the market's watch lock: the submit gives its connection back, waits and tries again. */
class WatcherBusy extends Error {}

/** How often a submit tries the watch lock, and how long it waits between tries (about a second in all: then 2105). */
const WATCH_LOCK_TRIES = 50;
const WATCH_LOCK_WAIT_MS = 20;

/**
 * The market's watch lock (a transaction's advisory lock): exclusive while the watcher evaluates a
 * tick, from reading the positions to moving its cursor past the tick; shared by a submit from
 * checking that cursor until it commits. So a new position is either committed before the watcher
 * reads the positions of a tick, or opens on a tick at or after the watcher's cursor (never one it
 * has passed without it: the submit reads the price again then). A submit only tries it
 * (WatcherBusy when the watcher holds it or waits for it): the watcher takes more pool connections
 * for its fills and closes while it holds the lock, so submits waiting for it while holding theirs
 * could take the whole pool and stop the watcher, and with it every request of the process.
 */
async function watchLock(m: EntityManager, marketId: number, shared: boolean): Promise<void> {
  const key = `lever-watch:${marketId}`;
  if (!shared) {
    await m.query('SELECT pg_advisory_xact_lock(hashtext($1))', [key]);
    return;
  }
  const [{ held }] = await m.query('SELECT pg_try_advisory_xact_lock_shared(hashtext($1)) AS held', [key]);
  if (!held) throw new WatcherBusy();
}

/** Runs `attempt` again, WATCH_LOCK_WAIT_MS apart, while it finds the watcher holding the market's watch lock (its transaction given back each time); 2105 after WATCH_LOCK_TRIES. */
async function whileWatcherBusy<T>(attempt: () => Promise<T>): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      return await attempt();
    } catch (err) {
      if (!(err instanceof WatcherBusy)) throw err;
      if (tries === WATCH_LOCK_TRIES) throw new BusinessError(ErrorCode.MARKET_BUSY);
      await new Promise((r) => setTimeout(r, WATCH_LOCK_WAIT_MS));
    }
  }
}

/**
 * The watcher's rules, one position on one recorded tick (LeverService.evaluate, and a user's action
 * on the ticks the watcher has not reached yet, LeverService.overtake). A pending limit order opens
 * on a tick recorded after it was placed (by id; orders placed before `placed_tick_id` compare times)
 * at or beyond its price (long: ≤, short: ≥).
 */
function fillsOn(p: LeverPosition, tick: Tick): boolean {
  if (p.placedTickId !== null ? BigInt(tick.id) <= BigInt(p.placedTickId) : new Date(p.createdAt).getTime() > new Date(tick.ts).getTime()) return false;
  return p.side === 'long' ? money(tick.price).lte(p.targetPrice!) : money(tick.price).gte(p.targetPrice!);
}

/** A holding position closes on a tick after its open: liquidation, stop loss, take profit, in that order (the levels only on ticks after their change). */
function triggerOn(p: LeverPosition, tick: Tick): CloseReason | undefined {
  if (BigInt(tick.id) <= BigInt(p.openTickId!)) return undefined;
  const levels = tpSlLive(p, tick.id);
  return isLiquidated(terms(p), tick.price)
    ? 'liquidation'
    : levels && slHit(p.side, p.stopLoss, tick.price)
      ? 'stop_loss'
      : levels && tpHit(p.side, p.takeProfit, tick.price)
        ? 'take_profit'
        : undefined;
}

/** How many recorded ticks a user's action reads at a time when the watcher is behind (overtake). */
const OVERTAKE_PAGE = 500;

/**
 * Contracts (lever): positions margined in USDT in the contract account, opened and closed on
 * recorded mark-price ticks, with the house (system `treasury`) as the counterparty. Ledger: 20
 * margin (available → frozen), 21 fee, 22 margin back, 30 closing funds (the realised P/L).
 */
@Injectable()
export class LeverService {
  private readonly logger = new Logger('Lever');
  constructor(
    private readonly dataSource: DataSource,
    private readonly ledger: LedgerService,
    private readonly registry: MarketRegistry,
    private readonly bus: EngineBus,
    private readonly marks: MarkPriceService,
    private readonly messages: UserMessageService,
    private readonly fundPassword: FundPasswordGate,
  ) {}

  private async config(market: MarketInfo): Promise<LeverConfig> {
    const c = await this.dataSource.getRepository(LeverConfig).findOne({ where: { marketId: market.id, enabled: true } });
    if (!c) throw new BusinessError(ErrorCode.MARKET_NOT_FOUND);
    return c;
  }

  /** lever/deal: the market's contract rules, the user's contract balance, last and mark price, open positions. */
  async deal(userId: number, symbol: string) {
    const market = this.registry.get(symbol);
    const c = await this.config(market);
    const [tick, [last], balances, open] = await Promise.all([
      this.marks.latestRecorded(market.id),
      this.dataSource.query('SELECT price::text FROM trades WHERE market_id = $1 ORDER BY trade_id DESC LIMIT 1', [market.id]),
      this.ledger.balancesOf('user', userId),
      this.dataSource.getRepository(LeverPosition).find({ where: { userId, marketId: market.id, status: In(['pending', 'holding']) }, order: { id: 'DESC' } }),
    ]);
    const b = balances.find((x) => x.accountType === 'lever' && x.currencyId === USDT_ID);
    const kept = await this.keptPrices(open);
    return {
      symbol: market.symbol,
      multiples: c.multiples,
      lot_value: moneyString(c.lotValue),
      min_lots: c.minLots,
      max_lots: c.maxLots,
      fee_rate: moneyString(c.feeRate),
      maintenance_rate: moneyString(c.maintenanceRate),
      available: b?.available ?? '0',
      frozen: b?.frozen ?? '0',
      last_price: last ? moneyString(last.price) : null,
      mark_price: tick ? moneyString(tick.price) : null,
      mark_tick_id: tick?.id ?? null,
      positions: open.map((p) => this.view(p, market.symbol, tick?.price, kept)),
    };
  }

  /** lever/submit: the spec's checks in order, then the margin and fee (market) or their freeze (limit). */
  async submit(userId: number, dto: LeverSubmitDto) {
    const market = this.registry.get(dto.symbol);
    // A retried client id answers its first position (also when the retry ran at the same time, below),
    // before any check that depends on the moment (the price now against the take profit and stop loss).
    const prior = async (m = this.dataSource.manager) => (dto.client_id ? m.getRepository(LeverPosition).findOne({ where: { userId, clientId: dto.client_id } }) : null);
    const answer = async (first: LeverPosition) => {
      const mark = (await this.marks.latestRecorded(first.marketId))?.price;
      return this.view(first, this.registry.symbolOf(first.marketId), mark, await this.keptPrices([first]));
    };
    const first = await prior();
    if (first) return answer(first);
    try {
      return await this.submitNew(userId, dto, market, prior);
    } catch (err) {
      // A refusal that depends on the moment (the price now against the levels) met by the twin of a
      // request sent at the same time with this client id: the first request's position is the answer.
      const twin = err instanceof BusinessError ? await prior() : null;
      if (twin) return answer(twin);
      throw err;
    }
  }

  /** `submit` for a client id not seen before: the checks, then the position (opened or placed) in one transaction. */
  private async submitNew(
    userId: number,
    dto: LeverSubmitDto,
    market: MarketInfo,
    prior: (m?: EntityManager) => Promise<LeverPosition | null>,
  ): Promise<ReturnType<LeverService['view']>> {
    // The market first (2001 for one without contracts), then the fund password (2100), as documented.
    const c = await this.config(market);
    await this.fundPassword.require(userId);
    // Up to 18 digits (the DTO): beyond 2^53 the number is not exact, but it is still far above any
    // market's maximum (an int), so the range check answers it (2410); only a count in range is used.
    const lots = Number(dto.lots);
    if (!Number.isInteger(lots) || lots < 1) throw new BusinessError(ErrorCode.VALIDATION, 'error.lots_integer');
    if (lots < c.minLots || lots > c.maxLots)
      throw new BusinessError(ErrorCode.LEVER_LOTS_RANGE, undefined, { min: String(c.minLots), max: String(c.maxLots) });
    if (!c.multiples.includes(dto.multiple)) throw new BusinessError(ErrorCode.LEVER_MULTIPLE_INVALID, undefined, { multiples: c.multiples.join(', ') });
    if (dto.type === 'limit' && (!dto.price || money(dto.price).lte(0))) throw new BusinessError(ErrorCode.VALIDATION, 'error.price_invalid');
    const margin = marginOf(lots, c.lotValue, dto.multiple);
    const fee = feeOf(lots, c.lotValue, c.feeRate);
    for (let attempt = 1; ; attempt++) {
      const tick = dto.type === 'market' ? await this.marks.now(market) : undefined;
      // A limit order fills only on a tick recorded after it is placed.
      const placedTickId = dto.type === 'limit' ? await this.marks.newestTickId(market.id) : null;
      this.checkTpSl(dto.side, tick ? tick.price : dto.price!, dto.take_profit, dto.stop_loss);
      const open = async (m: EntityManager) => {
        const earlier = await prior(m);
        if (earlier) return earlier;
        // Under the market's watch lock until this commits (watchLock): the watcher has evaluated
        // every tick up to its cursor without this position, so it opens only on a tick the watcher
        // has not passed, else it is read again (regression: a tick the watcher evaluated between
        // this read of the price and the commit was never applied to the position: its
        // liquidation or take profit missed).
        await watchLock(m, market.id, true);
        const [cursor] = await m.query('SELECT tick_id::text FROM lever_cursors WHERE market_id = $1', [market.id]);
        if (cursor && BigInt(cursor.tick_id) > BigInt(tick?.id ?? placedTickId!)) throw new WatcherPassed();
        return this.place(m, userId, market, c, dto, { lots, margin, fee, tick, placedTickId });
      };
      try {
        // The same tick while the watcher holds the lock: once it lets go, the cursor check says whether it passed the tick.
        const position = await whileWatcherBusy(() => orConcurrentRetry(() => this.dataSource.transaction(open), prior));
        this.bus.emit('balance', userId);
        this.bus.emit('position', userId);
        return this.view(position, market.symbol, tick?.price);
      } catch (err) {
        if (!(err instanceof WatcherPassed)) throw err;
        if (attempt === 3) throw new BusinessError(ErrorCode.MARKET_BUSY);
      }
    }
  }

  /** A new position or limit order, its margin and fee posted (market) or frozen (limit), in the caller's transaction. */
  private async place(
    m: EntityManager,
    userId: number,
    market: MarketInfo,
    c: LeverConfig,
    dto: LeverSubmitDto,
    { lots, margin, fee, tick, placedTickId }: { lots: number; margin: Money; fee: Money; tick?: Tick; placedTickId: string | null },
  ): Promise<LeverPosition> {
    const repo = m.getRepository(LeverPosition);
    const p = await repo.save(
      repo.create({
        userId,
        marketId: market.id,
        side: dto.side,
        type: dto.type,
        lots,
        multiple: dto.multiple,
        lotValue: c.lotValue,
        margin: moneyString(margin),
        fee: moneyString(fee),
        maintenanceRate: c.maintenanceRate,
        targetPrice: dto.type === 'limit' ? moneyString(dto.price!) : null,
        takeProfit: moneyString(dto.take_profit),
        stopLoss: moneyString(dto.stop_loss),
        status: dto.type === 'market' ? 'holding' : 'pending',
        openPrice: tick ? moneyString(tick.price) : null,
        openTickId: tick?.id ?? null,
        openedAt: tick ? new Date() : null,
        placedTickId,
        clientId: dto.client_id ?? null,
      }),
    );
    if (dto.type === 'market') await this.postOpen(m, p, false);
    else {
      const total = margin.plus(fee);
      await this.ledger.post(
        {
          commandId: `lever-order:${p.id}`,
          refType: 'lever',
          refId: p.id,
          actor: `user:${userId}`,
          movements: [user(userId, LedgerCode.Freeze, total.negated(), total)],
        },
        m,
      );
    }
    return p;
  }

  private checkTpSl(side: 'long' | 'short', reference: string, tp: string, sl: string): void {
    const ok = side === 'long' ? money(tp).gt(reference) && money(sl).lt(reference) : money(tp).lt(reference) && money(sl).gt(reference);
    if (!ok)
      throw new BusinessError(ErrorCode.LEVER_TPSL_SIDE, side === 'long' ? 'error.tpsl_side_long' : 'error.tpsl_side_short', { price: moneyString(reference) });
  }

  /** Margin into frozen (20) and the fee to the exchange (21); a filled limit order first releases its freeze (902). */
  private async postOpen(m: EntityManager, p: LeverPosition, fromFreeze: boolean): Promise<void> {
    const margin = money(p.margin);
    const fee = money(p.fee);
    const movements: Movement[] = [];
    if (fromFreeze) movements.push(user(p.userId, LedgerCode.Unfreeze, margin.plus(fee), margin.plus(fee).negated()));
    movements.push(user(p.userId, LedgerCode.LeverageDeduction, margin.negated(), margin));
    if (fee.gt(0)) {
      movements.push(user(p.userId, LedgerCode.LeverageFee, fee.negated()));
      movements.push({
        ownerType: 'system',
        ownerId: SYSTEM_OWNER_ID,
        accountType: 'fees',
        currencyId: USDT_ID,
        code: LedgerCode.LeverageFee,
        available: moneyString(fee),
      });
    }
    await this.ledger.post(
      { commandId: `lever-open:${p.id}`, refType: 'lever', refId: p.id, actor: fromFreeze ? 'system:lever-watch' : `user:${p.userId}`, movements },
      m,
    );
  }

  async list(userId: number, q: LeverListDto): Promise<Page<ReturnType<LeverService['view']>>> {
    const [rows, total] = await this.dataSource
      .getRepository(LeverPosition)
      .findAndCount({ where: { userId, status: q.status }, order: { id: 'DESC' }, skip: (q.page - 1) * q.limit, take: q.limit });
    const marks = new Map<number, string | undefined>();
    for (const id of new Set(rows.map((r) => r.marketId))) marks.set(id, (await this.marks.latestRecorded(id))?.price);
    const kept = await this.keptPrices(rows);
    return {
      items: rows.map((p) => this.view(p, this.registry.symbolOf(p.marketId), marks.get(p.marketId), kept)),
      total,
      page: q.page,
      limit: q.limit,
    };
  }

  /**
   * lever/close (confirmed in the app): at the price now. The close is kept on the position first
   * (`trigger_tick_id`, reason `user`: a watcher run meanwhile then fires nothing on a later tick),
   * then settled; one the treasury cannot pay stays kept (as the watcher keeps a take profit it
   * cannot pay) and settles at that price once it can (settleTriggered, or the user asking again):
   * the user no longer bears the market's moves while waiting for the house. 2417 says so, with the
   * price kept.
   */
  async close(userId: number, id: string) {
    let p = await this.own(userId, id);
    const symbol = () => this.registry.symbolOf(p.marketId);
    if (p.status === 'pending') {
      // One a tick the watcher has not reached yet crossed opens on it first, as the watcher will open
      // it (and as a cancel finds it), and is then closed as any position.
      const caught = await this.overtake(p, await this.marks.newestTickId(p.marketId));
      if (caught.closed) return this.view(caught.closed, symbol(), caught.closed.closePrice!);
      p = caught.position;
      // A limit order not opened yet has nothing to close: it is cancelled (not "already closed").
      if (p.status === 'pending') throw new BusinessError(ErrorCode.POSITION_CLOSED, 'error.lever_order_pending');
    }
    // Three rounds at most: a close that lost to the watcher keeping a trigger (below) settles that trigger.
    for (let attempt = 0; attempt < 3 && p.status === 'holding'; attempt++) {
      // A close kept already (a trigger that fired, or one asked for) settles at its own tick: the
      // user asking to close does not undo it, and it needs no price now.
      let tick = p.triggerTickId ? await this.marks.byId(p.triggerTickId) : undefined;
      if (!tick) {
        const now = await this.marks.now(this.loaded(p));
        // Nor does it undo a trigger on a tick up to the price now that the watcher has not reached yet.
        const caught = await this.overtake(p, now.id);
        if (caught.closed) return this.view(caught.closed, symbol(), caught.closed.closePrice!);
        p = caught.position;
        if (p.status !== 'holding' || p.triggerTickId) continue; // closed meanwhile (2414), or a trigger kept to settle (above)
        if (!(await this.keep(p, now, 'user', false))) {
          p = await this.own(userId, id); // the watcher kept a trigger (or closed it) meanwhile: the next round settles that
          if (p.status === 'closed' && p.closeTickId === now.id) return this.view(p, symbol(), p.closePrice!); // at this very tick
          continue;
        }
        p = { ...p, triggerTickId: now.id, triggerReason: 'user' };
        tick = now;
      }
      const at = tick;
      const closed = await this.closeAt(p, at, p.triggerReason!).catch((err: unknown) => {
        // Kept, not settled: shown as closing (a failed write settles on the watcher's next run, 2417 once the house can pay).
        this.bus.emit('position', p.userId);
        if (!(err instanceof BusinessError && err.code === ErrorCode.LEVER_HOUSE_SHORT)) throw err;
        throw new BusinessError(ErrorCode.LEVER_HOUSE_SHORT, undefined, { price: moneyString(at.price) });
      });
      if (closed) return this.view(closed, symbol(), at.price);
      p = await this.own(userId, id);
      // Settled meanwhile at this very tick (the watcher's settleTriggered): that is this close.
      if (p.status === 'closed' && p.closeTickId === at.id) return this.view(p, symbol(), p.closePrice!);
    }
    throw new BusinessError(ErrorCode.POSITION_CLOSED);
  }

  async setTpSl(userId: number, dto: LeverTpSlDto) {
    const open = (x: LeverPosition) => (x.status === 'holding' || x.status === 'pending') && !x.triggerTickId;
    let p = await this.own(userId, dto.id);
    // A trigger that already fired (waiting to settle) is not undone by new levels.
    if (!open(p)) throw new BusinessError(ErrorCode.POSITION_CLOSED);
    const market = this.loaded(p);
    for (let attempt = 1; ; attempt++) {
      // One tick for the whole change: the new levels are checked against its price (a holding
      // position) and count from the ticks after it (`tpsl_tick_id`). Before, the levels were checked
      // against a later tick than the one they counted from, so a tick in between that the check
      // would have refused them on could fire them.
      const tick = p.status === 'holding' ? await this.marks.fresh(market) : undefined;
      const upTo = tick?.id ?? (await this.marks.newestTickId(p.marketId));
      // Nor is a trigger (or a limit order's fill) on a tick up to it that the watcher has not reached
      // yet undone: the levels in force until now apply to those ticks, the new ones only after them.
      const before = p.status;
      p = (await this.overtake(p, upTo)).position;
      if (!open(p)) throw new BusinessError(ErrorCode.POSITION_CLOSED);
      // A pending order that opened there: its new levels are checked against a tick's price (again).
      if (p.status !== before) continue;
      const reference = tick ? tick.price : p.targetPrice!;
      this.checkTpSl(p.side, reference, dto.take_profit, dto.stop_loss);
      // Under the market's watch lock until it commits (watchLock), the watcher's cursor not past
      // `upTo`: else the watcher evaluated a later tick on the old levels, and the new ones, counting
      // from before it, were never checked there. Then the change is read again on a newer tick.
      const change = async (m: EntityManager) => {
        await watchLock(m, p.marketId, true);
        const [cursor] = await m.query('SELECT tick_id::text FROM lever_cursors WHERE market_id = $1', [p.marketId]);
        if (cursor && BigInt(cursor.tick_id) > BigInt(upTo)) throw new WatcherPassed();
        return updateReturning<{ id: string }>(
          m,
          `UPDATE lever_positions SET take_profit = $2, stop_loss = $3, tpsl_tick_id = $4
            WHERE id = $1 AND status IN ('pending', 'holding') AND trigger_tick_id IS NULL RETURNING id::text`,
          [p.id, moneyString(dto.take_profit), moneyString(dto.stop_loss), upTo],
        );
      };
      try {
        const rows = await whileWatcherBusy(() => this.dataSource.transaction(change));
        if (!rows.length) throw new BusinessError(ErrorCode.POSITION_CLOSED);
      } catch (err) {
        if (!(err instanceof WatcherPassed)) throw err;
        if (attempt === 3) throw new BusinessError(ErrorCode.MARKET_BUSY);
        p = await this.own(userId, dto.id);
        if (!open(p)) throw new BusinessError(ErrorCode.POSITION_CLOSED);
        continue;
      }
      this.bus.emit('position', userId);
      return this.view({ ...p, takeProfit: dto.take_profit, stopLoss: dto.stop_loss, tpslTickId: upTo }, market.symbol, reference);
    }
  }

  /** Cancels a pending limit order: exactly its freeze is released (902). */
  async cancel(userId: number, id: string) {
    let p = await this.own(userId, id);
    // An order whose price a tick the watcher has not reached yet crossed opens on it, as the watcher
    // will open it: it is then no longer pending (2414, below).
    if (p.status === 'pending') p = (await this.overtake(p, await this.marks.newestTickId(p.marketId))).position;
    const done = await this.dataSource.transaction(async (m) => {
      const rows = await updateReturning(
        m,
        `UPDATE lever_positions SET status = 'cancelled', closed_at = now() WHERE id = $1 AND status = 'pending' RETURNING id`,
        [p.id],
      );
      if (!rows.length) return false;
      const total = money(p.margin).plus(p.fee);
      await this.ledger.post(
        {
          commandId: `lever-cancel:${p.id}`,
          refType: 'lever',
          refId: p.id,
          actor: `user:${userId}`,
          movements: [user(userId, LedgerCode.Unfreeze, total, total.negated())],
        },
        m,
      );
      return true;
    });
    if (!done) {
      // Opened before the cancel (on a tick the watcher had not reached, or by the watcher meanwhile):
      // the user holds a position with its margin frozen, which "already closed or cancelled" denied.
      const now = await this.own(userId, id);
      throw new BusinessError(ErrorCode.POSITION_CLOSED, now.status === 'holding' ? 'error.lever_order_opened' : undefined);
    }
    this.bus.emit('balance', userId);
    this.bus.emit('position', userId);
    return this.view({ ...p, status: 'cancelled' }, this.registry.symbolOf(p.marketId), undefined);
  }

  /** The position's market, which has a price only while it is loaded (a market disabled since does not: 2001). */
  private loaded(p: LeverPosition): MarketInfo {
    const market = this.registry.byIdOrUndefined(p.marketId);
    if (!market) throw new BusinessError(ErrorCode.MARKET_NOT_FOUND);
    return market;
  }

  private async own(userId: number, id: string): Promise<LeverPosition> {
    const p = await this.dataSource.getRepository(LeverPosition).findOne({ where: { id, userId } });
    if (!p) throw new BusinessError(ErrorCode.POSITION_NOT_FOUND);
    return p;
  }

  /** Opens a pending limit order on a tick that crossed its target (once: guarded update). */
  async fillAt(p: LeverPosition, tick: Tick): Promise<boolean> {
    const done = await this.dataSource.transaction(async (m) => {
      const rows = await updateReturning(
        m,
        `UPDATE lever_positions SET status = 'holding', open_price = $2, open_tick_id = $3, opened_at = $4 WHERE id = $1 AND status = 'pending' RETURNING id`,
        [p.id, moneyString(tick.price), tick.id, tick.ts],
      );
      if (!rows.length) return false;
      await this.postOpen(m, p, true);
      return true;
    });
    if (done) {
      this.bus.emit('balance', p.userId);
      this.bus.emit('position', p.userId);
    }
    return done;
  }

  /**
   * Closes a holding position on a recorded tick, once (the guarded update): the margin comes back
   * (22) and the P/L is settled with the house (30). A loss never exceeds the margin: the account
   * cannot go negative, and a gap beyond it is the house's.
   */
  async closeAt(p: LeverPosition, tick: Tick, reason: CloseReason): Promise<LeverPosition | undefined> {
    const t = terms(p);
    const margin = money(p.margin);
    const pnl = settledPnl(t, tick.price, margin);
    const closed = await this.dataSource.transaction(async (m) => {
      // A take profit or stop loss fires on the levels it was evaluated with: a change committed since
      // (lever/tpsl) wins, and the position stays open for the ticks after it. A trigger that fired
      // and waits to settle (trigger_tick_id) settles only at its own tick: a close evaluated on
      // another (an overlapping watcher run, a user's close read before it) does not replace it.
      const levels = reason === 'take_profit' || reason === 'stop_loss';
      const rows = await updateReturning(
        m,
        `UPDATE lever_positions SET status = 'closed', close_price = $2, close_tick_id = $3, close_reason = $4, closed_at = $5, pnl = $6 WHERE id = $1 AND status = 'holding'
          AND (trigger_tick_id IS NULL OR trigger_tick_id = $3)${levels ? ' AND take_profit = $7 AND stop_loss = $8 AND tpsl_tick_id IS NOT DISTINCT FROM $9' : ''} RETURNING id`,
        [p.id, moneyString(tick.price), tick.id, reason, tick.ts, moneyString(pnl), ...(levels ? [p.takeProfit, p.stopLoss, p.tpslTickId] : [])],
      );
      if (!rows.length) return undefined;
      const movements: Movement[] = [user(p.userId, LedgerCode.LeverageIncrease, margin, margin.negated())];
      if (pnl.gt(0)) movements.push(house(LedgerCode.ClosingFunds, pnl.negated()), user(p.userId, LedgerCode.ClosingFunds, pnl));
      if (pnl.lt(0)) movements.push(user(p.userId, LedgerCode.ClosingFunds, pnl), house(LedgerCode.ClosingFunds, pnl.negated()));
      await this.ledger
        .post(
          {
            commandId: `lever-close:${p.id}`,
            refType: 'lever',
            refId: p.id,
            actor: reason === 'user' ? `user:${p.userId}` : 'system:lever-watch',
            memo: `${reason} tick ${tick.id}`,
            movements,
          },
          m,
        )
        .catch((err: unknown) => {
          // The user's legs cannot fall short (the margin comes back, a loss is capped at it): the
          // treasury cannot pay the profit. Nothing changes; the position stays open.
          if (err instanceof BusinessError && err.code === ErrorCode.INSUFFICIENT_BALANCE) throw new BusinessError(ErrorCode.LEVER_HOUSE_SHORT);
          throw err;
        });
      if (reason === 'liquidation')
        await this.messages.leave(
          m,
          p.userId,
          'notice.lever_liquidated',
          { symbol: this.registry.symbolOf(p.marketId), lots: String(p.lots), price: moneyString(tick.price) },
          `lever:${p.id}`,
        );
      return {
        ...p,
        status: 'closed' as const,
        closePrice: moneyString(tick.price),
        closeTickId: tick.id,
        closeReason: reason,
        closedAt: new Date(tick.ts),
        pnl: moneyString(pnl),
      };
    });
    if (closed) {
      this.bus.emit('balance', p.userId);
      this.bus.emit('position', p.userId);
    }
    return closed;
  }

  /**
   * Evaluates one recorded tick (limit fills, then liquidation, stop loss and take profit, in that
   * order) and moves the market's cursor past it, under the market's watch lock (watchLock), so
   * no position opens on a tick before this one while it runs.
   */
  async evaluate(marketId: number, tick: Tick): Promise<{ filled: number; closed: number }> {
    return this.dataSource.transaction(async (m) => {
      await watchLock(m, marketId, false);
      const r = await this.evaluateAt(m.getRepository(LeverPosition), marketId, tick);
      await m.query(
        `INSERT INTO lever_cursors (market_id, tick_id) VALUES ($1, $2) ON CONFLICT (market_id) DO UPDATE SET tick_id = GREATEST(lever_cursors.tick_id, EXCLUDED.tick_id)`,
        [marketId, tick.id],
      );
      return r;
    });
  }

  /** `evaluate`'s rules; the positions read through `repo` (the watch lock's transaction), each fill and close in a transaction of its own. */
  private async evaluateAt(repo: Repository<LeverPosition>, marketId: number, tick: Tick): Promise<{ filled: number; closed: number }> {
    let filled = 0;
    let closed = 0;
    const pending = await repo.find({ where: { marketId, status: 'pending' } });
    for (const p of pending) {
      // A fill that fails stops the run before the watcher's cursor passes this tick (as a trigger that
      // cannot even be kept, below): the next run fills it here, not on a later tick or never.
      if (fillsOn(p, tick) && (await this.fillAt(p, tick))) filled++;
    }
    const holding = await repo.find({ where: { marketId, status: 'holding' } });
    for (const p of holding) {
      if (p.triggerTickId) continue; // fired already, waiting to settle (settleTriggered)
      const reason = triggerOn(p, tick);
      if (!reason) continue;
      const fired = await this.fire(p, tick, reason);
      if (fired.failed) this.logger.error({ err: fired.failed }, `close of #${p.id} on tick ${tick.id} failed: kept to settle at that tick`);
      if (fired.closed) closed++;
    }
    return { filled, closed };
  }

  /**
   * Closes a position on the tick its trigger fired. One that cannot settle then (the treasury short
   * of a take profit's profit, a failed write) is kept on the position (`trigger_tick_id`) to settle
   * at that tick later (settleTriggered, or a user's close), and its error is answered as `failed`.
   * If even keeping it fails, that error is thrown (it stops a watcher run before its cursor passes the tick).
   */
  private async fire(p: LeverPosition, tick: Tick, reason: CloseReason): Promise<{ closed?: LeverPosition; failed?: unknown }> {
    try {
      return { closed: await this.closeAt(p, tick, reason) };
    } catch (failed) {
      await this.keep(p, tick, reason);
      return { failed };
    }
  }

  /**
   * Keeps a close on the position, to settle at this tick (now or later: settleTriggered); false if
   * one is kept already (or it is no longer open). `announce`: push the position (shown as closing).
   */
  private async keep(p: LeverPosition, tick: Tick, reason: CloseReason, announce = true): Promise<boolean> {
    const rows = await updateReturning(
      this.dataSource.manager,
      `UPDATE lever_positions SET trigger_tick_id = $2, trigger_reason = $3 WHERE id = $1 AND status = 'holding' AND trigger_tick_id IS NULL RETURNING id`,
      [p.id, tick.id, reason],
    );
    if (rows.length && announce) this.bus.emit('position', p.userId);
    return rows.length > 0;
  }

  /**
   * A user's action on a position (close, cancel, new levels) first applies the watcher's rules to
   * it on the ticks the watcher has not evaluated yet (after its cursor), up to `upTo` (the tick the
   * action uses): a trigger that fires on one of them is not undone by the action. In order, as the
   * watcher would: a pending order opens on the first that crosses its price, then a holding position
   * closes on the first that triggers (a trigger that cannot settle is kept, as the watcher keeps it).
   * The guarded updates fire each once when the watcher reaches the same tick at the same time.
   * Answers the position as it then stands and, when this call closed it, the close.
   */
  private async overtake(p: LeverPosition, upTo: string): Promise<{ position: LeverPosition; closed?: LeverPosition }> {
    // Two steps at most (a fill, then a close); one more for a guarded update that lost to the watcher.
    for (let round = 0; round < 3 && !p.triggerTickId && (p.status === 'pending' || p.status === 'holding'); round++) {
      const tick = await this.firstTrigger(p, upTo);
      if (!tick) break;
      if (p.status === 'pending') await this.fillAt(p, tick);
      else {
        const fired = await this.fire(p, tick, triggerOn(p, tick)!);
        if (fired.closed) return { position: fired.closed, closed: fired.closed };
        if (fired.failed) this.logger.warn({ err: fired.failed }, `close of #${p.id} on tick ${tick.id} failed: kept to settle at that tick`);
      }
      p = await this.own(p.userId, p.id);
    }
    return { position: p };
  }

  /**
   * The first tick after the watcher's cursor (and after the order was placed or the position opened,
   * as the watcher counts them), up to `upTo`, on which the watcher's rules fill this pending order or
   * close this holding position.
   */
  private async firstTrigger(p: LeverPosition, upTo: string): Promise<Tick | undefined> {
    const hit = (tick: Tick) => (p.status === 'pending' ? fillsOn(p, tick) : triggerOn(p, tick) !== undefined);
    let after = (p.status === 'pending' ? p.placedTickId : p.openTickId) ?? '0';
    for (;;) {
      // GREATEST skips the cursor's null: a market the watcher never ran on counts from the order.
      const ticks: Tick[] = await this.dataSource.query(
        `SELECT id::text, price::text, ts FROM mark_prices WHERE market_id = $1 AND id <= $3
          AND id > GREATEST($2::bigint, (SELECT tick_id FROM lever_cursors WHERE market_id = $1)) ORDER BY mark_prices.id LIMIT $4`,
        [p.marketId, after, upTo, OVERTAKE_PAGE],
      );
      const first = ticks.find(hit);
      if (first || ticks.length < OVERTAKE_PAGE) return first;
      after = ticks[ticks.length - 1].id;
    }
  }

  /**
   * Settles the positions whose trigger fired but could not settle then, each at its trigger's
   * tick (the first that crossed); one that still cannot (the treasury still short) stays for the
   * next run.
   */
  async settleTriggered(): Promise<number> {
    // Oldest first: once the treasury cannot pay one profit, no later profit is paid before it (a
    // loss, which pays the house, still settles).
    const waiting = await this.dataSource
      .getRepository(LeverPosition)
      .find({ where: { status: 'holding', triggerTickId: Not(IsNull()) }, order: { triggerTickId: 'ASC' } });
    let closed = 0;
    let short: string | undefined;
    for (const p of waiting) {
      const tick = await this.marks.byId(p.triggerTickId!);
      if (!tick || (short && settledPnl(terms(p), tick.price, money(p.margin)).gt(0))) continue;
      const done = await this.closeAt(p, tick, p.triggerReason!).catch((err: unknown) => {
        if (err instanceof BusinessError && err.code === ErrorCode.LEVER_HOUSE_SHORT) short ??= p.id;
        else this.logger.warn({ err }, `#${p.id} could not settle at tick ${tick.id}`);
        return undefined;
      });
      if (done) closed++;
    }
    if (short) this.logger.debug(`the treasury cannot pay the profit of #${short} yet: it and the kept profits after it wait`);
    return closed;
  }

  /**
   * The open (pending and holding) positions of these users, every market, each valued at its
   * market's latest mark tick (the socket's `position` push).
   */
  async openViews(userIds: number[]): Promise<Map<number, Array<ReturnType<LeverService['view']>>>> {
    const rows = await this.dataSource
      .getRepository(LeverPosition)
      .find({ where: { userId: In(userIds), status: In(['pending', 'holding']) }, order: { id: 'DESC' } });
    const marks = new Map<number, string | undefined>();
    for (const id of new Set(rows.map((r) => r.marketId))) marks.set(id, this.marks.current(id)?.price ?? (await this.marks.latestRecorded(id))?.price);
    const kept = await this.keptPrices(rows);
    const out = new Map<number, Array<ReturnType<LeverService['view']>>>();
    for (const p of rows)
      out.set(p.userId, [...(out.get(p.userId) ?? []), this.view(p, this.registry.symbolOf(p.marketId), marks.get(p.marketId), kept)]);
    return out;
  }

  /** How positions that left the open list ended (for the push's `closed`). */
  async endings(ids: string[]): Promise<Array<{ id: string; symbol: string; status: string; reason: CloseReason | null; pnl: string | null }>> {
    if (!ids.length) return [];
    const rows = await this.dataSource.getRepository(LeverPosition).find({ where: { id: In(ids), status: In(['closed', 'cancelled']) } });
    return rows.map((p) => ({
      id: p.id,
      symbol: this.registry.symbolOf(p.marketId),
      status: p.status,
      reason: p.closeReason,
      pnl: p.pnl === null ? null : moneyString(p.pnl),
    }));
  }

  /** The prices of the ticks that closes kept on these positions fired on (trigger tick id → price). */
  private async keptPrices(rows: LeverPosition[]): Promise<Map<string, string>> {
    const ids = [...new Set(rows.filter((p) => p.status === 'holding' && p.triggerTickId).map((p) => p.triggerTickId!))];
    if (!ids.length) return new Map();
    const ticks: Array<{ id: string; price: string }> = await this.dataSource.query(
      'SELECT id::text, price::text FROM mark_prices WHERE id = ANY($1::bigint[])',
      [ids],
    );
    return new Map(ticks.map((x) => [x.id, x.price]));
  }

  /**
   * A position as the API answers it, valued at `mark`; one whose close is kept (waiting for the
   * treasury, `closing`) is valued at the price it settles at, from `kept` (keptPrices).
   */
  view(p: LeverPosition, symbol: string, mark: string | undefined, kept?: Map<string, string>) {
    const open = p.status === 'holding' && p.openPrice;
    const closing = open && p.triggerTickId ? kept?.get(p.triggerTickId) : undefined;
    if (closing) mark = closing;
    const t = open ? terms(p) : undefined;
    const price = open && mark ? mark : undefined;
    return {
      id: p.id,
      symbol,
      side: p.side,
      type: p.type,
      lots: p.lots,
      multiple: p.multiple,
      lot_value: moneyString(p.lotValue),
      margin: moneyString(p.margin),
      fee: moneyString(p.fee),
      status: p.status,
      target_price: p.targetPrice === null ? null : moneyString(p.targetPrice),
      open_price: p.openPrice === null ? null : moneyString(p.openPrice),
      open_tick_id: p.openTickId,
      current_price: p.status === 'closed' ? moneyString(p.closePrice!) : mark ? moneyString(mark) : null,
      take_profit: moneyString(p.takeProfit),
      stop_loss: moneyString(p.stopLoss),
      pnl: p.status === 'closed' ? moneyString(p.pnl!) : t && price ? moneyString(closing ? settledPnl(t, price, money(p.margin)) : pnlAt(t, price)) : null,
      /** equity / margin, in percent (truncated). */
      risk_rate: t && price ? equityAt(t, price).div(p.margin).times(100).toDecimalPlaces(2, 1).toString() : null,
      maintenance_margin: t ? moneyString(maintenanceOf(t)) : null,
      liquidation_price: t ? moneyString(liquidationPrice(t)) : null,
      close_price: p.closePrice === null ? null : moneyString(p.closePrice),
      close_tick_id: p.closeTickId,
      close_reason: p.closeReason,
      /** A close that fired (or that the user asked for) but waits for the treasury to pay it: it settles at this price. */
      closing: open && p.triggerTickId ? { reason: p.triggerReason, price: closing ? moneyString(closing) : null, tick_id: p.triggerTickId } : null,
      opened_at: p.openedAt ? new Date(p.openedAt).toISOString() : null,
      closed_at: p.closedAt ? new Date(p.closedAt).toISOString() : null,
      created_at: new Date(p.createdAt ?? Date.now()).toISOString(),
    };
  }
}
