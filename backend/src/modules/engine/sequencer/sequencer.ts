import { createHash } from 'node:crypto';
import { BookSnapshot, Command, createMarket, EngineEvent, EventCollector, FastBook, IdMap, OrderBook, TradeEvent } from '@kestrel/matching-engine';
import { UNIT, units, unitsTimes } from '../../../infra/money';
import { accountKey, Balance, BalanceStore, Delta, FastBalances, ownedBySequencer, userCoin } from './balances';
import type {
  AppliedLeg,
  AppliedPosting,
  CancelCmd,
  Leg,
  MarketParams,
  OrderState,
  PlaceCmd,
  PostCmd,
  SeqCode,
  SeqCommand,
  SeqOutcome,
  TradeRecord,
} from './commands';

/** Ledger codes the sequencer writes itself (the spec's 600/601/602 and our 901/902). */
const CODE = { tradeDeduction: 600, tradeFee: 601, tradeIncrease: 602, freeze: 901, unfreeze: 902 } as const;
/** Fees are truncated to this many decimals (DESIGN §1.3); the exchange bears the remainder. */
export const FEE_DECIMALS = 8;
/** Outside (database) accounts that a posting may debit: they are credited for it beforehand, by construction. */
const DEBITABLE_OUTSIDE = new Set(['external', 'transit']);
const DECIMAL = /^-?\d{1,18}(\.\d{1,18})?$/;
/** The widths of the ledger's columns a posting's texts go to (ledger_entries, Init migration), in characters. */
const REF_TYPE_MAX = 32;
const REF_ID_MAX = 64;
const ACCOUNT_TYPE_MAX = 16;

const spotFeeKeys = new Map<number, string>();
/** The house's spot-fee account of a currency (its key built once: it is met on every trade). */
export const SPOT_FEE_ACCOUNT = (currencyId: number): string => {
  let key = spotFeeKeys.get(currencyId);
  if (key === undefined) spotFeeKeys.set(currencyId, (key = accountKey({ ownerType: 'system', ownerId: 0, accountType: 'spot-fee', currencyId })));
  return key;
};

/** Idempotency window (DESIGN §1.4): a client order id or command id is remembered this long, or until this many newer ones. */
export interface DedupOptions {
  windowMs: number;
  max: number;
}
export const DEFAULT_DEDUP: DedupOptions = { windowMs: 24 * 3600_000, max: 1_000_000 };

interface Remembered {
  ts: number;
  code: SeqCode;
  orderId?: number;
}

interface MarketRuntime {
  params: MarketParams;
  /** Ledger units per lot (base) and per tick × lot (quote). */
  lotUnits: bigint;
  quoteUnit: bigint;
  makerRate: bigint;
  takerRate: bigint;
  book: OrderBook;
  sink: EventCollector;
  lastTradePrice?: number;
  /** `unitsKey` of its tick and lot: what a place's `units` must be when it names them. */
  unitsKey: string;
}

/** The whole state, JSON-safe (bigints as strings): what a snapshot stores and the replay hash covers. */
export interface SequencerSnapshot {
  v: 1;
  seq: number;
  ts: number;
  nextOrderId: number;
  markets: MarketParams[];
  books: Array<[number, BookSnapshot]>;
  lastTradePrices: Array<[number, number]>;
  orders: Array<Omit<OrderState, 'frozenLeft' | 'filledQty' | 'filledQuote' | 'fee'> & { frozenLeft: string; filledQty: string; filledQuote: string; fee: string }>;
  balances: Array<[string, string, string]>;
  dedup: Array<[string, number, SeqCode, number | null]>;
}

/**
 * The single writer of the trade accounts (DESIGN §4/§6, exchange-core's risk engine + matching
 * engine in one pure object): commands in, outcomes out, no I/O, no clock, no randomness. It
 * holds every spot book, every balance of the accounts it owns (user `coin`, house `spot-fee`
 * and `desk`) and every live order's frozen funds; it checks and freezes before matching and
 * settles each trade in memory. Order ids, trade ids and timestamps come from its own counters
 * and the batch time it is given, so the same journal always gives the same state.
 */
export class Sequencer {
  /** Journal sequence of the last batch applied. */
  seq = 0;
  private ts = 0;
  private nextOrderId = 1;
  private readonly markets = new Map<number, MarketRuntime>();
  /** Live orders by id (an IdMap: they churn at the order rate, see matching-engine/src/id-map.ts). */
  private readonly live = new IdMap<OrderState>();
  private readonly dedup = new Map<string, Remembered>();
  /**
   * Whether outcomes carry the ledger postings. Only the projection replica's copy writes the
   * ledger; the host's copy answers and pushes, so it turns them off and skips building ~8 legs
   * per trade. The state (books, balances, counters, the replay hash) is the same either way.
   */
  postings = true;
  /**
   * The balance changes of a freeze, a release or a trade, written into reused objects (the store
   * reads them during `apply` and keeps nothing): `changes[n]` is a list of the first n of them.
   */
  private readonly changes: MutableDelta[][];

  constructor(
    private readonly balances: BalanceStore = new FastBalances(),
    private readonly dedupOptions: DedupOptions = DEFAULT_DEDUP,
    firstOrderId = 1,
  ) {
    this.nextOrderId = firstOrderId;
    const cells = Array.from({ length: 6 }, (): MutableDelta => ({ key: '', available: 0n, frozen: 0n }));
    this.changes = Array.from({ length: 7 }, (_, n) => cells.slice(0, n));
  }

  /** Fills reused change `i`; the caller then applies `this.changes[n]`, the first n. */
  private change(i: number, key: string, available: bigint, frozen: bigint): void {
    const d = this.changes[6][i];
    d.key = key;
    d.available = available;
    d.frozen = frozen;
  }

  /** Starts the next journaled batch: its sequence number and time (given, never read from a clock). */
  beginBatch(seq: number, ts: number): void {
    this.seq = seq;
    this.ts = Math.max(ts, this.ts);
    const oldest = this.ts - this.dedupOptions.windowMs;
    for (const [k, r] of this.dedup) {
      if (r.ts >= oldest && this.dedup.size <= this.dedupOptions.max) break;
      this.dedup.delete(k);
    }
  }

  apply(cmd: SeqCommand): SeqOutcome {
    switch (cmd.t) {
      case 'place':
        return this.place(cmd);
      case 'cancel':
        return this.cancel(cmd);
      case 'post':
        return this.post(cmd);
      case 'market':
        return this.configure(cmd.market, cmd.v ?? 1);
    }
  }

  // ---- queries (the host's read side of memory) -------------------------------------------------

  balance(key: string): Balance {
    return this.balances.get(key);
  }

  coinBalance(userId: number, currencyId: number): Balance {
    return this.balances.get(userCoin(userId, currencyId));
  }

  book(marketId: number): OrderBook | undefined {
    return this.markets.get(marketId)?.book;
  }

  lastTradePrice(marketId: number): number | undefined {
    return this.markets.get(marketId)?.lastTradePrice;
  }

  market(marketId: number): MarketParams | undefined {
    return this.markets.get(marketId)?.params;
  }

  /** A live (resting) order, if any. */
  order(orderId: number): OrderState | undefined {
    const o = this.live.get(orderId);
    return o && { ...o };
  }

  get liveOrders(): number {
    return this.live.size;
  }

  // ---- commands ---------------------------------------------------------------------------------

  /** `v`: the market command's version (`MarketCmd.v`; 1 without one): the rules it was journaled under. */
  private configure(p: MarketParams, v = 1): SeqOutcome {
    const u = marketUnits(p);
    if (!u) return empty('INVALID_ORDER');
    const { lotUnits, quoteUnit, makerRate, takerRate } = u;
    const cur = this.markets.get(p.id);
    if (cur) {
      // Fees may change; the units of a book with orders in it may not.
      if (cur.lotUnits !== lotUnits || cur.quoteUnit !== quoteUnit || cur.params.baseId !== p.baseId || cur.params.quoteId !== p.quoteId) {
        if (cur.book.orderCount > 0) return empty('INVALID_ORDER');
      }
      // The last trade price is kept in ticks: a new tick size re-expresses it exactly (read in the new
      // ticks, 1.5 at a tick of 0.01 became 15 at 0.1: a mark price that never traded, on which options
      // deliver and contracts liquidate). When no whole number of new ticks is that price, the market
      // has no last price until its next trade (no price rather than a price that never traded).
      let lastTradePrice = cur.lastTradePrice;
      const oldTick = units(cur.params.tickSize);
      const newTick = units(p.tickSize);
      // Another pair (v3): the old pair's last price is no price of this one (the mark price would
      // record it as the new pair's); none until its first trade.
      if (v >= 3 && (cur.params.baseId !== p.baseId || cur.params.quoteId !== p.quoteId)) lastTradePrice = undefined;
      else if (v >= 2 && lastTradePrice !== undefined && oldTick !== newTick) {
        const price = oldTick * BigInt(lastTradePrice);
        const ticks = price / newTick;
        lastTradePrice = price % newTick === 0n && ticks <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(ticks) : undefined;
      }
      Object.assign(cur, { params: p, lotUnits, quoteUnit, makerRate, takerRate, lastTradePrice, unitsKey: unitsKey(p.tickSize, p.lotSize) });
      return empty('OK');
    }
    const sink = new EventCollector();
    this.markets.set(p.id, { params: p, lotUnits, quoteUnit, makerRate, takerRate, sink, book: new FastBook(sink), unitsKey: unitsKey(p.tickSize, p.lotSize) });
    return empty('OK');
  }

  private place(cmd: PlaceCmd): SeqOutcome {
    const m = this.markets.get(cmd.marketId);
    if (!m) return empty('MARKET_UNKNOWN');
    // Converted with other units than the market's (an api process's registry not reloaded yet): its
    // ticks would be read at another price. Nothing happens (not remembered either: the retry, converted
    // again, is a new attempt). A pure function of the command and the market: a replay refuses it again.
    if (cmd.units !== undefined && cmd.units !== m.unitsKey) return { ...empty('UNITS_CHANGED'), market: m.params };
    const dedupKey = cmd.clientOrderId ? `o:${cmd.userId}:${cmd.clientOrderId}` : cmd.requestId ? `r:${cmd.requestId}` : undefined;
    if (dedupKey) {
      const prior = this.dedup.get(dedupKey);
      // The user is named, so a caller in another process waits for this batch (after the first's)
      // before reading the first's order from the read tables.
      if (prior)
        return {
          ...empty(prior.code),
          users: [cmd.userId],
          duplicate: true,
          orderId: prior.orderId,
          order: prior.orderId ? this.order(prior.orderId) : undefined,
        };
    }
    // After the dedup lookup: a late copy of a place that its retry placed answers that order. The
    // batch's time decides, so a replay refuses the same; not remembered (the retry is a new attempt).
    if (cmd.notAfter !== undefined && this.ts > cmd.notAfter) return empty('EXPIRED');
    const freeze = this.freezeOf(cmd, m);
    if (freeze === undefined) return empty('INVALID_ORDER');
    const [currency, amount] = freeze;
    const key = userCoin(cmd.userId, currency);
    this.change(0, key, -amount, amount);
    if (!this.balances.apply(this.changes[1])) return empty(cmd.side === 'sell' ? 'SELLABLE_INSUFFICIENT' : 'INSUFFICIENT_BALANCE');

    const id = this.nextOrderId++;
    const order: OrderState = {
      id,
      userId: cmd.userId,
      marketId: m.params.id,
      side: cmd.side,
      type: cmd.type,
      price: cmd.price,
      qty: cmd.qty,
      quoteBudget: cmd.quoteBudget,
      clientOrderId: cmd.clientOrderId ?? null,
      createdTs: this.ts,
      updatedTs: this.ts,
      frozenCurrency: currency,
      frozenLeft: amount,
      filledQty: 0n,
      filledQuote: 0n,
      fee: 0n,
      status: 'waiting',
    };
    this.live.set(id, order);
    if (dedupKey) this.dedup.set(dedupKey, { ts: this.ts, code: 'OK', orderId: id });
    const out = new Out();
    if (this.postings) out.posting({ refType: 'order', refId: String(id), actor: `user:${cmd.userId}`, memo: '', legs: [this.coinLeg(cmd.userId, currency, CODE.freeze, -amount, amount)] });
    out.touch(order);
    m.book.process(this.engineCommand(cmd, id));
    this.settle(m, m.sink.drain(), out);
    return out.result('OK', id, m.params.id, true);
  }

  private cancel(cmd: CancelCmd): SeqOutcome {
    const order = this.live.get(cmd.orderId);
    if (!order || order.userId !== cmd.userId) return empty('ORDER_NOT_FOUND');
    const m = this.markets.get(order.marketId)!;
    const out = new Out();
    m.book.process({ type: 'cancel', id: order.id, ts: this.ts });
    this.settle(m, m.sink.drain(), out);
    return out.result('OK', order.id, m.params.id);
  }

  private post(cmd: PostCmd): SeqOutcome {
    const dedupKey = `c:${cmd.commandId}`;
    const prior = this.dedup.get(dedupKey);
    if (prior) return { ...empty(prior.code), users: postingUsers(cmd), duplicate: true };
    // The batch's time, journaled with it: a replay refuses the same commands.
    if (cmd.notAfter !== undefined && this.ts > cmd.notAfter) return this.remember(dedupKey, 'EXPIRED');
    const code = this.checkPosting(cmd);
    if (code !== 'OK') return this.remember(dedupKey, code);
    const owned: Delta[] = [];
    for (const l of cmd.legs) if (ownedBySequencer(l)) owned.push({ key: accountKey(l), available: amountOf(l.available), frozen: amountOf(l.frozen) });
    if (!this.balances.apply(owned)) return this.remember(dedupKey, 'INSUFFICIENT_BALANCE');
    this.dedup.set(dedupKey, { ts: this.ts, code: 'OK' });
    const out = new Out();
    for (const u of postingUsers(cmd)) out.user(u);
    if (!this.postings) return out.result('OK');
    const after = new Map(owned.map((d) => [d.key, this.balances.get(d.key)]));
    const legs = withRunning(
      cmd.legs.map((l) => ({ ...keyOf(l), code: l.code, available: amountOf(l.available), frozen: amountOf(l.frozen) })),
      after,
    );
    out.posting({ refType: cmd.refType, refId: cmd.refId, actor: cmd.actor, memo: cmd.memo ?? '', reason: cmd.reason, commandId: cmd.commandId, legs });
    return out.result('OK');
  }

  private remember(key: string, code: SeqCode): SeqOutcome {
    this.dedup.set(key, { ts: this.ts, code });
    return empty(code);
  }

  /**
   * Texts the ledger can store (a command it cannot would stop the projection for good, on every
   * replay: refusing it on replay changes no projected state), balanced per currency, well-formed
   * amounts, and only debits the sequencer can guarantee.
   */
  private checkPosting(cmd: PostCmd): SeqCode {
    const { legs } = cmd;
    // The memo is cut to its column's 200 characters by the projector, so only a NUL is refused in it.
    if (!fits(cmd.refType, REF_TYPE_MAX) || !fits(cmd.refId, REF_ID_MAX) || !fits(cmd.memo ?? '') || !fits(cmd.commandId)) return 'UNSTORABLE';
    // A command comes from the journal's JSON too: legs that are not a list of objects are refused
    // (a throw here would stop every replay of that row, for good).
    if (!Array.isArray(legs) || !legs.length || legs.some((l) => typeof l !== 'object' || l === null)) return 'UNBALANCED';
    const sums = new Map<number, bigint>();
    for (const l of legs) {
      if (!fits(l.accountType, ACCOUNT_TYPE_MAX)) return 'UNSTORABLE';
      for (const v of [l.available ?? '0', l.frozen ?? '0']) if (!DECIMAL.test(v)) return 'UNBALANCED';
      const d = amountOf(l.available) + amountOf(l.frozen);
      sums.set(l.currencyId, (sums.get(l.currencyId) ?? 0n) + d);
      if (!ownedBySequencer(l) && !DEBITABLE_OUTSIDE.has(l.accountType) && (amountOf(l.available) < 0n || amountOf(l.frozen) < 0n)) return 'UNOWNED_DEBIT';
    }
    for (const s of sums.values()) if (s !== 0n) return 'UNBALANCED';
    return 'OK';
  }

  // ---- matching and settlement in memory --------------------------------------------------------

  private freezeOf(cmd: PlaceCmd, m: MarketRuntime): [number, bigint] | undefined {
    const { price, qty, quoteBudget } = cmd;
    if (![price, qty, quoteBudget].every((n) => Number.isSafeInteger(n) && n >= 0)) return undefined;
    if (cmd.type === 'limit' && (price < 1 || qty < 1)) return undefined;
    if (cmd.side === 'sell') return qty >= 1 ? [m.params.baseId, BigInt(qty) * m.lotUnits] : undefined;
    if (cmd.type === 'market' && qty === 0) return quoteBudget >= 1 ? [m.params.quoteId, BigInt(quoteBudget) * m.quoteUnit] : undefined;
    // A buy by quantity needs a price (a market buy's worst price) to know what to freeze.
    if (price < 1 || qty < 1) return undefined;
    return [m.params.quoteId, BigInt(price) * BigInt(qty) * m.quoteUnit];
  }

  private engineCommand(cmd: PlaceCmd, id: number): Command {
    const limit = cmd.type === 'limit';
    return {
      type: 'place',
      id,
      owner: cmd.userId,
      side: cmd.side,
      kind: cmd.type,
      price: limit ? cmd.price : undefined,
      qty: cmd.qty || undefined,
      quoteBudget: cmd.quoteBudget || undefined,
      worstPrice: !limit && cmd.price ? cmd.price : undefined,
      tif: limit ? 'GTC' : 'IOC',
      // Self-trade prevention for every account: an incoming order removes the owner's own resting order.
      stp: 'cancel-maker',
      ts: this.ts,
    } as Command;
  }

  private settle(m: MarketRuntime, events: EngineEvent[], out: Out): void {
    for (const e of events) {
      if (e.type === 'trade') this.trade(m, e, out);
      const closing = closingOf(e);
      if (closing) this.close(m, closing[0], closing[1], out);
    }
  }

  /** Codes 600 (from frozen), 602 (received) and 601 (fee, to the house's spot-fee account); buyer pays in base, seller in quote. */
  private trade(m: MarketRuntime, t: TradeEvent, out: Out): void {
    m.lastTradePrice = t.price;
    const lots = BigInt(t.qty);
    const qty = lots * m.lotUnits;
    const quote = BigInt(t.price) * lots * m.quoteUnit;
    const buyerRate = t.takerSide === 'buy' ? m.takerRate : m.makerRate;
    const sellerRate = t.takerSide === 'buy' ? m.makerRate : m.takerRate;
    const buyerFee = unitsTimes(qty, buyerRate, FEE_DECIMALS);
    const sellerFee = unitsTimes(quote, sellerRate, FEE_DECIMALS);
    const buyerOrder = this.live.get(t.takerSide === 'buy' ? t.takerId : t.makerId)!;
    const sellerOrder = this.live.get(t.takerSide === 'buy' ? t.makerId : t.takerId)!;
    const B = m.params.baseId;
    const Q = m.params.quoteId;
    const bq = userCoin(buyerOrder.userId, Q);
    const bb = userCoin(buyerOrder.userId, B);
    const sb = userCoin(sellerOrder.userId, B);
    const sq = userCoin(sellerOrder.userId, Q);
    this.change(0, bq, 0n, -quote);
    this.change(1, bb, qty - buyerFee, 0n);
    this.change(2, sb, 0n, -qty);
    this.change(3, sq, quote - sellerFee, 0n);
    let n = 4;
    if (buyerFee) this.change(n++, SPOT_FEE_ACCOUNT(B), buyerFee, 0n);
    if (sellerFee) this.change(n++, SPOT_FEE_ACCOUNT(Q), sellerFee, 0n);
    // Frozen funds cover every fill by construction; a refusal here is a broken invariant.
    if (!this.balances.apply(this.changes[n])) throw new Error(`sequencer invariant: trade ${m.params.id}:${t.tradeId} not covered by frozen funds`);
    buyerOrder.frozenLeft -= quote;
    sellerOrder.frozenLeft -= qty;
    this.filled(buyerOrder, qty, quote, buyerFee, out);
    this.filled(sellerOrder, qty, quote, sellerFee, out);
    if (this.postings) this.tradePosting(m, t, out, { keys: [bq, bb, sb, sq], buyer: buyerOrder.userId, seller: sellerOrder.userId, qty, quote, buyerFee, sellerFee });
    const makerFee = t.takerSide === 'buy' ? sellerFee : buyerFee;
    const takerFee = t.takerSide === 'buy' ? buyerFee : sellerFee;
    out.trade({
      marketId: m.params.id,
      tradeId: t.tradeId,
      price: t.price,
      lots: t.qty,
      qty,
      quote,
      takerSide: t.takerSide,
      makerOrderId: t.makerId,
      takerOrderId: t.takerId,
      makerUserId: t.makerOwner,
      takerUserId: t.takerOwner,
      makerFee,
      takerFee,
      ts: this.ts,
    });
  }

  private filled(o: OrderState, qty: bigint, quote: bigint, fee: bigint, out: Out): void {
    o.filledQty += qty;
    o.filledQuote += quote;
    o.fee += fee;
    o.updatedTs = this.ts;
    out.touch(o);
  }

  /** The trade's ledger posting (600, 602, and 601 to the house), each leg with its account's balance after it. */
  private tradePosting(m: MarketRuntime, t: TradeEvent, out: Out, f: { keys: string[]; buyer: number; seller: number; qty: bigint; quote: bigint; buyerFee: bigint; sellerFee: bigint }): void {
    const { keys, buyer, seller, qty, quote, buyerFee, sellerFee } = f;
    const B = m.params.baseId;
    const Q = m.params.quoteId;
    // Each leg with its account's balance after it. The four accounts are distinct (self-trade
    // prevention: a buyer never meets their own sell); a fee leg comes after its account's 602 leg.
    const [bqA, bbA, sbA, sqA] = keys.map((k) => this.balances.get(k));
    const userLeg = (userId: number, currencyId: number, code: number, available: bigint, frozen: bigint, after: Balance, laterAvailable = 0n): AppliedLeg => ({
      ownerType: 'user',
      ownerId: userId,
      accountType: 'coin',
      currencyId,
      code,
      available,
      frozen,
      availableAfter: after.available + laterAvailable,
      frozenAfter: after.frozen,
    });
    const legs: AppliedLeg[] = [
      userLeg(buyer, Q, CODE.tradeDeduction, 0n, -quote, bqA),
      userLeg(buyer, B, CODE.tradeIncrease, qty, 0n, bbA, buyerFee),
      userLeg(seller, B, CODE.tradeDeduction, 0n, -qty, sbA),
      userLeg(seller, Q, CODE.tradeIncrease, quote, 0n, sqA, sellerFee),
    ];
    const house = (currencyId: number, fee: bigint): AppliedLeg => {
      const after = this.balances.get(SPOT_FEE_ACCOUNT(currencyId));
      return { ownerType: 'system', ownerId: 0, accountType: 'spot-fee', currencyId, code: CODE.tradeFee, available: fee, frozen: 0n, availableAfter: after.available, frozenAfter: after.frozen };
    };
    if (buyerFee) legs.push(userLeg(buyer, B, CODE.tradeFee, -buyerFee, 0n, bbA), house(B, buyerFee));
    if (sellerFee) legs.push(userLeg(seller, Q, CODE.tradeFee, -sellerFee, 0n, sqA), house(Q, sellerFee));
    out.posting({ refType: 'trade', refId: `${m.params.id}:${t.tradeId}`, actor: 'engine', memo: '', legs });
  }

  /** An order left the book: what is still frozen for it goes back to available (902). */
  private close(m: MarketRuntime, id: number, status: 'completed' | 'cancelled', out: Out): void {
    const o = this.live.get(id);
    if (!o) return;
    this.live.delete(id);
    o.status = status;
    o.updatedTs = this.ts;
    out.touch(o);
    out.book = m.params.id;
    if (o.frozenLeft === 0n) return;
    const key = userCoin(o.userId, o.frozenCurrency);
    const left = o.frozenLeft;
    this.change(0, key, left, -left);
    if (!this.balances.apply(this.changes[1])) throw new Error(`sequencer invariant: order ${id} release not covered`);
    o.frozenLeft = 0n;
    if (this.postings) out.posting({ refType: 'order', refId: String(id), actor: 'engine', memo: '', legs: [this.coinLeg(o.userId, o.frozenCurrency, CODE.unfreeze, left, -left)] });
  }

  /** A trade-account leg, already applied. */
  private coinLeg(userId: number, currencyId: number, code: number, available: bigint, frozen: bigint): AppliedLeg {
    const after = this.balances.get(userCoin(userId, currencyId));
    return { ownerType: 'user', ownerId: userId, accountType: 'coin', currencyId, code, available, frozen, availableAfter: after.available, frozenAfter: after.frozen };
  }

  // ---- snapshots and the replay hash ------------------------------------------------------------

  /**
   * The whole state as plain JSON-safe data, canonical by construction: every object is written
   * with its keys in sorted order and every list in a fixed order, so equal states give equal JSON
   * text however they were reached (applied, or restored from a stored snapshot). That text is what
   * is stored and hashed (`stateHash`), with no sorting pass over a state of megabytes.
   */
  snapshot(): SequencerSnapshot {
    const markets = [...this.markets.values()].sort((a, b) => a.params.id - b.params.id);
    return {
      balances: this.balances.entries().map(([k, b]) => [k, String(b.available), String(b.frozen)]),
      books: markets.map((m) => [m.params.id, canonicalBook(m.book.snapshot())]),
      dedup: [...this.dedup.entries()].map(([k, r]) => [k, r.ts, r.code, r.orderId ?? null]),
      lastTradePrices: markets.filter((m) => m.lastTradePrice !== undefined).map((m): [number, number] => [m.params.id, m.lastTradePrice!]),
      markets: markets.map(({ params: p }) => ({
        baseId: p.baseId,
        id: p.id,
        lotSize: p.lotSize,
        makerFee: p.makerFee,
        quoteId: p.quoteId,
        symbol: p.symbol,
        takerFee: p.takerFee,
        tickSize: p.tickSize,
      })),
      nextOrderId: this.nextOrderId,
      orders: [...this.live.values()]
        .sort((a, b) => a.id - b.id)
        .map((o) => ({
          clientOrderId: o.clientOrderId,
          createdTs: o.createdTs,
          fee: String(o.fee),
          filledQty: String(o.filledQty),
          filledQuote: String(o.filledQuote),
          frozenCurrency: o.frozenCurrency,
          frozenLeft: String(o.frozenLeft),
          id: o.id,
          marketId: o.marketId,
          price: o.price,
          qty: o.qty,
          quoteBudget: o.quoteBudget,
          side: o.side,
          status: o.status,
          type: o.type,
          updatedTs: o.updatedTs,
          userId: o.userId,
        })),
      seq: this.seq,
      ts: this.ts,
      v: 1,
    };
  }

  static restore(s: SequencerSnapshot, store?: (initial: Array<[string, Balance]>) => BalanceStore, dedup: DedupOptions = DEFAULT_DEDUP): Sequencer {
    // Another format (a newer build's) is refused, not read as this one: recovery stops with the reason.
    if (s.v !== 1) throw new Error(`sequencer snapshot of batch ${s.seq} has format v${String(s.v)}; this build reads v1`);
    const initial = s.balances.map(([k, a, f]): [string, Balance] => [k, { available: BigInt(a), frozen: BigInt(f) }]);
    const seq = new Sequencer(store ? store(initial) : new FastBalances(initial), dedup, s.nextOrderId);
    seq.seq = s.seq;
    seq.ts = s.ts;
    for (const p of s.markets) seq.configure(p);
    for (const [id, book] of s.books) seq.markets.get(id)?.book.restore(book);
    for (const [id, price] of s.lastTradePrices) {
      const m = seq.markets.get(id);
      if (m) m.lastTradePrice = price;
    }
    for (const o of s.orders)
      seq.live.set(o.id, { ...o, frozenLeft: BigInt(o.frozenLeft), filledQty: BigInt(o.filledQty), filledQuote: BigInt(o.filledQuote), fee: BigInt(o.fee) });
    for (const [k, ts, code, orderId] of s.dedup) seq.dedup.set(k, { ts, code, orderId: orderId ?? undefined });
    return seq;
  }

  /** SHA-256 of the canonical snapshot: books, balances, orders, counters and the idempotency window. */
  hash(): string {
    return stateHash(this.snapshot());
  }
}

/**
 * The replay hash of a snapshot: SHA-256 of its canonical JSON (`Sequencer.snapshot()`'s text:
 * keys sorted, lists in a fixed order). `text`: that JSON, when the caller has it already (the
 * snapshotter stores the same text).
 */
export function stateHash(s: SequencerSnapshot, text = JSON.stringify(s)): string {
  return createHash('sha256').update(text).digest('hex');
}

/** A book's snapshot with its objects' keys in sorted order (the matching engine lists them as it likes). */
function canonicalBook(b: BookSnapshot): BookSnapshot {
  const side = (orders: BookSnapshot['bids']) =>
    orders.map((o) => ({ filled: o.filled, id: o.id, owner: o.owner, postOnly: o.postOnly, price: o.price, qty: o.qty, stp: o.stp }));
  return { asks: side(b.asks), bids: side(b.bids), tradeSeq: b.tradeSeq, version: b.version };
}

/** The status an order that leaves the book gets from this event, if it leaves the book. */
export function closingOf(e: EngineEvent): [number, 'completed' | 'cancelled'] | undefined {
  if (e.type === 'trade' && e.makerRemaining === 0) return [e.makerId, 'completed']; // a maker gets no done event of its own
  if (e.type === 'cancelled') return [e.id, 'cancelled'];
  if (e.type === 'rejected' && e.command === 'place') return [e.id, 'cancelled'];
  if (e.type === 'done' && e.status === 'filled') return [e.id, 'completed'];
  return undefined;
}

/**
 * Whether a text fits a ledger column of `max` characters (PostgreSQL counts code points) and has no
 * NUL, which no PostgreSQL text holds. Numbers (a producer's id not made a string) are written as text.
 */
function fits(value: string | number, max = Infinity): boolean {
  const s = String(value);
  if (s.includes('\0')) return false;
  return s.length <= max || Array.from(s).length <= max;
}

/** A leg's amount; absent, or JSON's null, is none (as `checkPosting` reads it). */
function amountOf(v: string | null | undefined): bigint {
  return v === undefined || v === null ? 0n : units(v);
}

function keyOf(l: Leg) {
  return { ownerType: l.ownerType, ownerId: l.ownerId, accountType: l.accountType, currencyId: l.currencyId };
}

/** Fills in each owned leg's balance after it, from the balances after the whole posting, walking back. */
function withRunning(legs: AppliedLeg[], after: Map<string, Balance>): AppliedLeg[] {
  const cur = new Map([...after].map(([k, b]) => [k, { available: b.available, frozen: b.frozen }]));
  const out: AppliedLeg[] = new Array(legs.length);
  for (let i = legs.length - 1; i >= 0; i--) {
    const l = legs[i];
    const b = cur.get(accountKey(l));
    if (!b) {
      out[i] = l; // a database account: the projector works out its balance
      continue;
    }
    out[i] = { ...l, availableAfter: b.available, frozenAfter: b.frozen };
    b.available -= l.available;
    b.frozen -= l.frozen;
  }
  return out;
}

/**
 * A market's units as the sequencer keeps them, or undefined when it would refuse the market: a
 * malformed or zero tick or lot, a quote unit (tick × lot) finer than the ledger's 18 decimals, or
 * a fee outside 0–100 % (one above 100 % could take more than a fill's frozen funds). Exported so
 * an operator's listing is checked by the same rule before anything is written.
 */
export function marketUnits(
  p: Pick<MarketParams, 'symbol' | 'tickSize' | 'lotSize' | 'makerFee' | 'takerFee'>,
): { lotUnits: bigint; quoteUnit: bigint; makerRate: bigint; takerRate: bigint } | undefined {
  let lotUnits: bigint;
  let quoteUnit: bigint;
  let makerRate: bigint;
  let takerRate: bigint;
  try {
    const m = createMarket({ symbol: p.symbol, tickSize: p.tickSize, lotSize: p.lotSize, minQty: p.lotSize });
    lotUnits = units(p.lotSize);
    quoteUnit = units(m.unitsToQuote(1));
    makerRate = units(p.makerFee);
    takerRate = units(p.takerFee);
  } catch {
    return undefined;
  }
  if (lotUnits <= 0n || quoteUnit <= 0n || makerRate < 0n || takerRate < 0n || makerRate > UNIT || takerRate > UNIT) return undefined;
  return { lotUnits, quoteUnit, makerRate, takerRate };
}

/**
 * A market's units as one canonical text (ledger units of its tick and of its lot): what a place
 * converted by another process carries, so the sequencer can tell that the ticks and lots it reads
 * are the ones the caller meant ("0.10" and "0.1" are the same units).
 */
export function unitsKey(tickSize: string, lotSize: string): string {
  // Base 36: every place carries it in the journal, so it is kept short.
  return `${units(tickSize).toString(36)}/${units(lotSize).toString(36)}`;
}

/** The users whose accounts a posting names. */
/** The users a posting moves money of; none for legs that are not a list of objects (refused by `checkPosting`, and again by its retry here). */
function postingUsers(cmd: PostCmd): number[] {
  if (!Array.isArray(cmd.legs)) return [];
  return cmd.legs.filter((l) => typeof l === 'object' && l !== null && l.ownerType === 'user').map((l) => l.ownerId);
}

/**
 * The empty list every outcome without orders, trades, postings, users or books shares: read-only
 * by its type (not frozen: a frozen array takes the consumers' loops off V8's fast path for arrays).
 */
const NONE: readonly never[] = [];

/** An outcome that changed nothing. */
export function empty(code: SeqCode): SeqOutcome {
  return { code, orders: NONE, trades: NONE, postings: NONE, users: NONE, books: NONE };
}

/** A balance change the sequencer writes into a reused object. */
type MutableDelta = { -readonly [K in keyof Delta]: Delta[K] };

/** Above this many entries a list's "already in it?" uses a set instead of a scan. */
const SCAN_MAX = 16;

/** A list without repeats, made at its first entry (a list literal of that size), with a set beside it past `SCAN_MAX`. */
class Distinct<T> {
  items: T[] | undefined;
  private seen?: Set<T>;

  add(x: T): void {
    const items = this.items;
    if (!items) this.items = [x];
    else if (!(this.seen ? this.seen.has(x) : items.includes(x))) {
      items.push(x);
      if (this.seen) this.seen.add(x);
      else if (items.length > SCAN_MAX) this.seen = new Set(items);
    }
  }
}

/**
 * Collects what one command did. Lists, not maps or sets, each made at its first entry: a command
 * touches an order or two and a user or two (a sweep of many makers switches to a set past
 * `SCAN_MAX`), and one book at most.
 */
class Out {
  private readonly orders = new Distinct<OrderState>();
  private readonly users = new Distinct<number>();
  private trades: TradeRecord[] | undefined;
  private postings: AppliedPosting[] | undefined;
  /** The market whose book changed, if one did. */
  book: number | undefined;

  posting(p: AppliedPosting): void {
    if (this.postings) this.postings.push(p);
    else this.postings = [p];
  }

  trade(t: TradeRecord): void {
    if (this.trades) this.trades.push(t);
    else this.trades = [t];
  }

  touch(o: OrderState): void {
    this.orders.add(o);
    this.users.add(o.userId);
  }

  user(u: number): void {
    this.users.add(u);
  }

  /** With `orderId`, the outcome names that order and carries its state (the same copy as in `orders`: it was touched); `created` when the command made it. */
  result(code: SeqCode, orderId?: number, book?: number, created?: true): SeqOutcome {
    if (book !== undefined) this.book = book;
    const orders = this.orders.items ? this.orders.items.map((o) => ({ ...o })) : NONE;
    let order: OrderState | undefined;
    if (orderId !== undefined) for (const o of orders) if (o.id === orderId) order = o;
    return {
      code,
      orderId,
      order,
      created,
      orders,
      trades: this.trades ?? NONE,
      postings: this.postings ?? NONE,
      users: this.users.items ?? NONE,
      books: this.book === undefined ? NONE : [this.book],
    };
  }
}
