import { Controller, Get, Injectable, Query } from '@nestjs/common';
import { ApiProperty, ApiTags } from '@nestjs/swagger';
import { IsNotEmpty, IsString, Matches } from 'class-validator';
import { DataSource } from 'typeorm';
import { BusinessError } from '../../infra/http/business-error';
import { ErrorCode } from '../../infra/http/error-codes';
import { money, moneyString } from '../../infra/money';
import { MarketRegistry } from '../engine/market-registry.service';
import { AUDIT_TICKS_MAX } from '../market/mark-price.service';
import { isLiquidated, liquidationPrice, maintenanceOf, marginOf, notional, settledPnl, slHit, tpHit, tpSlLive, type PositionTerms } from './lever-math';
import { LeverPosition } from './lever-position.entity';

export class LeverAuditDto {
  @ApiProperty({ description: 'The contract position id' })
  @IsNotEmpty({ message: 'error.audit_position_not_found' })
  @IsString({ message: 'error.audit_position_not_found' })
  @Matches(/^\d{1,18}$/, { message: 'error.audit_position_not_found' })
  position_id: string;
}

interface TickRow {
  id: string;
  price: string;
  ts: Date;
}
const tickView = (r: TickRow) => ({ id: r.id, price: moneyString(r.price), time: new Date(r.ts).toISOString() });

/** The rules, as written in docs/api.md ("Contracts") and computed by lever-math.ts. */
export const LEVER_AUDIT_FORMULA = {
  notional: 'lots × lot_value',
  margin: 'notional / multiple, truncated to 8 decimals (frozen at open, returned at close)',
  fee: 'notional × fee_rate, truncated to 8 decimals (charged once, at open)',
  maintenance_margin: 'notional × maintenance_rate, truncated to 8 decimals',
  pnl: 'notional × (close_price / open_price − 1), negated for a short, truncated toward zero to 8 decimals, never below −margin',
  credited: 'margin + pnl (back to the contract account at close)',
  net: 'pnl − fee',
  trigger:
    'take_profit, stop_loss and liquidation close on the first recorded tick after the open tick that triggers them (take_profit and stop_loss: also after tpsl_tick_id, the newest tick when they were last changed), checked in the order liquidation (equity ≤ maintenance margin), stop loss, take profit (long: price ≥ take_profit, price ≤ stop_loss; short: the reverse); a user close uses the price now (the last trade, recorded as a tick when the market had moved), and settles at that tick even when the house pays its profit later',
} as const;

/**
 * The public settlement audit of one closed contract position (issue "Verifiable honesty", item 3):
 * the recorded mark-price ticks the position opened and closed on, read back from `mark_prices` by
 * the ids stored on the position, the formula and every value recomputed from them, and the
 * recorded result. No owner data (no user id, no email): anyone holding the number can recompute.
 */
@Injectable()
export class LeverAuditService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly registry: MarketRegistry,
  ) {}

  async audit(positionId: string) {
    const p = await this.dataSource.getRepository(LeverPosition).findOne({ where: { id: positionId } });
    if (!p) throw new BusinessError(ErrorCode.LEVER_AUDIT_NOT_FOUND);
    if (p.status !== 'closed' || !p.openTickId || !p.closeTickId || p.openPrice === null || p.closePrice === null || p.pnl === null)
      throw new BusinessError(ErrorCode.LEVER_AUDIT_NOT_SETTLED);
    const rows: TickRow[] = await this.dataSource.query('SELECT id::text, price::text, ts FROM mark_prices WHERE id = ANY($1::bigint[])', [
      [p.openTickId, p.closeTickId],
    ]);
    const open = rows.find((r) => r.id === String(p.openTickId));
    const close = rows.find((r) => r.id === String(p.closeTickId));
    if (!open || !close) throw new BusinessError(ErrorCode.LEVER_AUDIT_NOT_SETTLED);
    // By id, as the watcher reads them (a tick's time is its sampling process's clock, which may be
    // behind another's after a take-over; ids are the order of record).
    const between: TickRow[] = await this.dataSource.query(
      `SELECT id::text, price::text, ts FROM mark_prices
        WHERE market_id = $1 AND id > $2::bigint AND id <= $3::bigint
        ORDER BY mark_prices.id LIMIT ${AUDIT_TICKS_MAX + 1}`,
      [p.marketId, p.openTickId, p.closeTickId],
    );
    // Tick prices are read from the recorded ticks, not from the position's copy.
    const t: PositionTerms = {
      side: p.side,
      lots: p.lots,
      lotValue: p.lotValue,
      multiple: p.multiple,
      openPrice: open.price,
      maintenanceRate: p.maintenanceRate,
    };
    const margin = marginOf(p.lots, p.lotValue, p.multiple);
    const pnl = settledPnl(t, close.price, margin);
    const recordedPnl = money(p.pnl);
    const trigger =
      p.closeReason === 'liquidation'
        ? isLiquidated(t, close.price)
        : p.closeReason === 'stop_loss'
          ? tpSlLive(p, close.id) && slHit(p.side, p.stopLoss, close.price)
          : p.closeReason === 'take_profit'
            ? tpSlLive(p, close.id) && tpHit(p.side, p.takeProfit, close.price)
            : true;
    return {
      position_id: p.id,
      symbol: this.registry.symbolOf(p.marketId),
      side: p.side,
      type: p.type,
      lots: p.lots,
      lot_value: moneyString(p.lotValue),
      multiple: p.multiple,
      maintenance_rate: moneyString(p.maintenanceRate),
      take_profit: moneyString(p.takeProfit),
      stop_loss: moneyString(p.stopLoss),
      tpsl_tick_id: p.tpslTickId,
      close_reason: p.closeReason,
      open_tick: tickView(open),
      close_tick: tickView(close),
      formula: LEVER_AUDIT_FORMULA,
      values: {
        notional: moneyString(notional(p.lots, p.lotValue)),
        margin: moneyString(margin),
        fee: moneyString(p.fee),
        maintenance_margin: moneyString(maintenanceOf(t)),
        liquidation_price: moneyString(liquidationPrice(t)),
        pnl: moneyString(pnl),
        credited: moneyString(margin.plus(pnl)),
        net: moneyString(pnl.minus(p.fee)),
      },
      result: {
        pnl: moneyString(recordedPnl),
        close_price: moneyString(p.closePrice),
        closed_at: p.closedAt ? new Date(p.closedAt).toISOString() : null,
      },
      checks: {
        open_price_is_tick: money(p.openPrice).eq(open.price),
        close_price_is_tick: money(p.closePrice).eq(close.price),
        pnl_recomputes: recordedPnl.eq(pnl),
        trigger_holds: trigger,
        margin_recorded: money(p.margin).eq(margin),
      },
      ticks: between.slice(0, AUDIT_TICKS_MAX).map(tickView),
      ticks_complete: between.length <= AUDIT_TICKS_MAX,
    };
  }
}

@ApiTags('contracts')
@Controller('lever')
export class LeverAuditController {
  constructor(private readonly audits: LeverAuditService) {}

  /** The recorded ticks, formula and result of one closed position (public: anyone can recompute). */
  @Get('audit')
  audit(@Query() q: LeverAuditDto) {
    return this.audits.audit(q.position_id);
  }
}
