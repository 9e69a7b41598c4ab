import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { BALANCE_OR_NULL, MONEY } from '../../infra/database/columns';

/**
 * A fill, keyed by the engine's per-market trade id (the settlement idempotency key). It also holds
 * its ledger posting (the view `ledger` shows its 600/601/602 legs): the place of the posting in
 * the ledger's order and each side's two accounts' balances after it (migration CompactTradeLedger).
 */
@Entity('trades')
@Index('ix_trades_ledger', ['ledgerId'])
@Index('ix_trades_maker_ledger', ['makerUserId', 'ledgerId'])
@Index('ix_trades_taker_ledger', ['takerUserId', 'ledgerId'])
export class Trade {
  @PrimaryColumn({ name: 'market_id', type: 'int' })
  marketId: number;

  @PrimaryColumn({ name: 'trade_id', type: 'bigint' })
  tradeId: string;

  @Column({ type: 'numeric', precision: 36, scale: 18 })
  price: string;

  @Column({ type: 'numeric', precision: 36, scale: 18 })
  quantity: string;

  @Column({ name: 'quote_quantity', type: 'numeric', precision: 36, scale: 18 })
  quoteQuantity: string;

  @Column({ name: 'taker_side', type: 'varchar', length: 4 })
  takerSide: 'buy' | 'sell';

  @Column({ name: 'maker_order_id', type: 'bigint' })
  makerOrderId: string;

  @Column({ name: 'taker_order_id', type: 'bigint' })
  takerOrderId: string;

  @Column({ name: 'maker_user_id', type: 'int' })
  makerUserId: number;

  @Column({ name: 'taker_user_id', type: 'int' })
  takerUserId: number;

  @Column({ ...MONEY, name: 'maker_fee' })
  makerFee: string;

  @Column({ ...MONEY, name: 'taker_fee' })
  takerFee: string;

  @Column({ name: 'executed_at', type: 'timestamptz' })
  executedAt: Date;

  /** The posting's first ledger id (its legs are `ledger_id + 0…5`); null for trades projected before the view. */
  @Column({ name: 'ledger_id', type: 'bigint', nullable: true })
  ledgerId: string | null;

  /** The journal batch that made it. */
  @Column({ name: 'event_seq', type: 'bigint', nullable: true })
  eventSeq: string | null;

  /** The market's currencies when it traded (its legs' currencies: a later change to the market rewrites no ledger). */
  @Column({ name: 'base_currency_id', type: 'int', nullable: true })
  baseCurrencyId: number | null;

  @Column({ name: 'quote_currency_id', type: 'int', nullable: true })
  quoteCurrencyId: number | null;

  // Each side's accounts after the trade: the currency it paid (from frozen) and the one it received (after its fee). Unbounded, as balances.
  @Column({ ...BALANCE_OR_NULL, name: 'maker_pay_available_after' })
  makerPayAvailableAfter: string | null;

  @Column({ ...BALANCE_OR_NULL, name: 'maker_pay_frozen_after' })
  makerPayFrozenAfter: string | null;

  @Column({ ...BALANCE_OR_NULL, name: 'maker_receive_available_after' })
  makerReceiveAvailableAfter: string | null;

  @Column({ ...BALANCE_OR_NULL, name: 'maker_receive_frozen_after' })
  makerReceiveFrozenAfter: string | null;

  @Column({ ...BALANCE_OR_NULL, name: 'taker_pay_available_after' })
  takerPayAvailableAfter: string | null;

  @Column({ ...BALANCE_OR_NULL, name: 'taker_pay_frozen_after' })
  takerPayFrozenAfter: string | null;

  @Column({ ...BALANCE_OR_NULL, name: 'taker_receive_available_after' })
  takerReceiveAvailableAfter: string | null;

  @Column({ ...BALANCE_OR_NULL, name: 'taker_receive_frozen_after' })
  takerReceiveFrozenAfter: string | null;
}
