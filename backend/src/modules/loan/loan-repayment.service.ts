import { Injectable, Logger } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { orConcurrentRetry, updateReturning } from '../../infra/database/sql';
import { EventStoreService } from '../../infra/event-store/event-store.service';
import { alreadyDecided, BusinessError } from '../../infra/http/business-error';
import { ErrorCode } from '../../infra/http/error-codes';
import { money, Money, moneyString, truncate } from '../../infra/money';
import { EngineBus } from '../engine/engine-bus';
import { EngineHost } from '../engine/engine-host.service';
import type { Leg } from '../engine/sequencer/commands';
import { coinLeg, refusal, TradeAccountCommands } from '../engine/trade-account-commands';
import { LedgerCode, SYSTEM_OWNER_ID } from '../ledger/ledger-codes';
import { LedgerService, Movement } from '../ledger/ledger.service';
import { UserMessageService } from '../notice/user-message.service';
import { Coin } from '../reference/coin.entity';
import { UploadService } from '../upload/upload.service';
import type { LoanRepayDto, LoanRepayProofDto } from './loan.dto';
import { LoanOrder } from './loan-order.entity';
import { LoanRepayment } from './loan-repayment.entity';
import { splitRepayment } from './loan-terms';
import { coinOf } from '../reference/coins';
import { poolLeg, REPAYABLE, repaymentView } from './loan-views';

/** The amount as a positive value with at most the coin's decimals (remaining amounts have that precision). */
export function loanAmount(raw: string, coin: Pick<Coin, 'displayDecimals'>): Money {
  const v = money(raw);
  if (v.lte(0) || !v.eq(truncate(v, coin.displayDecimals))) throw new BusinessError(ErrorCode.VALIDATION, 'error.amount_invalid');
  return v;
}

/**
 * The earlier repayment of a client id, when this request is its retry (the same loan, kind and
 * amount); a client id already used for another repayment is refused (1000), nothing changed.
 */
function sameRequest(prior: LoanRepayment, dto: LoanRepayDto, kind: LoanRepayment['kind']): LoanRepayment {
  if (prior.orderId !== String(dto.order_id) || prior.kind !== kind || !money(prior.amount).eq(dto.amount))
    throw new BusinessError(ErrorCode.VALIDATION, 'error.client_id_reused');
  return prior;
}

/**
 * Repayments. From the balance (borrow/order/back), an exactly-once pair of the loan row and a
 * sequencer command: (1) reserve under the row lock (`pending += amount`, the interest-first
 * split fixed, a `pending` repayment row), (2) the posting user trade account → pool (801 for the
 * interest part, 800 for the principal; command id `loan-repay:<id>`), (3) finish from its answer
 * (done: remaining reduced; refused: the reservation released). By transfer (borrow/back/apply):
 * reserved the same way and decided by an operator; an approval books external → pool in the
 * same transaction as the loan row.
 */
@Injectable()
export class LoanRepaymentService {
  private readonly logger = new Logger('LoanRepayment');

  constructor(
    private readonly dataSource: DataSource,
    private readonly ledger: LedgerService,
    private readonly trading: TradeAccountCommands,
    private readonly host: EngineHost,
    private readonly uploads: UploadService,
    private readonly events: EventStoreService,
    private readonly messages: UserMessageService,
    private readonly bus: EngineBus,
  ) {}

  /** borrow/order/back: repay (part of) a loan from the trade account. */
  async repay(userId: number, dto: LoanRepayDto) {
    const { rep, earlier } = await this.reserve(userId, dto, 'balance');
    if (earlier) {
      // A retried client id answers as its first repayment did, resuming it if a crash left it pending:
      // one the balance could not cover is refused again (nothing was repaid), never "successful".
      if (rep.status === 'pending') await this.settle(rep).catch(() => undefined);
      const first = await this.view(rep.id, true);
      if (first.status === 'failed') throw refusal('INSUFFICIENT_BALANCE');
      // Still pending: the sequencer's answer is unknown yet (the resume job finishes it); never "successful" before it is.
      if (first.status === 'pending') throw new BusinessError(ErrorCode.ENGINE_UNKNOWN);
      return first;
    }
    await this.settle(rep);
    return this.view(rep.id, false);
  }

  /** borrow/back/apply: an external transfer to the repayment address, with its image, for review. */
  async applyProof(userId: number, dto: LoanRepayProofDto) {
    const { rep, earlier } = await this.reserve(userId, dto, 'transfer');
    return this.view(rep.id, earlier);
  }

  private async reserve(
    userId: number,
    dto: LoanRepayDto & { image_id?: string },
    kind: LoanRepayment['kind'],
  ): Promise<{ rep: LoanRepayment; earlier: boolean }> {
    // Unique per user, not per loan: a request with the same client id on another loan (holding that
    // loan's lock, not this one's) may insert first; the index refuses this one, which is then
    // answered from that row (as a retry when it is this same request, else refused as taken).
    const prior = async () => {
      const p = dto.client_id ? await this.dataSource.getRepository(LoanRepayment).findOne({ where: { userId, clientId: dto.client_id } }) : null;
      return p ? { rep: sameRequest(p, dto, kind), earlier: true } : null;
    };
    return orConcurrentRetry(() => this.dataSource.transaction((m) => this.reserveIn(m, userId, dto, kind)), prior);
  }

  /** One transaction under the loan's row lock: the earlier repayment of the client id, or a new reservation. */
  private async reserveIn(
    m: EntityManager,
    userId: number,
    dto: LoanRepayDto & { image_id?: string },
    kind: LoanRepayment['kind'],
  ): Promise<{ rep: LoanRepayment; earlier: boolean }> {
    const o = await m.getRepository(LoanOrder).findOne({ where: { id: String(dto.order_id), userId }, lock: { mode: 'pessimistic_write' } });
    if (!o) throw new BusinessError(ErrorCode.LOAN_NOT_FOUND);
    // A retried client id (a retry sends the same loan): its first repayment. Looked up under the
    // loan's lock, so a retry sent at the same moment waits for the first and finds it; inserting
    // beside it instead would wait on the first's settlement, which waits for this lock (a deadlock).
    // The id is the user's (the unique index): used before for another loan, amount or kind, it is refused.
    const prior = dto.client_id ? await m.getRepository(LoanRepayment).findOne({ where: { userId, clientId: dto.client_id } }) : null;
    if (prior) return { rep: sameRequest(prior, dto, kind), earlier: true };
    if (!REPAYABLE.includes(o.status)) throw new BusinessError(ErrorCode.LOAN_NOT_REPAYABLE);
    const coin = await m.getRepository(Coin).findOneOrFail({ where: { id: o.currencyId } });
    const amount = loanAmount(dto.amount, coin);
    const free = money(o.remaining).minus(o.pending);
    if (amount.gt(free)) throw new BusinessError(ErrorCode.LOAN_REPAY_EXCEEDS, undefined, { remaining: truncate(free, coin.displayDecimals) });
    if (kind === 'transfer') await this.uploads.claimProof(m, userId, dto.image_id!);
    // From the balance the split is fixed now (the command must be the same on a resend); a proof's at its approval.
    const split =
      kind === 'balance' ? splitRepayment(moneyString(amount), moneyString(money(o.interest).minus(o.interestPaid))) : { interest: '0', principal: '0' };
    const rep = await m.getRepository(LoanRepayment).save(
      m.getRepository(LoanRepayment).create({
        orderId: o.id,
        userId,
        currencyId: o.currencyId,
        kind,
        amount: moneyString(amount),
        interestPart: split.interest,
        principalPart: split.principal,
        image: kind === 'transfer' ? dto.image_id! : null,
        status: kind === 'balance' ? 'pending' : 'review',
        clientId: dto.client_id ?? null,
      }),
    );
    await m.query('UPDATE loan_orders SET pending = pending + $2, interest_paid = interest_paid + $3 WHERE id = $1', [
      o.id,
      moneyString(amount),
      split.interest,
    ]);
    await this.events.append(m, { streamId: `loan:${o.id}`, metadata: { actor: `user:${userId}` } }, [
      {
        type: kind === 'balance' ? 'LoanRepaymentStarted' : 'LoanRepaymentReported',
        payload: { loanId: o.id, repaymentId: rep.id, amount: moneyString(amount), image: rep.image },
      },
    ]);
    return { rep, earlier: false };
  }

  /** Step 2 and 3 of a balance repayment (also a resume: same command id). */
  private async settle(rep: LoanRepayment): Promise<void> {
    const legs: Leg[] = [];
    if (money(rep.interestPart).gt(0))
      legs.push(coinLeg(rep.userId, rep.currencyId, LedgerCode.LoanFee, `-${rep.interestPart}`), poolLeg(rep.currencyId, LedgerCode.LoanFee, rep.interestPart));
    if (money(rep.principalPart).gt(0))
      legs.push(
        coinLeg(rep.userId, rep.currencyId, LedgerCode.LoanDeduction, `-${rep.principalPart}`),
        poolLeg(rep.currencyId, LedgerCode.LoanDeduction, rep.principalPart),
      );
    const r = await this.trading.post({
      commandId: `loan-repay:${rep.id}`,
      refType: 'loan-repayment',
      refId: rep.id,
      actor: `user:${rep.userId}`,
      memo: `loan ${rep.orderId}`,
      legs,
    });
    await this.finishBalance(rep, r.code === 'OK');
    if (r.code !== 'OK') throw refusal(r.code);
    await this.trading.settled(rep.userId);
    this.bus.emit('balance', rep.userId);
  }

  private async finishBalance(rep: LoanRepayment, ok: boolean): Promise<void> {
    await this.dataSource.transaction(async (m) => {
      const rows = await updateReturning(m, `UPDATE loan_repayments SET status = $2 WHERE id = $1 AND status = 'pending' RETURNING id`, [
        rep.id,
        ok ? 'done' : 'failed',
      ]);
      if (!rows.length) return;
      if (ok) await this.reduce(m, rep.orderId, rep.amount, '0', `user:${rep.userId}`, rep.id);
      else {
        await m.query('UPDATE loan_orders SET pending = pending - $2, interest_paid = interest_paid - $3 WHERE id = $1', [
          rep.orderId,
          rep.amount,
          rep.interestPart,
        ]);
        await this.events.append(m, { streamId: `loan:${rep.orderId}`, metadata: { actor: `user:${rep.userId}` } }, [
          { type: 'LoanRepaymentFailed', payload: { loanId: rep.orderId, repaymentId: rep.id } },
        ]);
      }
    });
  }

  /** A repayment is done: remaining and pending go down by it; the loan becomes repaying or repaid (overdue stays until repaid). */
  private async reduce(m: EntityManager, orderId: string, amount: string, interestAdded: string, actor: string, repaymentId: string): Promise<LoanOrder> {
    const [o] = await updateReturning<{ id: string }>(
      m,
      `UPDATE loan_orders SET remaining = remaining - $2, pending = pending - $2, interest_paid = interest_paid + $3,
         status = CASE WHEN remaining - $2 = 0 THEN 'repaid' WHEN status = 'approved' THEN 'repaying' ELSE status END,
         repaid_at = CASE WHEN remaining - $2 = 0 THEN now() ELSE repaid_at END
       WHERE id = $1 RETURNING id`,
      [orderId, amount, interestAdded],
    );
    const after = await m.getRepository(LoanOrder).findOneByOrFail({ id: o.id });
    await this.events.append(m, { streamId: `loan:${orderId}`, metadata: { actor } }, [
      {
        type: after.status === 'repaid' ? 'LoanRepaid' : 'LoanRepaymentDone',
        payload: { loanId: orderId, repaymentId, amount, remaining: moneyString(after.remaining) },
      },
    ]);
    return after;
  }

  /** Operator: a reported transfer arrived; the pool receives it from outside (external → pool, 801/800). */
  async approveProof(adminId: number, id: string, reason?: string) {
    const rep = await this.find(id);
    const coin = await coinOf(this.dataSource, rep.currencyId);
    await this.dataSource.transaction(async (m) => {
      const rows = await updateReturning(
        m,
        `UPDATE loan_repayments SET status = 'approved', reviewed_by = $2, reviewed_at = now(), reason = $3 WHERE id = $1 AND status = 'review' RETURNING id`,
        [id, adminId, reason ?? null],
      );
      if (!rows.length) throw alreadyDecided(ErrorCode.ALREADY_DECIDED, await m.getRepository(LoanRepayment).findOneByOrFail({ id }));
      const o = await m.getRepository(LoanOrder).findOneOrFail({ where: { id: rep.orderId }, lock: { mode: 'pessimistic_write' } });
      const split = splitRepayment(moneyString(rep.amount), moneyString(money(o.interest).minus(o.interestPaid)));
      await m.query('UPDATE loan_repayments SET interest_part = $2, principal_part = $3 WHERE id = $1', [id, split.interest, split.principal]);
      const movements: Movement[] = [];
      const external = (code: LedgerCode, v: string): Movement => ({
        ownerType: 'system',
        ownerId: SYSTEM_OWNER_ID,
        accountType: 'external',
        currencyId: rep.currencyId,
        code,
        available: `-${v}`,
      });
      if (money(split.interest).gt(0))
        movements.push(external(LedgerCode.LoanFee, split.interest), poolLeg(rep.currencyId, LedgerCode.LoanFee, split.interest));
      if (money(split.principal).gt(0))
        movements.push(external(LedgerCode.LoanDeduction, split.principal), poolLeg(rep.currencyId, LedgerCode.LoanDeduction, split.principal));
      await this.ledger.post(
        { commandId: `loan-proof:${id}`, refType: 'loan-repayment', refId: id, actor: `admin:${adminId}`, reason, memo: `loan ${o.id} transfer`, movements },
        m,
      );
      const after = await this.reduce(m, o.id, moneyString(rep.amount), split.interest, `admin:${adminId}`, id);
      await this.messages.leave(
        m,
        rep.userId,
        'notice.loan_repayment_approved',
        { amount: moneyString(rep.amount), coin: coin.symbol, remaining: truncate(after.remaining, coin.displayDecimals) },
        `loan:${o.id}`,
      );
    });
    this.bus.emit('balance', rep.userId);
    return this.view(id, false, true);
  }

  async rejectProof(adminId: number, id: string, reason: string) {
    const rep = await this.find(id);
    const coin = await coinOf(this.dataSource, rep.currencyId);
    await this.dataSource.transaction(async (m) => {
      const rows = await updateReturning(
        m,
        `UPDATE loan_repayments SET status = 'rejected', reviewed_by = $2, reviewed_at = now(), reason = $3 WHERE id = $1 AND status = 'review' RETURNING id`,
        [id, adminId, reason],
      );
      if (!rows.length) throw alreadyDecided(ErrorCode.ALREADY_DECIDED, await m.getRepository(LoanRepayment).findOneByOrFail({ id }));
      await m.query('UPDATE loan_orders SET pending = pending - $2 WHERE id = $1', [rep.orderId, rep.amount]);
      await this.events.append(m, { streamId: `loan:${rep.orderId}`, metadata: { actor: `admin:${adminId}`, reason } }, [
        { type: 'LoanRepaymentRejected', payload: { loanId: rep.orderId, repaymentId: id } },
      ]);
      await this.messages.leave(
        m,
        rep.userId,
        'notice.loan_repayment_rejected',
        { amount: moneyString(rep.amount), coin: coin.symbol, reason },
        `loan:${rep.orderId}`,
      );
    });
    return this.view(id, false, true);
  }

  /**
   * Balance repayments left `pending` by a crash: the ledger says whether the sequencer applied the
   * posting (after the projector caught up); if so it is finished as done, otherwise resent with its id.
   */
  async resume(olderThanMs = 10_000): Promise<number> {
    const rows = await this.dataSource
      .getRepository(LoanRepayment)
      .createQueryBuilder('r')
      .where(`r.status = 'pending' AND r.created_at < now() - make_interval(secs => :s)`, { s: olderThanMs / 1000 })
      .orderBy('r.id')
      .getMany();
    if (!rows.length) return 0;
    await this.host.idle();
    for (const rep of rows) {
      const [applied] = await this.dataSource.query(
        `SELECT 1 FROM ledger_entries WHERE owner_type = 'user' AND owner_id = $1 AND currency_id = $2 AND ref_type = 'loan-repayment' AND ref_id = $3 LIMIT 1`,
        [rep.userId, rep.currencyId, rep.id],
      );
      if (applied) await this.finishBalance(rep, true);
      else await this.settle(rep).catch((err: unknown) => this.logger.warn(`repayment ${rep.id}: ${err instanceof Error ? err.message : String(err)}`));
    }
    return rows.length;
  }

  private async find(id: string): Promise<LoanRepayment> {
    const r = /^\d{1,18}$/.test(id) ? await this.dataSource.getRepository(LoanRepayment).findOne({ where: { id } }) : null;
    if (!r) throw new BusinessError(ErrorCode.LOAN_REPAYMENT_NOT_FOUND);
    return r;
  }

  private async view(id: string, duplicate: boolean, forOperator = false) {
    const r = await this.find(id);
    const coin = await coinOf(this.dataSource, r.currencyId);
    const [o] = await this.dataSource.query('SELECT remaining::text, status FROM loan_orders WHERE id = $1', [r.orderId]);
    return {
      ...repaymentView(r, coin, forOperator),
      remaining: truncate(o.remaining, coin.displayDecimals),
      loan_status: o.status === 'disbursing' ? 'approving' : o.status,
      duplicate,
    };
  }
}
