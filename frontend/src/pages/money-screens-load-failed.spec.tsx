import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderAt } from '../../test/render';
import { ApiError } from '../api/client';
import { walletApi, type TransferOptions, type UserCurrency, type WalletList, type WithdrawInfo } from '../api/wallet';
import { PATHS } from '../app/paths';
import { AssetsPage } from './assets/index/assets.page';
import { DepositPage } from './assets/deposit/index/deposit.page';
import { TransferPage } from './assets/transfer/index/transfer.page';
import { WithdrawPage } from './assets/withdraw/index/withdraw.page';
import { FpjyPage } from './fpjy/fpjy/fpjy.page';
import { WithdrawDetailPage } from './assets/withdraw/detail/withdraw-detail.page';
import { BuyPage } from './finance/buyPage/buy.page';
import { financeApi } from '../api/finance';
import type { FundingRecord } from '../api/wallet';
import { loanApi, type LoanOrder } from '../api/loan';
import { LoanBackPage } from './loan/back/loan-back.page';

// The Assets tab follows the live balances: a socket that never connects.
jest.mock('../api/socket', () => ({ getSocket: () => ({ connected: false, recovered: false, on: () => undefined, off: () => undefined }) }));

afterEach(() => jest.restoreAllMocks());

const offline = () => new ApiError('Network error', 0);
const USDT: UserCurrency = {
  currency_id: 1,
  symbol: 'USDT',
  available: '1000',
  frozen: '0',
  min_deposit: '1',
  min_withdraw: '1',
  withdraw_fee: '1',
  chains: [{ chain: 'TRC20', deposit_available: true }],
};
const ETH: UserCurrency = { ...USDT, currency_id: 2, symbol: 'ETH' };
const WITHDRAW_INFO: WithdrawInfo = {
  currency_id: 1,
  symbol: 'USDT',
  chains: ['TRC20'],
  available: '1000',
  decimals: 6,
  fee: '1',
  min_amount: '10',
  requests_per_day: 5,
  remaining_requests_today: 5,
  daily_limit_usdt: '2000',
  remaining_amount_today_usdt: '2000',
  verification_level: 1,
  has_fund_password: true,
  arrival_hours: 24,
};

/** A first load that failed offers a retry (regression: a skeleton for ever, nothing to press); the retry shows the screen. */
async function retried(shown: () => Promise<unknown>) {
  await screen.findByTestId('load-failed');
  await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
  await shown();
  expect(screen.queryByTestId('load-failed')).toBeNull();
}

it('Assets: the wallet that failed to load offers a retry', async () => {
  const wallet: WalletList = {
    pricing: { code: 'USD', symbol: '$', rate: '1' },
    total_value: '12.5',
    accounts: [],
  } as unknown as WalletList;
  jest.spyOn(walletApi, 'list').mockRejectedValueOnce(offline()).mockResolvedValue(wallet);
  renderAt(PATHS.assets, PATHS.assets, <AssetsPage titleKey="titles.assets" />);
  await retried(() => screen.findByTestId('total-value'));
});

it('Deposit: the coins that failed to load offer a retry', async () => {
  jest.spyOn(walletApi, 'currencies').mockRejectedValueOnce(offline()).mockResolvedValue([USDT]);
  jest.spyOn(walletApi, 'depositAddress').mockReturnValue(new Promise(() => undefined));
  renderAt(PATHS.deposit, PATHS.deposit, <DepositPage titleKey="titles.deposit" />);
  await retried(() => screen.findByLabelText('Coin'));
});

it("Withdraw: the coin's rules that failed to load offer a retry", async () => {
  jest.spyOn(walletApi, 'currencies').mockResolvedValue([USDT]);
  jest.spyOn(walletApi, 'addresses').mockResolvedValue([]);
  jest.spyOn(walletApi, 'withdrawInfo').mockRejectedValueOnce(offline()).mockResolvedValue(WITHDRAW_INFO);
  renderAt(PATHS.withdraw, PATHS.withdraw, <WithdrawPage titleKey="titles.withdraw" />);
  await retried(() => screen.findByLabelText('Coin'));
});

// Regression: an address book that did not load read as an empty one: "Set the withdrawal address first", no retry.
it('Withdraw: the address book that failed to load offers a retry, not "set the address first"', async () => {
  jest.spyOn(walletApi, 'currencies').mockResolvedValue([USDT]);
  jest.spyOn(walletApi, 'withdrawInfo').mockResolvedValue(WITHDRAW_INFO);
  const book = [
    { id: '7', currency_id: 1, symbol: 'USDT', chain: 'TRC20', address: 'TUSDT0000000000000000000007', remark: null, created_at: '2026-12-01T08:00:00Z' },
  ];
  jest.spyOn(walletApi, 'addresses').mockRejectedValueOnce(offline()).mockResolvedValue(book);
  renderAt(PATHS.withdraw, PATHS.withdraw, <WithdrawPage titleKey="titles.withdraw" />);
  await retried(() => screen.findByLabelText('Withdrawal address'));
  expect(screen.queryByTestId('add-address')).toBeNull();
});

it('Transfer: the accounts that failed to load offer a retry', async () => {
  const options: TransferOptions = {
    accounts: ['coin', 'lever'],
    currencies: [{ currency_id: 1, symbol: 'USDT', available: { coin: '5', lever: '0' }, routes: [{ from: 'coin', to: 'lever' }] }],
  };
  jest.spyOn(walletApi, 'transferOptions').mockRejectedValueOnce(offline()).mockResolvedValue(options);
  renderAt(PATHS.transfer, PATHS.transfer, <TransferPage titleKey="titles.transfer" />);
  await retried(() => screen.findByLabelText('Coin'));
});

it('Flash exchange: the coins that failed to load offer a retry', async () => {
  jest.spyOn(walletApi, 'currencies').mockRejectedValueOnce(offline()).mockResolvedValue([USDT, ETH]);
  jest.spyOn(walletApi, 'flashCoins').mockResolvedValue([
    { currency_id: 1, symbol: 'USDT' },
    { currency_id: 2, symbol: 'ETH' },
  ]);
  jest.spyOn(walletApi, 'conversions').mockResolvedValue({ items: [], total: 0, page: 1, page_size: 20 } as never);
  renderAt(PATHS.fpjy, PATHS.fpjy, <FpjyPage titleKey="titles.fpjy" />);
  await retried(() => screen.findByLabelText('You pay'));
});

// Regression: a withdrawal that did not load (no answer) showed "No data", as for one that does not exist, with no retry.
it('Withdrawal detail: one that did not load offers a retry; one that does not exist says so', async () => {
  const record = {
    id: '7',
    currency_id: 1,
    symbol: 'USDT',
    chain: 'TRC20',
    address: 'Taddr',
    amount: '100',
    fee: '1',
    actual_amount: '99',
    status: 'review',
    reason: null,
    created_at: '2026-12-04T08:00:00Z',
    reviewed_at: null,
  } as FundingRecord;
  const read = jest.spyOn(walletApi, 'withdrawal').mockRejectedValueOnce(offline()).mockResolvedValueOnce(record);
  const view = renderAt(PATHS.withdrawDetail, `${PATHS.withdrawDetail}?id=7`, <WithdrawDetailPage titleKey="titles.withdrawDetail" />);
  await retried(() => screen.findByTestId('withdraw-amount'));
  view.unmount();
  read.mockResolvedValueOnce(null as never);
  renderAt(PATHS.withdrawDetail, `${PATHS.withdrawDetail}?id=8`, <WithdrawDetailPage titleKey="titles.withdrawDetail" />);
  await screen.findByText('No data');
  expect(screen.queryByTestId('load-failed')).toBeNull();
});

// Regression: a wealth product that did not load (no answer) said "This product could not be loaded." with no retry.
it('Wealth purchase: a product that did not load offers a retry', async () => {
  jest.spyOn(financeApi, 'report').mockResolvedValue(null as never);
  const read = jest.spyOn(financeApi, 'product').mockRejectedValueOnce(offline()).mockRejectedValueOnce(new ApiError('Product not found', 2601));
  renderAt(PATHS.financeBuy, `${PATHS.financeBuy}?id=3`, <BuyPage titleKey="titles.financeBuy" />);
  await retried(() => screen.findByText('This product could not be loaded.'));
  expect(read).toHaveBeenCalledTimes(2);
});

// Regression: a loan that did not load (no answer) said "This loan could not be found.", with nothing to press.
it('Loan repayment: a loan that did not load offers a retry; one that does not exist says so', async () => {
  const order = {
    id: '12',
    currency_id: 1,
    symbol: 'USDT',
    decimals: 2,
    amount: '100',
    repay_amount: '100.7',
    remaining: '100.7',
    in_review: '0',
    status: 'approved',
  } as LoanOrder;
  jest.spyOn(walletApi, 'detail').mockResolvedValue({ available: '500' } as never);
  const read = jest.spyOn(loanApi, 'detail').mockRejectedValueOnce(offline()).mockResolvedValueOnce({ order, addresses: [], records: [] });
  const view = renderAt(PATHS.loanBack, `${PATHS.loanBack}?id=12`, <LoanBackPage titleKey="titles.loanBack" />);
  await screen.findByTestId('load-failed');
  expect(screen.queryByText('This loan could not be found.')).toBeNull();
  await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
  await screen.findAllByText(/100\.7/);
  expect(screen.queryByTestId('load-failed')).toBeNull();
  view.unmount();
  read.mockRejectedValueOnce(new ApiError('Loan not found', 2705));
  renderAt(PATHS.loanBack, `${PATHS.loanBack}?id=13`, <LoanBackPage titleKey="titles.loanBack" />);
  await screen.findByText('This loan could not be found.');
  expect(screen.queryByTestId('load-failed')).toBeNull();
});
