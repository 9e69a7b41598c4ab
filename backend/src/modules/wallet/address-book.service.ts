import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { BusinessError } from '../../infra/http/business-error';
import { ErrorCode } from '../../infra/http/error-codes';
import { UserService } from '../user/user.service';
import { VerificationCodeService } from '../verification-code/verification-code.service';
import { isValidAddress } from './address-format';
import type { AddAddressDto } from './dto/funding.dto';
import { FundingConfigService } from './funding-config.service';
import { FundPasswordService } from './fund-password.service';
import { WithdrawAddress } from './withdraw-address.entity';

const MAX_ADDRESSES = 50;

export interface AddressView {
  id: number;
  currency_id: number;
  symbol: string;
  chain: string;
  address: string;
  remark: string;
  created_at: string;
}

/** The withdrawal address book (wallet/get_address, addaddress, deladdress). */
@Injectable()
export class AddressBookService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly users: UserService,
    private readonly codes: VerificationCodeService,
    private readonly fundPassword: FundPasswordService,
    private readonly funding: FundingConfigService,
  ) {}

  async list(userId: number, currencyId?: number): Promise<AddressView[]> {
    const rows = await this.dataSource.getRepository(WithdrawAddress).find({ where: { userId, ...(currencyId ? { currencyId } : {}) }, order: { id: 'DESC' } });
    const coins = await this.funding.coinMap();
    return rows.map((r) => view(r, coins.get(r.currencyId)?.symbol ?? ''));
  }

  /** Order of checks: fund password exists → chain → address format → password → code. */
  async add(userId: number, dto: AddAddressDto): Promise<AddressView> {
    const user = await this.users.findById(userId);
    this.fundPassword.requireSet(user.fundPasswordHash);
    const { coin, chain } = await this.funding.chain(dto.currency_id, dto.chain);
    const address = dto.address.trim();
    if (!isValidAddress(chain.chain, address)) throw new BusinessError(ErrorCode.ADDRESS_INVALID, undefined, { chain: chain.chain });
    await this.fundPassword.verify(userId, user.fundPasswordHash, dto.password);
    const codeId = await this.codes.check(this.users.ownCodeTarget(user, dto.channel).target, 'address', dto.code);
    return this.dataSource.transaction(async (m) => {
      // One writer per user: the count and the insert agree.
      await m.query('SELECT id FROM users WHERE id = $1 FOR UPDATE', [userId]);
      const [{ n }] = await m.query('SELECT COUNT(*)::int AS n FROM withdraw_addresses WHERE user_id = $1', [userId]);
      if (n >= MAX_ADDRESSES) throw new BusinessError(ErrorCode.ADDRESS_BOOK_FULL, undefined, { max: String(MAX_ADDRESSES) });
      const repo = m.getRepository(WithdrawAddress);
      const existing = await repo.findOne({ where: { userId, currencyId: coin.id, chain: chain.chain, address } });
      if (existing) throw new BusinessError(ErrorCode.ADDRESS_EXISTS);
      await this.codes.consume(m, codeId);
      const saved = await repo.save(repo.create({ userId, currencyId: coin.id, chain: chain.chain, address, remark: dto.remark?.trim() ?? '' }));
      return view(saved, coin.symbol);
    });
  }

  async remove(userId: number, id: number): Promise<void> {
    const res = await this.dataSource.getRepository(WithdrawAddress).delete({ id, userId });
    if (!res.affected) throw new BusinessError(ErrorCode.ADDRESS_NOT_FOUND);
  }

  /** The user's own entry, or "set the withdrawal address first". */
  async own(userId: number, id: number): Promise<WithdrawAddress> {
    const row = await this.dataSource.getRepository(WithdrawAddress).findOne({ where: { id, userId } });
    if (!row) throw new BusinessError(ErrorCode.ADDRESS_NOT_SET);
    return row;
  }
}

function view(r: WithdrawAddress, symbol: string): AddressView {
  return { id: r.id, currency_id: r.currencyId, symbol, chain: r.chain, address: r.address, remark: r.remark, created_at: new Date(r.createdAt).toISOString() };
}
