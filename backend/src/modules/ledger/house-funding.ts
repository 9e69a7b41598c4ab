import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsNotEmpty, IsString, Matches, Min } from 'class-validator';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { BusinessError } from '../../infra/http/business-error';
import { ErrorCode } from '../../infra/http/error-codes';
import { money, moneyString } from '../../infra/money';
import { coinOf } from '../reference/coins';
import { AMOUNT_RE, CLIENT_ID_RE } from '../wallet/dto/wallet.dto';
import { AccountType, LedgerCode, SYSTEM_OWNER_ID } from './ledger-codes';
import { LedgerService } from './ledger.service';
import { Optional, RequiredReason } from '../../infra/http/validation';

/** An operator's funding of a house account from outside: the lending pool, the treasury. */
export class HouseFundingDto {
  @ApiProperty()
  @RequiredReason()
  reason: string;

  @ApiProperty({ example: 3 })
  @IsNotEmpty()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  currency_id: number;

  @ApiProperty({ example: '1000000' })
  @IsNotEmpty({ message: 'error.amount_empty' })
  @IsString()
  @Matches(AMOUNT_RE, { message: 'error.amount_invalid' })
  amount: string;

  @ApiPropertyOptional({ description: 'Client-generated id: a retry funds once' })
  @Optional()
  @IsString()
  @Matches(CLIENT_ID_RE)
  client_id?: string;
}

/**
 * Brings money into a house account from outside as a recorded 900 posting (`external` → the
 * account) with the operator and the reason; a retried client id funds once (the id already used
 * for another amount or coin answers 1000 `client_id_reused`).
 */
export async function fundHouseAccount(
  ds: DataSource,
  ledger: LedgerService,
  adminId: number,
  accountType: Extract<AccountType, 'loan-pool' | 'treasury'>,
  memo: string,
  dto: HouseFundingDto,
): Promise<{ funding_id: string; duplicate: boolean }> {
  const coin = await coinOf(ds, dto.currency_id);
  const amount = money(dto.amount);
  if (amount.lte(0)) throw new BusinessError(ErrorCode.VALIDATION, 'error.amount_invalid');
  const id = dto.client_id ?? randomUUID();
  const a = moneyString(amount);
  const r = await ledger.post({
    commandId: `${accountType}-fund:${id}`,
    refType: accountType,
    refId: id,
    actor: `admin:${adminId}`,
    reason: dto.reason,
    memo,
    movements: [
      { ownerType: 'system', ownerId: SYSTEM_OWNER_ID, accountType: 'external', currencyId: coin.id, code: LedgerCode.SystemFunding, available: `-${a}` },
      { ownerType: 'system', ownerId: SYSTEM_OWNER_ID, accountType, currencyId: coin.id, code: LedgerCode.SystemFunding, available: a },
    ],
  });
  if (r.duplicate) {
    // A retry is the same funding; the id already used for another (amount, coin) is refused, nothing changed.
    const [prior]: Array<{ currency_id: number; a: string }> = await ds.query(
      `SELECT currency_id, available_delta::text AS a FROM ledger_entries WHERE ref_type = $1 AND ref_id = $2 AND account_type = $1`,
      [accountType, id],
    );
    if (!prior || prior.currency_id !== coin.id || !money(prior.a).eq(amount)) throw new BusinessError(ErrorCode.VALIDATION, 'error.client_id_reused');
  }
  return { funding_id: id, duplicate: r.duplicate };
}
