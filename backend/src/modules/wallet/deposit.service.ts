import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { orConcurrentRetry } from '../../infra/database/sql';
import { EventStoreService } from '../../infra/event-store/event-store.service';
import { BusinessError } from '../../infra/http/business-error';
import { ErrorCode } from '../../infra/http/error-codes';
import type { Page } from '../../infra/http/page.dto';
import { moneyString } from '../../infra/money';
import { EngineBus } from '../engine/engine-bus';
import { OutboxRelay } from '../engine/outbox-relay.service';
import { coinLeg, systemLeg } from '../engine/trade-account-commands';
import { LedgerCode } from '../ledger/ledger-codes';
import { UserMessageService } from '../notice/user-message.service';
import { UploadService } from '../upload/upload.service';
import { positive } from './accounts.service';
import { Deposit } from './deposit.entity';
import type { AdminRecordQueryDto, DepositRequestDto, RecordQueryDto } from './dto/funding.dto';
import { FundingConfigService } from './funding-config.service';
import { decide, decidedBefore, records } from './review';

/**
 * Deposits (spec §5): the user pays to the operator-configured address of a chain and reports the
 * amount with a proof image; an operator checks it and approves (200 credits the trade account,
 * once) or rejects with a reason shown in charge_mention/log2.
 */
@Injectable()
export class DepositService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly outbox: OutboxRelay,
    private readonly funding: FundingConfigService,
    private readonly uploads: UploadService,
    private readonly messages: UserMessageService,
    private readonly bus: EngineBus,
    private readonly events: EventStoreService,
  ) {}

  /** wallet/get_in_address: the configured address, or a clear refusal (never an invented one). */
  async address(currencyId: number, chainName: string) {
    const { coin, chain } = await this.funding.chain(currencyId, chainName);
    if (!chain.depositAddress) throw new BusinessError(ErrorCode.DEPOSIT_ADDRESS_UNAVAILABLE, undefined, { coin: coin.symbol, chain: chain.chain });
    const chains = (await this.funding.chains(coin.id)).map((c) => ({ chain: c.chain, available: c.depositAddress !== '' }));
    return { currency_id: coin.id, symbol: coin.symbol, chain: chain.chain, address: chain.depositAddress, min_deposit: moneyString(coin.minDeposit), decimals: coin.displayDecimals, chains };
  }

  /** wallet/charge_req: a deposit record in review. */
  async request(userId: number, dto: DepositRequestDto): Promise<{ deposit_id: number; duplicate: boolean }> {
    // A retried client id answers its first deposit (also when the retry ran at the same time, below),
    // before the checks an operator can change meanwhile (the network's address, the minimum).
    const prior = async (m = this.dataSource.manager) => {
      const [row] = dto.client_id ? await m.query('SELECT id FROM deposits WHERE user_id = $1 AND client_id = $2', [userId, dto.client_id]) : [];
      return row ? { deposit_id: row.id as number, duplicate: true } : null;
    };
    const first = await prior();
    if (first) return first;
    const { coin, chain } = await this.funding.chain(dto.currency_id, dto.chain);
    if (!chain.depositAddress) throw new BusinessError(ErrorCode.DEPOSIT_ADDRESS_UNAVAILABLE, undefined, { coin: coin.symbol, chain: chain.chain });
    const amount = positive(dto.amount);
    // No more decimals than the coin has, as for a withdrawal: an approved deposit credits the amount reported, and a credit past the coin's decimals could never leave again.
    if (amount.decimalPlaces() > coin.displayDecimals) throw new BusinessError(ErrorCode.VALIDATION, 'error.amount_invalid');
    if (amount.lt(coin.minDeposit)) throw new BusinessError(ErrorCode.DEPOSIT_BELOW_MIN, undefined, { min: moneyString(coin.minDeposit), coin: coin.symbol });
    const create = async (m: EntityManager) => {
      // The image first (locked): the same report sent twice at once then finds its first here, once that commits.
      await this.uploads.lockProof(m, userId, dto.image_id);
      const earlier = await prior(m);
      if (earlier) return earlier;
      await this.uploads.refuseUsedProof(m, dto.image_id);
      const [row] = await m.query(
        `INSERT INTO deposits (user_id, currency_id, chain, address, amount, proof_upload_id, client_id) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
        [userId, coin.id, chain.chain, chain.depositAddress, moneyString(amount), dto.image_id, dto.client_id ?? null],
      );
      await this.events.append(m, { streamId: `deposit:${row.id}`, metadata: { actor: `user:${userId}` } }, [
        {
          type: 'DepositRequested',
          payload: { depositId: row.id, userId, currencyId: coin.id, chain: chain.chain, amount: moneyString(amount), proof: dto.image_id },
        },
      ]);
      return { deposit_id: row.id, duplicate: false };
    };
    return orConcurrentRetry(() => this.dataSource.transaction(create), prior);
  }

  async records(q: RecordQueryDto | AdminRecordQueryDto, userId?: number): Promise<Page<ReturnType<typeof recordView>>> {
    const coins = await this.funding.coinMap();
    return records(this.dataSource.getRepository(Deposit), q, userId, (r) => recordView(r, coins.get(r.currencyId)?.symbol ?? '', userId === undefined));
  }

  /**
   * Credits the reported amount once (200, from the external mirror account). The decision and
   * the credit command commit together (the outbox); the sequencer applies the credit, and the
   * answer waits for it so the owner's balance shows it at once: 2107 when it is not applied in
   * time (it will be, once a sequencer runs). The same approval again answers 2107 while its credit
   * is still on its way, then 2209 (approved once).
   */
  async approve(adminId: number, id: number, reason?: string) {
    const commandId = `deposit-approve:${id}`;
    const view = await this.dataSource
      .transaction(async (m) => {
        const d = await decide(m, 'deposits', this.dataSource.getRepository(Deposit), id, { status: 'passed', adminId, reason: reason ?? null });
        const amount = moneyString(d.amount);
        // The decision as an event (DESIGN §5), with the admin and the reason; the credit command carries them too.
        await this.events.append(m, { streamId: `deposit:${id}`, metadata: { actor: `admin:${adminId}`, reason } }, [
          { type: 'DepositApproved', payload: { depositId: id, userId: d.userId, currencyId: d.currencyId, amount } },
        ]);
        await this.outbox.enqueue(m, {
          commandId,
          refType: 'deposit',
          refId: String(id),
          actor: `admin:${adminId}`,
          reason,
          legs: [coinLeg(d.userId, d.currencyId, LedgerCode.DepositIncrease, amount), systemLeg('external', d.currencyId, LedgerCode.DepositIncrease, `-${amount}`)],
        });
        const coin = await this.funding.coin(d.currencyId, true);
        await this.messages.leave(m, d.userId, 'notice.deposit_approved', { amount, coin: coin.symbol }, `deposit:${id}`);
        return recordView(d, coin.symbol, true);
      })
      .catch((err: unknown) => decidedBefore(this.outbox, commandId, err));
    await this.outbox.appliedOrFail(commandId);
    return view;
  }

  /** Nothing is credited; the reason is kept for the user's deposit log. */
  async reject(adminId: number, id: number, reason: string) {
    const view = await this.dataSource.transaction(async (m) => {
      const d = await decide(m, 'deposits', this.dataSource.getRepository(Deposit), id, { status: 'rejected', adminId, reason });
      await this.events.append(m, { streamId: `deposit:${id}`, metadata: { actor: `admin:${adminId}`, reason } }, [
        { type: 'DepositRejected', payload: { depositId: id, userId: d.userId } },
      ]);
      const coin = await this.funding.coin(d.currencyId, true);
      await this.messages.leave(m, d.userId, 'notice.deposit_rejected', { amount: moneyString(d.amount), coin: coin.symbol, reason }, `deposit:${id}`);
      return recordView(d, coin.symbol, true);
    });
    // After the commit: the owner's screens show the new balance at once.
    this.bus.emit('balance', view.user_id as number);
    return view;
  }
}

function recordView(d: Deposit, symbol: string, forOperator: boolean) {
  return {
    id: d.id,
    ...(forOperator ? { user_id: d.userId, reviewed_by: d.reviewedBy } : {}),
    currency_id: d.currencyId,
    symbol,
    chain: d.chain,
    address: d.address,
    amount: moneyString(d.amount),
    fee: '0',
    actual_amount: d.status === 'passed' ? moneyString(d.amount) : '0',
    image_url: `/api/upload/${d.proofUploadId}`,
    status: d.status,
    // A rejection's reason is the user's; an approval's note is the operators' (docs/api.md).
    reason: forOperator || d.status === 'rejected' ? d.reason : null,
    created_at: new Date(d.createdAt).toISOString(),
    reviewed_at: d.reviewedAt ? new Date(d.reviewedAt).toISOString() : null,
  };
}
