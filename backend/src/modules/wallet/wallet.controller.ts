import { Body, Controller, Get, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Auth, AuthContext, UserAuth } from '../../infra/auth/guards';
import { Reply } from '../../infra/http/envelope';
import { PageQueryDto } from '../../infra/http/page.dto';
import { RequestLang } from '../../infra/http/request-context';
import { Lang } from '../../infra/i18n/catalogue';
import { UserService } from '../user/user.service';
import { AccountsService } from './accounts.service';
import { AddressBookService } from './address-book.service';
import { DepositService } from './deposit.service';
import { AddAddressDto, AddressIdDto, AddressListDto, CurrencyChainDto, CurrencyDto, DepositRequestDto, RecordQueryDto, WithdrawDto } from './dto/funding.dto';
import { CurChangeDto, TransferDto, WalletDetailDto, WalletListDto, WalletLogDto } from './dto/wallet.dto';
import { FundingConfigService } from './funding-config.service';
import { WithdrawalService } from './withdrawal.service';

/** The spec's wallet/*, charge_mention/* and currency/user_currency_list calls. Rules live in the services. */
@ApiTags('wallet')
@Controller()
@UserAuth()
export class WalletController {
  constructor(
    private readonly accounts: AccountsService,
    private readonly deposits: DepositService,
    private readonly withdrawals: WithdrawalService,
    private readonly addresses: AddressBookService,
    private readonly funding: FundingConfigService,
    private readonly users: UserService,
  ) {}

  @Post('wallet/list')
  list(@Auth() auth: AuthContext, @Body() dto: WalletListDto) {
    return this.accounts.list(auth.subjectId, dto.pricing);
  }

  @Post('wallet/detail')
  detail(@Auth() auth: AuthContext, @Body() dto: WalletDetailDto, @RequestLang() lang: Lang) {
    return this.accounts.detail(auth.subjectId, dto.account, dto.currency_id, dto.page, lang);
  }

  /** What the wallet screens may offer this user right now. */
  @Post('wallet/status')
  async status(@Auth() auth: AuthContext) {
    const user = await this.users.findById(auth.subjectId);
    const chains = await this.funding.chains();
    return {
      has_fund_password: user.fundPasswordHash !== null,
      verification_level: user.verificationLevel,
      can_withdraw: user.fundPasswordHash !== null && user.verificationLevel >= 1,
      deposit_chains: chains.filter((c) => c.depositAddress !== '').map((c) => ({ currency_id: c.currencyId, chain: c.chain })),
      address_count: (await this.addresses.list(auth.subjectId)).length,
    };
  }

  @Get('wallet/log')
  log(@Auth() auth: AuthContext, @Query() q: WalletLogDto, @RequestLang() lang: Lang) {
    return this.accounts.log(auth.subjectId, q, lang);
  }

  /** Transfers between the user's accounts. */
  @Get('wallet/history')
  history(@Auth() auth: AuthContext, @Query() q: PageQueryDto) {
    return this.accounts.transfers(auth.subjectId, q.page, q.limit);
  }

  /** Coins with the user's trade-account balance and each coin's funding rules (pickers). */
  @Get('currency/user_currency_list')
  async currencies(@Auth() auth: AuthContext) {
    const [overview, wallet] = await Promise.all([this.funding.overview(), this.accounts.list(auth.subjectId)]);
    const coin = wallet.accounts.find((a) => a.account === 'coin')!;
    return overview
      .filter((c) => c.enabled)
      .map((c) => {
        const b = coin.items.find((i) => i.currency_id === c.currency_id);
        return {
          currency_id: c.currency_id,
          symbol: c.symbol,
          available: b?.available ?? '0',
          frozen: b?.frozen ?? '0',
          min_deposit: c.min_deposit,
          min_withdraw: c.min_withdraw,
          withdraw_fee: c.withdraw_fee,
          chains: c.chains.filter((x) => x.enabled).map((x) => ({ chain: x.chain, deposit_available: x.deposit_address !== '' })),
        };
      });
  }

  @Post('wallet/curChange')
  transferOptions(@Auth() auth: AuthContext, @Body() dto: CurChangeDto) {
    return this.accounts.transferOptions(auth.subjectId, dto.currency_id);
  }

  @Post('wallet/change')
  async transfer(@Auth() auth: AuthContext, @Body() dto: TransferDto) {
    return new Reply(await this.accounts.transfer(auth.subjectId, dto), 'msg.transfer_done');
  }

  @Post('wallet/get_in_address')
  depositAddress(@Body() dto: CurrencyChainDto) {
    return this.deposits.address(dto.currency_id, dto.chain);
  }

  @Post('wallet/charge_req')
  async deposit(@Auth() auth: AuthContext, @Body() dto: DepositRequestDto) {
    return new Reply(await this.deposits.request(auth.subjectId, dto), 'msg.submit_success');
  }

  @Get('charge_mention/log2')
  depositLog(@Auth() auth: AuthContext, @Query() q: RecordQueryDto) {
    return this.deposits.records(q, auth.subjectId);
  }

  @Post('wallet/get_info')
  withdrawInfo(@Auth() auth: AuthContext, @Body() dto: CurrencyDto) {
    return this.withdrawals.info(auth.subjectId, dto.currency_id);
  }

  @Post('wallet/out')
  async withdraw(@Auth() auth: AuthContext, @Body() dto: WithdrawDto) {
    return new Reply(await this.withdrawals.request(auth.subjectId, dto), 'msg.withdraw_submitted');
  }

  @Get('charge_mention/log3')
  withdrawLog(@Auth() auth: AuthContext, @Query() q: RecordQueryDto) {
    return this.withdrawals.records(q, auth.subjectId);
  }

  @Post('wallet/get_address')
  addressBook(@Auth() auth: AuthContext, @Body() dto: AddressListDto) {
    return this.addresses.list(auth.subjectId, dto.currency_id);
  }

  @Post('wallet/addaddress')
  async addAddress(@Auth() auth: AuthContext, @Body() dto: AddAddressDto) {
    return new Reply(await this.addresses.add(auth.subjectId, dto), 'msg.bind_success');
  }

  @Post('wallet/deladdress')
  async deleteAddress(@Auth() auth: AuthContext, @Body() dto: AddressIdDto) {
    await this.addresses.remove(auth.subjectId, dto.id);
    return new Reply(null, 'msg.deleted');
  }
}
