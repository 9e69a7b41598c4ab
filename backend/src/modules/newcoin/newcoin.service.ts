import { Injectable } from '@nestjs/common';
import { DataSource, In } from 'typeorm';
import { orConcurrentRetry } from '../../infra/database/sql';
import { BusinessError } from '../../infra/http/business-error';
import { ErrorCode } from '../../infra/http/error-codes';
import type { Page } from '../../infra/http/page.dto';
import { money, moneyString, UNIT, units, unitsString } from '../../infra/money';
import { EngineBus } from '../engine/engine-bus';
import { coinLeg, refusal, TradeAccountCommands } from '../engine/trade-account-commands';
import { LedgerCode } from '../ledger/ledger-codes';
import { Coin } from '../reference/coin.entity';
import { positive } from '../wallet/accounts.service';
import { IeoProject } from './ieo-project.entity';
import { IeoSubscription } from './ieo-subscription.entity';
import type { IeoConfigDto, IeoOrderInfoDto, IeoSubmitDto } from './newcoin.dto';

export type IeoState = 'upcoming' | 'active' | 'ended' | 'distributed';

/** What users see of a project's state: not yet open / in progress / ended / distributed. */
export function ieoState(p: IeoProject, now: Date): IeoState {
  if (p.status === 'distributed') return 'distributed';
  if (p.status !== 'open' || now >= p.endAt) return 'ended';
  return now < p.startAt ? 'upcoming' : 'active';
}

/** ieoState as a condition on the projects' rows (`:now`), for a list filtered by state. */
const STATE_WHERE: Record<IeoState, string> = {
  distributed: `p.status = 'distributed'`,
  ended: `p.status <> 'distributed' AND (p.status <> 'open' OR p.end_at <= :now)`,
  upcoming: `p.status = 'open' AND p.end_at > :now AND p.start_at > :now`,
  active: `p.status = 'open' AND p.end_at > :now AND p.start_at <= :now`,
};

/** The checks of a subscription against a project's terms at `now`, in the order they answer; its quantity and payment (truncated). */
function subscriptionTerms(p: IeoProject, coin: Coin, raw: string, now: Date) {
  const state = ieoState(p, now);
  if (state === 'upcoming') throw new BusinessError(ErrorCode.IEO_NOT_OPEN);
  if (state !== 'active') throw new BusinessError(ErrorCode.IEO_ENDED);
  const quantity = positive(raw);
  if (quantity.decimalPlaces() > coin.displayDecimals) throw new BusinessError(ErrorCode.IEO_QUANTITY_DECIMALS, undefined, { decimals: coin.displayDecimals });
  if (quantity.lt(p.minQty) || quantity.gt(p.maxQty))
    throw new BusinessError(ErrorCode.IEO_QUANTITY_RANGE, undefined, { min: moneyString(p.minQty), max: moneyString(p.maxQty) });
  return { quantity, payment: unitsString((units(moneyString(quantity)) * units(moneyString(p.price))) / UNIT) };
}

/** The command that freezes a subscription's payment (one per subscription: a retry is one effect). */
export const subscribeCommand = (s: Pick<IeoSubscription, 'id' | 'userId' | 'payment'>, currencyId: number) => ({
  commandId: `ieo-subscribe:${s.id}`,
  refType: 'ieo-subscription',
  refId: s.id,
  actor: `user:${s.userId}`,
  legs: [coinLeg(s.userId, currencyId, LedgerCode.NewCoinSubscription, `-${moneyString(s.payment)}`, moneyString(s.payment))],
});

/**
 * New-coin subscriptions (IEO), the user's side: the projects (lh/newcoin/config), subscribing
 * (lh/newcoin/order/submit: the payment frozen in the trade account by the sequencer, 103) and
 * the user's own subscriptions with the published result (lh/newcoin/order/info).
 */
@Injectable()
export class NewcoinService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly trading: TradeAccountCommands,
    private readonly bus: EngineBus,
  ) {}

  async coins(ids: number[]): Promise<Map<number, Coin>> {
    const rows = ids.length ? await this.dataSource.getRepository(Coin).find({ where: { id: In([...new Set(ids)]) } }) : [];
    return new Map(rows.map((c) => [c.id, c]));
  }

  async project(id: number): Promise<IeoProject> {
    const p = await this.dataSource.getRepository(IeoProject).findOne({ where: { id } });
    if (!p) throw new BusinessError(ErrorCode.IEO_NOT_FOUND);
    return p;
  }

  /** lh/newcoin/config: one project's details, or the list (newest first), optionally by state. */
  async config(q: IeoConfigDto) {
    const now = new Date();
    if (q.id !== undefined) {
      const p = await this.project(q.id);
      const coins = await this.coins([p.coinId, p.currencyId]);
      return projectView(p, coins, now);
    }
    // The newest 200 in the state asked for (filtered before the cap, as ieoState reads a project at `now`).
    const list = this.dataSource.getRepository(IeoProject).createQueryBuilder('p').orderBy('p.startAt', 'DESC').addOrderBy('p.id', 'DESC').take(200);
    if (q.state) list.where(STATE_WHERE[q.state], { now });
    const rows = await list.getMany();
    const coins = await this.coins(rows.flatMap((p) => [p.coinId, p.currencyId]));
    return rows.map((p) => projectView(p, coins, now));
  }

  /**
   * lh/newcoin/order/submit: checks in order, then the row, then the freeze through the sequencer.
   * A retry (the same `client_id`, which every request carries: a subscription whose answer was
   * lost, 2105/2107, is still pending and would be frozen by the allocation job, so a retry without
   * its id would be a second one) is answered before any check that depends on the moment (the
   * window may have closed since): with what the first request created, in its own project.
   */
  async submit(userId: number, dto: IeoSubmitDto) {
    const earlier = await this.priorOf(userId, dto.client_id);
    if (earlier) return this.answer(userId, earlier);
    const p = await this.project(dto.project_id);
    const coins = await this.coins([p.coinId, p.currencyId]);
    const coin = coins.get(p.coinId)!;
    const { payment } = subscriptionTerms(p, coin, dto.quantity, new Date());

    const create = () =>
      this.dataSource.transaction(async (m) => {
        // One user's subscriptions to a project are taken one at a time: the maximum and a retried client id are checked against every earlier one.
        await m.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`ieo:${p.id}:user:${userId}`]);
        const prior = await m.getRepository(IeoSubscription).findOne({ where: { userId, clientId: dto.client_id } });
        if (prior) return prior;
        // Checked before anything is written; the sequencer checks again when it freezes.
        if (this.trading.clearlyShort(userId, p.currencyId, units(payment))) throw new BusinessError(ErrorCode.INSUFFICIENT_BALANCE);
        // The project's terms as they are now, held until the commit: the allocation job closes it
        // under FOR UPDATE, and an operator's edit of its terms takes the same lock (a subscription
        // is in before either, priced by the terms it was checked against, or checked again after).
        const locked = (await m.getRepository(IeoProject).findOne({ where: { id: p.id }, lock: { mode: 'pessimistic_read' } }))!;
        const terms = subscriptionTerms(locked, coin, dto.quantity, new Date());
        const [{ total }] = await m.query(
          `SELECT COALESCE(SUM(quantity), 0)::text AS total FROM ieo_subscriptions WHERE project_id = $1 AND user_id = $2 AND status IN ('pending', 'active')`,
          [p.id, userId],
        );
        if (money(total).plus(terms.quantity).gt(locked.maxQty)) {
          const left = money(locked.maxQty).minus(total);
          throw new BusinessError(ErrorCode.IEO_USER_LIMIT, undefined, { max: moneyString(locked.maxQty), left: moneyString(left.lt(0) ? money(0) : left) });
        }
        const repo = m.getRepository(IeoSubscription);
        return repo.save(
          repo.create({
            projectId: p.id,
            userId,
            quantity: moneyString(terms.quantity),
            payment: terms.payment,
            status: 'pending',
            clientId: dto.client_id,
          }),
        );
      });
    // The same client id sent for two projects at once: the unique index takes one, the other answers it.
    const sub = await orConcurrentRetry(create, () => this.priorOf(userId, dto.client_id));
    return this.answer(userId, sub, sub.projectId === p.id ? { p, coins } : undefined);
  }

  private priorOf(userId: number, clientId: string): Promise<IeoSubscription | null> {
    return this.dataSource.getRepository(IeoSubscription).findOne({ where: { userId, clientId } });
  }

  /** A subscription's answer: its freeze sent (again, for a retry: one effect), in its own project's currency and view. */
  private async answer(userId: number, sub: IeoSubscription, known?: { p: IeoProject; coins: Map<number, Coin> }) {
    const p = known?.p ?? (await this.project(sub.projectId));
    const coins = known?.coins ?? (await this.coins([p.coinId, p.currencyId]));
    const final = await this.freeze(sub, p.currencyId);
    if (final.status === 'rejected') throw new BusinessError(ErrorCode.INSUFFICIENT_BALANCE);
    await this.trading.settled(userId);
    this.bus.emit('balance', userId);
    return subscriptionView(final, p, coins);
  }

  /**
   * Sends a pending subscription's freeze to the sequencer (again, for a retry: the command id
   * makes it one effect) and records the answer: `active`, or deleted when refused (nothing was
   * frozen, so nothing of it remains). A thrown error (sequencer unavailable) leaves it pending:
   * the allocation job resolves it before allocating.
   */
  async freeze(sub: IeoSubscription, currencyId: number): Promise<IeoSubscription> {
    if (sub.status !== 'pending') return sub;
    const r = await this.trading.post(subscribeCommand(sub, currencyId));
    if (r.code === 'OK') {
      await this.dataSource.query(`UPDATE ieo_subscriptions SET status = 'active' WHERE id = $1 AND status = 'pending'`, [sub.id]);
      return { ...sub, status: 'active' };
    }
    if (r.code !== 'INSUFFICIENT_BALANCE') throw refusal(r.code);
    await this.dataSource.query(`DELETE FROM ieo_subscriptions WHERE id = $1 AND status = 'pending'`, [sub.id]);
    return { ...sub, status: 'rejected' };
  }

  /**
   * lh/newcoin/order/info: the user's own subscriptions (newest first); with `project_id`, also
   * the project's published totals and the user's own request, allocation and refund. Nothing of
   * another user is ever read into the answer.
   */
  async info(userId: number, q: IeoOrderInfoDto) {
    const where =
      q.project_id !== undefined
        ? { userId, projectId: q.project_id, status: In(['pending', 'active', 'settled']) }
        : { userId, status: In(['pending', 'active', 'settled']) };
    const project = q.project_id !== undefined ? await this.project(q.project_id) : undefined;
    const [rows, total] = await this.dataSource
      .getRepository(IeoSubscription)
      .findAndCount({ where, order: { id: 'DESC' }, skip: (q.page - 1) * q.limit, take: q.limit });
    const projects = new Map<number, IeoProject>();
    if (project) projects.set(project.id, project);
    const ids = [...new Set(rows.map((r) => r.projectId))].filter((id) => !projects.has(id));
    if (ids.length) for (const p of await this.dataSource.getRepository(IeoProject).find({ where: { id: In(ids) } })) projects.set(p.id, p);
    const coins = await this.coins([...projects.values()].flatMap((p) => [p.coinId, p.currencyId]));
    const page: Page<ReturnType<typeof subscriptionView>> = {
      items: rows.map((r) => subscriptionView(r, projects.get(r.projectId)!, coins)),
      total,
      page: q.page,
      limit: q.limit,
    };
    if (!project) return { ...page, project: null, mine: null };
    const all: Array<{ quantity: string; payment: string; allocation: string | null; refund: string | null; paid: string | null }> =
      await this.dataSource.query(
        `SELECT quantity::text, payment::text, allocation::text, refund::text, paid::text FROM ieo_subscriptions WHERE project_id = $1 AND user_id = $2 AND status IN ('pending', 'active', 'settled')`,
        [project.id, userId],
      );
    const sum = (f: (r: (typeof all)[number]) => string | null) => moneyString(all.reduce((s, r) => s.plus(f(r) ?? '0'), money(0)));
    const published = project.status === 'allocated' || project.status === 'distributed';
    return {
      ...page,
      project: projectView(project, coins, new Date()),
      mine: {
        subscriptions: all.length,
        requested: sum((r) => r.quantity),
        payment: sum((r) => r.payment),
        allocation: published ? sum((r) => r.allocation) : null,
        paid: published ? sum((r) => r.paid) : null,
        refund: published ? sum((r) => r.refund) : null,
        distributed: project.status === 'distributed',
      },
    };
  }
}

export function projectView(p: IeoProject, coins: Map<number, Coin>, now: Date) {
  const coin = coins.get(p.coinId);
  const currency = coins.get(p.currencyId);
  const state = ieoState(p, now);
  const secs = (d: Date) => Math.max(0, Math.ceil((new Date(d).getTime() - now.getTime()) / 1000));
  const published = p.status === 'allocated' || p.status === 'distributed';
  return {
    id: p.id,
    symbol: coin?.symbol ?? '',
    name: coin?.name ?? '',
    coin_id: p.coinId,
    decimals: coin?.displayDecimals ?? 0,
    currency_id: p.currencyId,
    currency: currency?.symbol ?? '',
    price: moneyString(p.price),
    supply: moneyString(p.supply),
    start_at: new Date(p.startAt).toISOString(),
    end_at: new Date(p.endAt).toISOString(),
    min_qty: moneyString(p.minQty),
    max_qty: moneyString(p.maxQty),
    website: p.website,
    white_paper: p.whitePaper,
    intro: p.intro,
    state,
    seconds_to_start: state === 'upcoming' ? secs(p.startAt) : 0,
    seconds_to_end: state === 'upcoming' || state === 'active' ? secs(p.endAt) : 0,
    // Totals only, published at allocation: no subscriber's amount or identity.
    result: published
      ? {
          requested: moneyString(p.requested!),
          supply: moneyString(p.supply),
          allocated: moneyString(p.allocated!),
          ratio: moneyString(p.ratio!),
          remainder: moneyString(p.remainder!),
          unallocated: moneyString(money(p.supply).minus(p.allocated!)),
          payments: moneyString(p.payments!),
          refunded: moneyString(p.refunded!),
          allocated_at: p.allocatedAt ? new Date(p.allocatedAt).toISOString() : null,
          distributed_at: p.distributedAt ? new Date(p.distributedAt).toISOString() : null,
        }
      : null,
    market_id: p.marketId,
    market: p.marketId && coin && currency ? `${coin.symbol}/${currency.symbol}` : null,
  };
}

export function subscriptionView(s: IeoSubscription, p: IeoProject, coins: Map<number, Coin>) {
  const coin = coins.get(p.coinId);
  const currency = coins.get(p.currencyId);
  const published = s.allocation !== null;
  return {
    id: s.id,
    project_id: p.id,
    symbol: coin?.symbol ?? '',
    currency: currency?.symbol ?? '',
    price: moneyString(p.price),
    quantity: moneyString(s.quantity),
    payment: moneyString(s.payment),
    status: s.status === 'pending' ? 'pending' : s.status === 'settled' ? 'distributed' : published ? 'allocated' : 'subscribed',
    allocation: published ? moneyString(s.allocation!) : null,
    paid: published ? moneyString(s.paid!) : null,
    refund: published ? moneyString(s.refund!) : null,
    created_at: new Date(s.createdAt ?? Date.now()).toISOString(),
    settled_at: s.settledAt ? new Date(s.settledAt).toISOString() : null,
  };
}
