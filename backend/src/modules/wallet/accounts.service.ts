import { Injectable } from '@nestjs/common';
import { createHash, randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { isUniqueViolation, orConcurrentRetry } from '../../infra/database/sql';
import { ConcurrencyError, EventStoreService } from '../../infra/event-store/event-store.service';
import { BusinessError } from '../../infra/http/business-error';
import { ErrorCode } from '../../infra/http/error-codes';
import { type Page, TOTAL_MAX } from '../../infra/http/page.dto';
import type { Lang } from '../../infra/i18n/catalogue';
import { money, Money, truncate } from '../../infra/money';
import { ORDER_STATUSES } from '../coin-trade/order.entity';
import { PricingService } from '../coin-rate/pricing.service';
import { EngineBus } from '../engine/engine-bus';
import { isLedgerCode, LedgerCode, ledgerCodeName, SYSTEM_OWNER_ID, USER_ACCOUNT_TYPES, type UserAccountType } from '../ledger/ledger-codes';
import { LedgerService, Movement } from '../ledger/ledger.service';
import { OutboxRelay } from '../engine/outbox-relay.service';
import { TradeAccountCommands } from '../engine/trade-account-commands';
import { accountHolds } from './accounts';
import type { TransferDto, WalletLogDto } from './dto/wallet.dto';

export interface CoinInfo {
  id: number;
  symbol: string;
  name: string;
  decimals: number;
}
type CoinRow = { id: number; symbol: string; name: string; display_decimals: number };
const coinInfo = (r: CoinRow): CoinInfo => ({ id: r.id, symbol: r.symbol, name: r.name, decimals: r.display_decimals });

/** What a transfer moves: from one of the user's accounts to another, an amount of a coin. */
interface TransferRequest {
  from: UserAccountType;
  to: UserAccountType;
  currency_id: number;
  amount: string;
}

export interface BalanceLine {
  currency_id: number;
  symbol: string;
  total: string;
  available: string;
  frozen: string;
  /** In the pricing currency, truncated to 2 decimals ("0" while the coin has no price). */
  value: string;
  /** The coin's display decimals: what the amounts are truncated to (they carry no trailing zeros). */
  decimals: number;
}

export interface LogLine {
  id: string;
  account: string;
  currency_id: number;
  symbol: string;
  code: number;
  code_name: string;
  /** Change of the total (available + frozen) and of each part. */
  amount: string;
  available_change: string;
  frozen_change: string;
  balance_after: string;
  ref: string;
  created_at: string;
}

/** A part of the ledger a page reads newest first through an index: a table or view, a condition of its own, its order. */
interface LogSource {
  from: string;
  where?: string;
  order: string;
}

/**
 * The ledger's sources besides `ledger_entries` (lines stored in trades' and orders' rows, all in
 * the `coin` account): the codes each has. An order's freeze's id grows with the order's, so a
 * trader's newest freezes are the newest orders (migration OrderFreezeLedger): of one currency
 * through `orders (user_id, frozen_currency_id, id)`, of all through `(user_id, status, id)` one
 * status at a time (`parts`, with the currency filter or without). A release's id has its own index.
 */
const ROW_SOURCES: ReadonlyArray<{ codes: readonly number[]; parts: (oneCurrency: boolean) => LogSource[] }> = [
  {
    codes: [LedgerCode.Freeze],
    parts: (oneCurrency) =>
      oneCurrency
        ? [{ from: 'order_freezes', order: 'e.order_id DESC' }]
        : ORDER_STATUSES.map((status) => ({ from: 'order_freezes', where: `e.order_status = '${status}'`, order: 'e.order_id DESC' })),
  },
  { codes: [LedgerCode.Unfreeze], parts: () => [{ from: 'order_releases', order: 'e.id DESC' }] },
  // Last: the count stops at TOTAL_MAX lines, and a trade's legs cost the most to count (three from each row).
  {
    codes: [LedgerCode.CoinTradeDeduction, LedgerCode.CoinTradeFee, LedgerCode.CoinTradeIncrease],
    parts: () => ['trade_legs_maker', 'trade_legs_taker'].map((from) => ({ from, order: 'e.trade_ledger_id DESC, e.id DESC' })),
  },
];

/** Read side of the four accounts, and transfers between them (ledger 502/503). */
@Injectable()
export class AccountsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly ledger: LedgerService,
    private readonly pricing: PricingService,
    private readonly bus: EngineBus,
    private readonly trading: TradeAccountCommands,
    private readonly outbox: OutboxRelay,
    private readonly events: EventStoreService,
  ) {}

  async coins(): Promise<CoinInfo[]> {
    const rows: CoinRow[] = await this.dataSource.query('SELECT id, symbol, name, display_decimals FROM coins WHERE enabled ORDER BY sort, id');
    return rows.map(coinInfo);
  }

  async coin(currencyId: number): Promise<CoinInfo> {
    const c = (await this.coins()).find((x) => x.id === currencyId);
    if (!c) throw new BusinessError(ErrorCode.VALIDATION, 'error.currency_invalid');
    return c;
  }

  /** wallet/list: every account with each currency it holds, and totals in the pricing currency. */
  async list(userId: number, pricingCode = 'USD') {
    const [pricing, coins, prices, balances] = await Promise.all([
      this.pricing.rate(pricingCode),
      this.coins(),
      this.pricing.usdtPrices(),
      this.ledger.balancesOf('user', userId),
    ]);
    const rate = money(pricing.rate);
    let grand = money(0);
    const accounts = USER_ACCOUNT_TYPES.map((account) => {
      let sum = money(0);
      const items: BalanceLine[] = coins
        .filter((c) => accountHolds(account, c.id))
        .map((c) => {
          const b = balances.find((x) => x.accountType === account && x.currencyId === c.id);
          const available = money(b?.available ?? '0');
          const frozen = money(b?.frozen ?? '0');
          const total = available.plus(frozen);
          const value = total.times(prices.get(c.id) ?? 0).times(rate);
          sum = sum.plus(value);
          return {
            currency_id: c.id,
            symbol: c.symbol,
            total: truncate(total, c.decimals),
            available: truncate(available, c.decimals),
            frozen: truncate(frozen, c.decimals),
            value: truncate(value, 2),
            decimals: c.decimals,
          };
        });
      grand = grand.plus(sum);
      return { account, total_value: truncate(sum, 2), items };
    });
    return { pricing, total_value: truncate(grand, 2), accounts };
  }

  /** wallet/detail: one currency in one account, with its latest ledger lines. */
  async detail(userId: number, account: UserAccountType, currencyId: number, page: number, lang: Lang) {
    const coin = await this.coin(currencyId);
    if (!accountHolds(account, currencyId)) throw new BusinessError(ErrorCode.VALIDATION, 'error.currency_not_in_account');
    const b = (await this.ledger.balancesOf('user', userId)).find((x) => x.accountType === account && x.currencyId === currencyId);
    const available = money(b?.available ?? '0');
    const frozen = money(b?.frozen ?? '0');
    const log = await this.log(userId, { account, currency_id: currencyId, page, limit: 20 }, lang);
    return {
      account,
      currency_id: coin.id,
      symbol: coin.symbol,
      total: truncate(available.plus(frozen), coin.decimals),
      available: truncate(available, coin.decimals),
      frozen: truncate(frozen, coin.decimals),
      log,
    };
  }

  /**
   * wallet/log: ledger lines with the spec's codes, named in the request language. The lines are the
   * view `ledger`'s (a spot trade's legs are in its row, a spot order's freeze and release in its);
   * a page takes from each of its sources only the newest lines it can need (`page × limit`: the
   * entries by id, each side's trade legs by the trade's place in the ledger, the orders' freezes
   * and releases by theirs, each through an index), not every line of the trader sorted, and leaves
   * out the views whose lines the filter's code or account excludes.
   * `total` counts up to TOTAL_MAX lines (a longer history answers that; its pages go on).
   */
  async log(userId: number, q: Pick<WalletLogDto, 'code' | 'currency_id' | 'account' | 'page' | 'limit'>, lang: Lang): Promise<Page<LogLine>> {
    if (q.code !== undefined && !isLedgerCode(q.code)) throw new BusinessError(ErrorCode.VALIDATION, 'error.ledger_code_invalid');
    const where = [`e.owner_type = 'user'`, 'e.owner_id = $1'];
    const params: unknown[] = [userId];
    const add = (sql: string, v: unknown) => {
      params.push(v);
      where.push(sql.replace('?', `$${params.length}`));
    };
    if (q.code !== undefined) add('e.code = ?', q.code);
    if (q.currency_id !== undefined) add('e.currency_id = ?', q.currency_id);
    if (q.account !== undefined) add('e.account_type = ?', q.account);
    const sources: LogSource[] = [{ from: 'ledger_entries', order: 'e.id DESC' }];
    for (const { codes, parts } of ROW_SOURCES)
      if ((q.code === undefined || codes.includes(q.code)) && (q.account === undefined || q.account === 'coin')) sources.push(...parts(q.currency_id !== undefined));
    const filter = (s: LogSource) => [...where, ...(s.where ? [s.where] : [])].join(' AND ');
    const newest = (s: LogSource) =>
      `(SELECT e.id, e.account_type, e.currency_id, e.code, e.available_delta, e.frozen_delta, e.available_after, e.frozen_after, e.ref_type, e.ref_id, e.created_at
        FROM ${s.from} e WHERE ${filter(s)} ORDER BY ${s.order} LIMIT ${q.page * q.limit})`;
    const [rows, [{ total }], coins] = await Promise.all([
      this.dataSource.query(
        `SELECT e.id::text, e.account_type, e.currency_id, e.code, e.available_delta::text AS a, e.frozen_delta::text AS f,
                (e.available_after + e.frozen_after)::text AS after, e.ref_type, e.ref_id, e.created_at
         FROM (${sources.map(newest).join(' UNION ALL ')}) e
         ORDER BY e.id DESC LIMIT ${q.limit} OFFSET ${(q.page - 1) * q.limit}`,
        params,
      ),
      this.dataSource.query(
        `SELECT COUNT(*)::int AS total FROM (${sources.map((s) => `SELECT 1 FROM ${s.from} e WHERE ${filter(s)}`).join(' UNION ALL ')} LIMIT ${TOTAL_MAX}) c`,
        params,
      ),
      this.coins(),
    ]);
    const bySymbol = new Map(coins.map((c) => [c.id, c]));
    const items = (
      rows as Array<{
        id: string;
        account_type: string;
        currency_id: number;
        code: LedgerCode;
        a: string;
        f: string;
        after: string;
        ref_type: string;
        ref_id: string;
        created_at: Date;
      }>
    ).map((r) => {
      const d = bySymbol.get(r.currency_id)?.decimals ?? 8;
      return {
        id: r.id,
        account: r.account_type,
        currency_id: r.currency_id,
        symbol: bySymbol.get(r.currency_id)?.symbol ?? String(r.currency_id),
        code: r.code,
        code_name: ledgerCodeName(r.code, lang),
        amount: truncate(money(r.a).plus(r.f), d),
        available_change: truncate(r.a, d),
        frozen_change: truncate(r.f, d),
        balance_after: truncate(r.after, d),
        ref: `${r.ref_type}:${r.ref_id}`,
        created_at: new Date(r.created_at).toISOString(),
      };
    });
    return { items, total, page: q.page, limit: q.limit };
  }

  /** wallet/curChange: the accounts, what each can send where, and the available amounts. */
  async transferOptions(userId: number, currencyId?: number) {
    const [coins, balances] = await Promise.all([this.coins(), this.ledger.balancesOf('user', userId)]);
    return {
      accounts: USER_ACCOUNT_TYPES,
      currencies: coins
        .filter((c) => currencyId === undefined || c.id === currencyId)
        .map((c) => {
          const holders = USER_ACCOUNT_TYPES.filter((a) => accountHolds(a, c.id));
          return {
            currency_id: c.id,
            symbol: c.symbol,
            available: Object.fromEntries(
              holders.map((a) => [a, truncate(balances.find((b) => b.accountType === a && b.currencyId === c.id)?.available ?? '0', c.decimals)]),
            ),
            routes: holders.flatMap((from) => holders.filter((to) => to !== from).map((to) => ({ from, to }))),
          };
        })
        .filter((c) => c.routes.length > 0),
    };
  }

  /**
   * wallet/change: moves available funds between two of the user's accounts (502 out, 503 in).
   * Out of the trade account: one sequencer command (the other account is credited by its
   * projector). Into it from a database account: that account → `transit` in a database
   * transaction that also writes the outbox command transit → trade account, so both halves
   * happen exactly once. Between two database accounts: one ledger posting.
   */
  async transfer(userId: number, dto: TransferDto): Promise<{ transfer_id: string; duplicate: boolean }> {
    const id = dto.client_id ? transferId(userId, dto.client_id) : randomUUID();
    // A retry carries out its first request before any check of this one: whatever it names, and
    // whatever changed since (its coin disabled after a 2107 whose credit is queued), it answers that transfer.
    const earlier = dto.client_id ? await this.recordedRequest(this.dataSource.manager, id) : undefined;
    if (earlier) return this.move(userId, id, { ...earlier, coin: await this.anyCoin(earlier.currency_id) });
    const asked = await this.checkedTransfer(dto);
    const first = dto.client_id ? await this.firstRequest(userId, id, asked) : asked;
    return this.move(userId, id, first === asked ? asked : await this.checkedTransfer(first));
  }

  /** A transfer's accounts, coin and amount as rules allow (1000 otherwise): the coin read, the amount positive. */
  private async checkedTransfer(t: TransferRequest): Promise<TransferRequest & { coin: CoinInfo }> {
    const coin = await this.coin(t.currency_id);
    if (t.from === t.to) throw new BusinessError(ErrorCode.VALIDATION, 'error.transfer_same_account');
    if (!accountHolds(t.from, coin.id) || !accountHolds(t.to, coin.id)) throw new BusinessError(ErrorCode.VALIDATION, 'error.currency_not_in_account');
    return { from: t.from, to: t.to, currency_id: coin.id, amount: positive(t.amount).toString(), coin };
  }

  /**
   * The transfer a `client_id` named first: its request (`TransferRequested`, the first event of the
   * stream `transfer-request:<id>`) is written before any money moves, and a later or concurrent
   * request with that `client_id` carries out the recorded one, whatever accounts, coin or amount
   * it names. Each route has its own record of what it did (the sequencer's command ids out of
   * `coin`, the event store's for the others), and neither looks in the other: without this, a
   * retry naming another route would move money a second time under the same id (or wait for a
   * credit the first route never queued: 2107 for good).
   */
  private async firstRequest(userId: number, id: string, asked: TransferRequest): Promise<TransferRequest> {
    const append = (m: EntityManager) =>
      this.events.append(m, { streamId: `transfer-request:${id}`, expectedVersion: 0, metadata: { actor: `user:${userId}` } }, [
        { type: 'TransferRequested', payload: { from: asked.from, to: asked.to, currency_id: asked.currency_id, amount: asked.amount } },
      ]);
    try {
      await this.dataSource.transaction(append);
      return asked;
    } catch (err) {
      // A request with this client_id (earlier, or at the same moment) wrote it first.
      if (!(err instanceof ConcurrencyError) && !isUniqueViolation(err)) throw err;
      const first = await this.recordedRequest(this.dataSource.manager, id);
      if (!first) throw err;
      return first;
    }
  }

  /** The request a transfer id was first written with (`firstRequest`), if any. */
  private async recordedRequest(m: EntityManager, id: string): Promise<TransferRequest | undefined> {
    return (await this.events.readStream(m, `transfer-request:${id}`))[0]?.payload as unknown as TransferRequest | undefined;
  }

  /** A coin, enabled or not (a retry's transfer happens whatever changed since it was asked). */
  private async anyCoin(currencyId: number): Promise<CoinInfo> {
    const [row]: CoinRow[] = await this.dataSource.query('SELECT id, symbol, name, display_decimals FROM coins WHERE id = $1', [currencyId]);
    if (!row) throw new BusinessError(ErrorCode.VALIDATION, 'error.currency_invalid');
    return coinInfo(row);
  }

  /** Carries out a checked transfer under its id (each route idempotent on `transfer:<id>`). */
  private async move(userId: number, id: string, t: TransferRequest & { coin: CoinInfo }): Promise<{ transfer_id: string; duplicate: boolean }> {
    const { coin, amount } = t;
    const base = { commandId: `transfer:${id}`, refType: 'transfer', refId: id, actor: `user:${userId}`, memo: `${t.from}>${t.to}` };
    const leg = (account: UserAccountType, code: LedgerCode, available: string): Movement => ({
      ownerType: 'user',
      ownerId: userId,
      accountType: account,
      currencyId: coin.id,
      code,
      available,
    });
    if (t.from === 'coin') {
      const r = await this.trading.postOrFail({ ...base, legs: [leg('coin', LedgerCode.TransferDeduction, `-${amount}`), leg(t.to, LedgerCode.TransferIncrease, amount)] });
      // The other account is credited by the projector: answered once it is, so that account's own rules (options, contracts) see it.
      await this.trading.settled(userId);
      return { transfer_id: id, duplicate: r.duplicate === true };
    }
    if (t.to !== 'coin') {
      const r = await this.ledger.post({ ...base, movements: [leg(t.from, LedgerCode.TransferDeduction, `-${amount}`), leg(t.to, LedgerCode.TransferIncrease, amount)] });
      this.bus.emit('balance', userId);
      return { transfer_id: id, duplicate: r.duplicate };
    }
    const transit = (code: LedgerCode, available: string): Movement => ({ ownerType: 'system', ownerId: SYSTEM_OWNER_ID, accountType: 'transit', currencyId: coin.id, code, available });
    const transfer = async (m: EntityManager) => {
      const r = await this.ledger.post({ ...base, movements: [leg(t.from, LedgerCode.TransferDeduction, `-${amount}`), transit(LedgerCode.TransferDeduction, amount)] }, m);
      if (!r.duplicate)
        await this.outbox.enqueue(m, { ...base, commandId: `transfer-in:${id}`, legs: [transit(LedgerCode.TransferIncrease, `-${amount}`), leg('coin', LedgerCode.TransferIncrease, amount)] });
      return r;
    };
    // A retry sent at the same moment answers the first's posting (its command id) once that commits.
    const posted = await orConcurrentRetry(() => this.dataSource.transaction(transfer), () => this.ledger.posted(base.commandId));
    // 2107 when not applied in time (it will be, once a sequencer runs: a retry with the client_id answers it).
    await this.outbox.appliedOrFail(`transfer-in:${id}`);
    return { transfer_id: id, duplicate: posted.duplicate };
  }

  /** wallet/history: the user's transfers between accounts, newest first. */
  async transfers(userId: number, page: number, limit: number) {
    const params = [userId, limit, (page - 1) * limit];
    const [rows, [{ total }], coins] = await Promise.all([
      this.dataSource.query(
        `SELECT ref_id, currency_id, MAX(memo) AS memo, MAX(available_delta)::text AS amount, MIN(created_at) AS created_at
         FROM ledger_entries WHERE owner_type = 'user' AND owner_id = $1 AND ref_type = 'transfer'
         GROUP BY ref_id, currency_id ORDER BY MIN(id) DESC LIMIT $2 OFFSET $3`,
        params,
      ),
      this.dataSource.query(
        `SELECT COUNT(DISTINCT ref_id)::int AS total FROM ledger_entries WHERE owner_type = 'user' AND owner_id = $1 AND ref_type = 'transfer'`,
        [userId],
      ),
      this.coins(),
    ]);
    const coin = new Map(coins.map((c) => [c.id, c]));
    return {
      items: (rows as Array<{ ref_id: string; currency_id: number; memo: string; amount: string; created_at: Date }>).map((r) => {
        const [from, to] = r.memo.split('>');
        return {
          transfer_id: r.ref_id,
          currency_id: r.currency_id,
          symbol: coin.get(r.currency_id)?.symbol ?? '',
          from,
          to,
          amount: truncate(r.amount, coin.get(r.currency_id)?.decimals ?? 8),
          created_at: new Date(r.created_at).toISOString(),
        };
      }),
      total,
      page,
      limit,
    };
  }
}

/** A positive amount (the DTO already checked the digits). */
export function positive(raw: string): Money {
  const v = money(raw);
  if (v.lte(0)) throw new BusinessError(ErrorCode.VALIDATION, 'error.amount_invalid');
  return v;
}

/**
 * A transfer's id, its postings' ref id (the ledger's `ref_id` holds 64 characters): `<user>-<client_id>`,
 * or for a client id too long for that `<user>:<sha-256 of it>` (at most 54 characters; no client id
 * holds a `:`, so a digest never meets a literal id). Ids that fit are kept as they were, so a retry
 * sent across a deploy still finds its transfer.
 */
export function transferId(userId: number, clientId: string): string {
  const id = `${userId}-${clientId}`;
  return id.length <= 64 ? id : `${userId}:${createHash('sha256').update(clientId).digest('base64url')}`;
}
