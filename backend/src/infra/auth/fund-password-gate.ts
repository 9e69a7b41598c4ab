import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { BusinessError } from '../http/business-error';
import { ErrorCode } from '../http/error-codes';

/**
 * Spec §6: "A fund password is required before withdrawal, address binding and trading." The
 * trading routes (spot orders, contract positions, option orders, flash-exchange quotes) ask `require` first: 2100
 * "Set the fund password first for fund safety" for a user without one. A fund password, once
 * set, can be changed but never removed, so a user found to have one is remembered and costs no
 * read again (`known`: the spot order path asks it without an await).
 */
@Injectable()
export class FundPasswordGate {
  private readonly withFundPassword = new Set<number>();

  constructor(private readonly dataSource: DataSource) {}

  /** Whether this user is known to have a fund password (no read). */
  known(userId: number): boolean {
    return this.withFundPassword.has(userId);
  }

  /** 2100 unless the user has a fund password. */
  async require(userId: number): Promise<void> {
    if (this.withFundPassword.has(userId)) return;
    const [user] = await this.dataSource.query('SELECT fund_password_hash IS NOT NULL AS has FROM users WHERE id = $1', [userId]);
    if (!user?.has) throw new BusinessError(ErrorCode.FUND_PASSWORD_NOT_SET);
    if (this.withFundPassword.size > 100_000) this.withFundPassword.clear();
    this.withFundPassword.add(userId);
  }
}
