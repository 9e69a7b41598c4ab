import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { BusinessError } from '../../infra/http/business-error';
import { ErrorCode } from '../../infra/http/error-codes';
import { units } from '../../infra/money';
import { EngineHost } from './engine-host.service';
import { accountKey, userCoin } from './sequencer/balances';
import type { AccountKey, Leg, PlaceCmd, PostCmd, SeqCode, SeqOutcome } from './sequencer/commands';
import { empty as emptyOutcome } from './sequencer/sequencer';

/** Legs for postings (amounts are decimal strings; negative = out). */
export const coinLeg = (userId: number, currencyId: number, code: number, available: string, frozen = '0'): Leg => ({
  ownerType: 'user',
  ownerId: userId,
  accountType: 'coin',
  currencyId,
  code,
  available,
  frozen,
});
export const systemLeg = (accountType: string, currencyId: number, code: number, available: string, frozen = '0'): Leg => ({
  ownerType: 'system',
  ownerId: 0,
  accountType,
  currencyId,
  code,
  available,
  frozen,
});

export type Posting = Omit<PostCmd, 't'>;

/** The business error for a refused trade-account command. */
export function refusal(code: SeqCode): BusinessError {
  switch (code) {
    case 'INSUFFICIENT_BALANCE':
      return new BusinessError(ErrorCode.INSUFFICIENT_BALANCE);
    case 'SELLABLE_INSUFFICIENT':
      return new BusinessError(ErrorCode.SELLABLE_INSUFFICIENT);
    case 'ORDER_NOT_FOUND':
      return new BusinessError(ErrorCode.ORDER_NOT_FOUND);
    case 'ORDER_CLOSED':
      return new BusinessError(ErrorCode.ORDER_CLOSED);
    case 'MARKET_UNKNOWN':
      return new BusinessError(ErrorCode.MARKET_NOT_FOUND);
    case 'INVALID_ORDER':
      return new BusinessError(ErrorCode.PRICE_INVALID);
    case 'EXPIRED':
      // The only posts with a deadline are flash conversions (their quote's end).
      return new BusinessError(ErrorCode.QUOTE_EXPIRED);
    case 'UNSTORABLE':
      // A reference the ledger cannot store (a client id too long for it): nothing happened.
      return new BusinessError(ErrorCode.VALIDATION);
    default:
      // UNBALANCED / UNOWNED_DEBIT: a posting built wrong by our own code, never a client's input.
      throw new Error(`trade-account command refused: ${code}`);
  }
}

/**
 * The one way into a trade (`coin`) account (DESIGN §4, "Spot core v2"): orders, cancels and
 * every money movement that touches a trade account or the sequencer's house accounts (spot
 * fees, the flash-exchange desk) go to the sequencer through here. Nothing else posts to them:
 * the ledger service refuses and the database guard backs it.
 */
@Injectable()
export class TradeAccountCommands {
  constructor(
    private readonly host: EngineHost,
    private readonly dataSource: DataSource,
  ) {}

  place(cmd: PlaceCmd): Promise<SeqOutcome> {
    return this.host.submit(cmd);
  }

  cancel(userId: number, orderId: number): Promise<SeqOutcome> {
    return this.host.submit({ t: 'cancel', userId, orderId });
  }

  /**
   * A balanced posting whose legs on trade or house accounts the sequencer checks and applies
   * (all or none); its other legs (database accounts) may only receive money, or come from
   * `external` / `transit`. Idempotent by `commandId`: the sequencer remembers ids for its window
   * (24 h or 1,000,000 commands); one applied before that is found in `sequencer_commands`
   * (the projector writes it with its batch) and answered as a retry, without moving money again.
   */
  async post(p: Posting): Promise<SeqOutcome> {
    if (await this.applied(p.commandId)) return { ...emptyOutcome('OK'), duplicate: true };
    return this.host.submit({ t: 'post', ...p });
  }

  /** Whether a posting command was applied, as projected (`sequencer_commands`: wait for `settled` first to see a recent one). */
  async applied(commandId: string): Promise<boolean> {
    const [row] = await this.dataSource.query('SELECT 1 FROM sequencer_commands WHERE command_id = $1', [commandId]);
    return row !== undefined;
  }

  /** As `post`, and a refusal becomes its business error. */
  async postOrFail(p: Posting): Promise<SeqOutcome> {
    const r = await this.post(p);
    if (r.code !== 'OK') throw refusal(r.code);
    return r;
  }

  /** A balance the sequencer holds, as of now (not yet projected). */
  balance(k: AccountKey): { available: bigint; frozen: bigint } {
    return this.host.balance(accountKey(k)) ?? { available: 0n, frozen: 0n };
  }

  coinBalance(userId: number, currencyId: number): { available: bigint; frozen: bigint } {
    return this.host.balance(userCoin(userId, currencyId)) ?? { available: 0n, frozen: 0n };
  }

  /**
   * A quick refusal before anything is written: true when this process runs the sequencer and sees
   * the balance below `amount`. A process without the sequencer (ROLE=api) holds no balances in
   * memory, so it answers false and the sequencer's own check, when the command arrives, decides.
   */
  clearlyShort(userId: number, currencyId: number, amount: bigint): boolean {
    return this.host.owner && this.coinBalance(userId, currencyId).available < amount;
  }

  /**
   * The same quick refusal where a request would otherwise hold something for others while the
   * sequencer decides (an NFT's reservation): a process without the sequencer reads the projected
   * balance instead, once this user's own commands through it are projected. That figure may lag
   * a credit made through another process by the projector's lag (a refusal a retry clears); the
   * sequencer's check still decides every payment.
   */
  async shortBeforeHolding(userId: number, currencyId: number, amount: bigint): Promise<boolean> {
    if (this.host.owner) return this.clearlyShort(userId, currencyId, amount);
    await this.settled(userId);
    const [row]: Array<{ available: string }> = await this.dataSource.query(
      `SELECT available::text FROM balances WHERE owner_type = 'user' AND owner_id = $1 AND account_type = 'coin' AND currency_id = $2`,
      [userId, currencyId],
    );
    return units(row?.available ?? '0') < amount;
  }

  /** The owner of an order this process saw leave its book, if it remembers it. */
  ownerOfClosed(orderId: number): number | undefined {
    return this.host.ownerOfClosed(orderId);
  }

  /** Waits until everything journaled for this user is in the read tables. */
  async settled(userId: number): Promise<void> {
    await this.host.settledFor(userId);
  }
}
