import { Injectable } from '@nestjs/common';
import { createMarket } from '@kestrel/matching-engine';
import { DataSource, EntityManager } from 'typeorm';
import { EventStoreService } from '../../infra/event-store/event-store.service';
import { BusinessError } from '../../infra/http/business-error';
import { ErrorCode } from '../../infra/http/error-codes';
import type { MessageKey } from '../../infra/i18n/catalogue';
import { money, moneyString } from '../../infra/money';
import { EngineHost } from '../engine/engine-host.service';
import { marketUnits } from '../engine/sequencer/sequencer';
import { LedgerCode, SYSTEM_OWNER_ID } from '../ledger/ledger-codes';
import { LedgerService } from '../ledger/ledger.service';
import { Coin } from '../reference/coin.entity';
import { Market } from '../reference/market.entity';
import { IeoAllocationService, issuerLeg } from './ieo-allocation.service';
import { IeoProject } from './ieo-project.entity';
import type { IeoMarketDto, IeoProjectCreateDto, IeoProjectEditDto } from './newcoin.dto';
import { NewcoinService, projectView } from './newcoin.service';

const invalid = (key: MessageKey) => new BusinessError(ErrorCode.VALIDATION, key);

/** A subscription's payment is stored in a money column (numeric(36,18)): below 10^18. */
const MAX_PAYMENT = money('1000000000000000000');

/**
 * Operators: create and edit IEO projects (each change an event with the operator and reason),
 * and list a spot market for a distributed project's coin. Creating a project creates its coin
 * (a new `coins` row) and records the issuer's supply as coming from `external` (900) into the
 * project's issuer account (`system`/<project id>/`ieo`), from which the allocation takes it.
 */
@Injectable()
export class IeoAdminService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly ledger: LedgerService,
    private readonly events: EventStoreService,
    private readonly allocation: IeoAllocationService,
    private readonly newcoin: NewcoinService,
    private readonly host: EngineHost,
  ) {}

  async list() {
    const rows = await this.dataSource.getRepository(IeoProject).find({ order: { id: 'DESC' } });
    const coins = await this.newcoin.coins(rows.flatMap((p) => [p.coinId, p.currencyId]));
    const now = new Date();
    return rows.map((p) => ({
      ...projectView(p, coins, now),
      status: p.status,
      proceeds: p.proceeds === null ? null : moneyString(p.proceeds),
      subscribers: p.subscribers,
    }));
  }

  /** `actor` names who creates it in the project's events (an operator, or `system:demo` for the demo venue's project). */
  async create(adminId: number, dto: IeoProjectCreateDto, actor = `admin:${adminId}`) {
    const currencyId = dto.currency_id ?? 3;
    const saved = await this.dataSource.transaction(async (m) => {
      const currency = await m.getRepository(Coin).findOne({ where: { id: currencyId } });
      if (!currency) throw invalid('error.currency_invalid');
      await m.query('SELECT pg_advisory_xact_lock(hashtext($1))', ['kestrel:coins']);
      const [clash] = await m.query('SELECT id FROM coins WHERE upper(symbol) = upper($1)', [dto.symbol]);
      if (clash) throw new BusinessError(ErrorCode.IEO_SYMBOL_EXISTS);
      const fields = this.checked(dto, dto.decimals);
      if (fields.endAt <= new Date()) throw invalid('error.ieo_window_invalid');
      const [{ id: coinId }] = await m.query('SELECT COALESCE(MAX(id), 0) + 1 AS id FROM coins');
      await m.query(`INSERT INTO coins (id, symbol, name, display_decimals, sort) VALUES ($1, $2, $3, $4, $5)`, [
        coinId,
        dto.symbol,
        dto.name,
        dto.decimals,
        100 + coinId,
      ]);
      const repo = m.getRepository(IeoProject);
      const p = await repo.save(repo.create({ coinId, currencyId, ...fields }));
      await this.fundSupply(m, p, money(0), `ieo-fund:${p.id}`, { actor, reason: dto.reason });
      await this.events.append(m, { streamId: `ieo:${p.id}`, metadata: { actor, reason: dto.reason } }, [
        { type: 'IeoProjectCreated', payload: { projectId: p.id, coinId, symbol: dto.symbol, decimals: dto.decimals, currencyId, ...fields } },
      ]);
      return p;
    });
    await this.allocation.schedule(saved);
    return this.view(saved.id);
  }

  /**
   * Until the window opens (and while no one has subscribed) everything may change; once it is
   * open only the texts and the end may; after it closes, nothing. Subscriptions take the
   * project's row FOR SHARE and check its terms under it, so none is priced by terms an edit
   * changes. A supply change moves the
   * difference between `external` and the issuer's account.
   */
  async edit(adminId: number, id: number, dto: IeoProjectEditDto) {
    const saved = await this.dataSource.transaction(async (m) => {
      const p = await m.getRepository(IeoProject).findOne({ where: { id }, lock: { mode: 'pessimistic_write' } });
      if (!p) throw new BusinessError(ErrorCode.IEO_NOT_FOUND);
      const now = new Date();
      if (p.status !== 'open' || now >= p.endAt) throw new BusinessError(ErrorCode.IEO_ENDED);
      const coin = (await m.getRepository(Coin).findOne({ where: { id: p.coinId } }))!;
      const terms = ['price', 'supply', 'start_at', 'min_qty', 'max_qty'] as const;
      // Started by this process's clock, or by a subscription's (another process's clock may be ahead): the terms stay.
      // The end too once anyone has subscribed: moved either way with the demand in view, it would
      // change everyone's pro-rata share (it may still move while nobody has).
      const endMoved = dto.end_at !== undefined && new Date(dto.end_at).getTime() !== new Date(p.endAt).getTime();
      if (terms.some((k) => dto[k] !== undefined) || endMoved) {
        const [subscribed] = await m.query('SELECT 1 FROM ieo_subscriptions WHERE project_id = $1 LIMIT 1', [p.id]);
        if (subscribed || (terms.some((k) => dto[k] !== undefined) && now >= p.startAt)) throw new BusinessError(ErrorCode.IEO_STARTED);
      }
      const previous = { ...p };
      const fields = this.checked(
        {
          price: dto.price ?? moneyString(p.price),
          supply: dto.supply ?? moneyString(p.supply),
          start_at: dto.start_at ?? new Date(p.startAt).toISOString(),
          end_at: dto.end_at ?? new Date(p.endAt).toISOString(),
          min_qty: dto.min_qty ?? moneyString(p.minQty),
          max_qty: dto.max_qty ?? moneyString(p.maxQty),
          website: dto.website ?? p.website,
          white_paper: dto.white_paper ?? p.whitePaper,
          intro: dto.intro ?? p.intro,
        },
        coin.displayDecimals,
      );
      if (dto.end_at !== undefined && fields.endAt <= now) throw invalid('error.ieo_window_invalid');
      if (dto.name !== undefined) await m.query('UPDATE coins SET name = $2 WHERE id = $1', [p.coinId, dto.name]);
      Object.assign(p, fields);
      const next = await m.getRepository(IeoProject).save(p);
      const [e] = await this.events.append(m, { streamId: `ieo:${p.id}`, metadata: { actor: `admin:${adminId}`, reason: dto.reason } }, [
        { type: 'IeoProjectEdited', payload: { projectId: p.id, changes: { ...dto, reason: undefined }, previous: snapshot(previous) } },
      ]);
      await this.fundSupply(m, next, money(previous.supply), `ieo-supply:${e.seq}`, { actor: `admin:${adminId}`, reason: dto.reason });
      return next;
    });
    await this.allocation.schedule(saved);
    return this.view(saved.id);
  }

  /**
   * Lists `<coin>/<purchase currency>` once the project is distributed: a `markets` row and an
   * event with the operator and reason, then the parameters go to the sequencer as a journaled
   * market-configuration command; from then on it trades like any other market.
   */
  async listMarket(adminId: number, id: number, dto: IeoMarketDto) {
    const p = await this.newcoin.project(id);
    if (p.status !== 'distributed') throw new BusinessError(ErrorCode.IEO_NOT_DISTRIBUTED);
    if (p.marketId) throw new BusinessError(ErrorCode.IEO_MARKET_LISTED);
    const coins = await this.newcoin.coins([p.coinId, p.currencyId]);
    const symbol = `${coins.get(p.coinId)!.symbol}/${coins.get(p.currencyId)!.symbol}`;
    const params = {
      tickSize: moneyString(dto.tick_size),
      lotSize: moneyString(dto.lot_size),
      minQty: moneyString(dto.min_qty ?? dto.lot_size),
      makerFee: moneyString(dto.maker_fee ?? '0.001'),
      takerFee: moneyString(dto.taker_fee ?? '0.001'),
    };
    // The sequencer's own check of a market's units (tick × lot within the ledger's 18 decimals,
    // fees within 0–100 %), and the minimum quantity's, before anything is written.
    try {
      createMarket({ symbol, tickSize: params.tickSize, lotSize: params.lotSize, minQty: params.minQty });
    } catch {
      throw invalid('error.amount_invalid');
    }
    if (!marketUnits({ symbol, ...params })) throw invalid('error.amount_invalid');
    await this.dataSource.transaction(async (m) => {
      const [row] = await m.query('SELECT market_id FROM ieo_projects WHERE id = $1 FOR UPDATE', [p.id]);
      if (row.market_id) throw new BusinessError(ErrorCode.IEO_MARKET_LISTED);
      if (await m.getRepository(Market).findOne({ where: { symbol } })) throw new BusinessError(ErrorCode.IEO_MARKET_LISTED);
      const market = await m
        .getRepository(Market)
        .save(m.getRepository(Market).create({ symbol, baseCurrencyId: p.coinId, quoteCurrencyId: p.currencyId, ...params, sort: 100 + p.id, enabled: true }));
      await m.query('UPDATE ieo_projects SET market_id = $2 WHERE id = $1', [p.id, market.id]);
      await this.events.append(m, { streamId: `ieo:${p.id}`, metadata: { actor: `admin:${adminId}`, reason: dto.reason } }, [
        { type: 'IeoMarketListed', payload: { projectId: p.id, marketId: market.id, symbol, ...params } },
      ]);
    });
    const answers = await this.host.marketsChanged();
    const refused = answers.find((a) => a.symbol === symbol && a.code !== 'OK');
    if (refused) throw new Error(`market ${symbol} refused by the sequencer: ${refused.code}`);
    return this.view(p.id);
  }

  private async view(id: number) {
    const p = await this.newcoin.project(id);
    const coins = await this.newcoin.coins([p.coinId, p.currencyId]);
    return { ...projectView(p, coins, new Date()), status: p.status };
  }

  /** The issuer's account follows the supply: the difference comes from (or goes back to) `external`, posted with the operator who set it and the reason. */
  private async fundSupply(
    m: EntityManager,
    p: IeoProject,
    before: ReturnType<typeof money>,
    commandId: string,
    by: { actor: string; reason?: string },
  ): Promise<void> {
    const diff = money(p.supply).minus(before);
    if (diff.isZero()) return;
    const d = moneyString(diff);
    const neg = moneyString(diff.negated());
    await this.ledger.post(
      {
        commandId,
        refType: 'ieo',
        refId: String(p.id),
        actor: by.actor,
        reason: by.reason,
        memo: 'issuer supply',
        movements: [
          { ownerType: 'system', ownerId: SYSTEM_OWNER_ID, accountType: 'external', currencyId: p.coinId, code: LedgerCode.SystemFunding, available: neg },
          issuerLeg(p.id, p.coinId, LedgerCode.SystemFunding, d),
        ],
      },
      m,
    );
  }

  /** The project's terms, checked together (the DTO checked each field's form). */
  private checked(
    f: Pick<IeoProjectCreateDto, 'price' | 'supply' | 'start_at' | 'end_at' | 'min_qty' | 'max_qty' | 'website' | 'white_paper' | 'intro'>,
    decimals: number,
  ) {
    const startAt = new Date(f.start_at);
    const endAt = new Date(f.end_at);
    if (!(endAt > startAt)) throw invalid('error.ieo_window_invalid');
    const price = money(f.price);
    if (price.lte(0)) throw invalid('error.ieo_price_invalid');
    const [supply, min, max] = [money(f.supply), money(f.min_qty), money(f.max_qty)];
    if ([supply, min, max].some((v) => v.decimalPlaces() > decimals)) throw new BusinessError(ErrorCode.IEO_QUANTITY_DECIMALS, undefined, { decimals });
    if (supply.lte(0) || min.lte(0) || min.gt(max) || max.gt(supply)) throw invalid('error.ieo_range_invalid');
    // Each subscription's payment (at most max × price) must fit a money column and the ledger (below 10^18).
    if (max.times(price).gte(MAX_PAYMENT)) throw invalid('error.ieo_range_invalid');
    return {
      price: moneyString(price),
      supply: moneyString(supply),
      startAt,
      endAt,
      minQty: moneyString(min),
      maxQty: moneyString(max),
      website: f.website ?? '',
      whitePaper: f.white_paper ?? '',
      intro: f.intro ?? '',
    };
  }
}

function snapshot(p: IeoProject) {
  return {
    price: p.price,
    supply: p.supply,
    startAt: p.startAt,
    endAt: p.endAt,
    minQty: p.minQty,
    maxQty: p.maxQty,
    website: p.website,
    whitePaper: p.whitePaper,
    intro: p.intro,
  };
}
