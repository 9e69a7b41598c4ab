import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { ReactElement } from 'react';
import { MemoryRouter, Route, Routes, useNavigate } from 'react-router-dom';
import { renderAt } from '../../test/render';
import { walletApi, type TransferOptions, type UserCurrency, type WalletDetail } from '../api/wallet';
import { PATHS } from '../app/paths';
import { DepositPage } from './assets/deposit/index/deposit.page';
import { TradeAccountPage } from './assets/tradeAccount/trade-account.page';
import { TransferPage } from './assets/transfer/index/transfer.page';
import { FpjyPage } from './fpjy/fpjy/fpjy.page';

// The asset detail follows the live balances: a socket that never connects.
jest.mock('../api/socket', () => ({ getSocket: () => ({ connected: false, recovered: false, on: () => undefined, off: () => undefined }) }));

afterEach(() => jest.restoreAllMocks());

const coin = (currency_id: number, symbol: string, chains: Array<[string, boolean]>): UserCurrency => ({
  currency_id,
  symbol,
  available: '1000',
  frozen: '0',
  min_deposit: '1',
  min_withdraw: '1',
  withdraw_fee: '1',
  chains: chains.map(([chain, deposit_available]) => ({ chain, deposit_available })),
});
const USDT = coin(1, 'USDT', [
  ['TRC20', true],
  ['ERC20', true],
]);
const BTC = coin(2, 'BTC', [
  ['BITCOIN', true],
  ['BEP20', true],
]);
const selected = (label: string) => (screen.getByLabelText(label) as HTMLSelectElement).value;

/** `screen` at `path`, and a screen at `away` whose button goes back. */
function withBack(path: string, screenEl: ReactElement, away: string) {
  const Away = () => {
    const navigate = useNavigate();
    return (
      <button type="button" onClick={() => navigate(-1)}>
        Back here
      </button>
    );
  };
  render(
    <MemoryRouter initialEntries={[path]}>
      <Routes>
        <Route path={path} element={screenEl} />
        <Route path={away} element={<Away />} />
      </Routes>
    </MemoryRouter>,
  );
}

// Regression: the coin and network were the page's own state, so back from reporting a deposit (to copy
// the address again) the page showed USDT on its first network: another coin's address and QR code.
it('deposit: back from the report, the coin and network chosen are still chosen, with their address', async () => {
  jest.spyOn(walletApi, 'currencies').mockResolvedValue([USDT, BTC]);
  const address = jest.spyOn(walletApi, 'depositAddress').mockImplementation(async (currency_id, chain) => ({
    currency_id,
    symbol: currency_id === 1 ? 'USDT' : 'BTC',
    chain,
    address: `${chain}-ADDRESS`,
    min_deposit: '1',
    decimals: 8,
    chains: [{ chain, available: true }],
  }));
  withBack(PATHS.deposit, <DepositPage titleKey="titles.deposit" />, PATHS.depositCharge);
  await userEvent.selectOptions(await screen.findByLabelText('Coin'), '2');
  await userEvent.click(await screen.findByRole('radio', { name: 'BEP20' }));
  expect((await screen.findByTestId('deposit-address')).textContent).toBe('BEP20-ADDRESS');
  await userEvent.click(screen.getByTestId('go-charge'));
  await userEvent.click(await screen.findByRole('button', { name: 'Back here' }));
  expect((await screen.findByTestId('deposit-address')).textContent).toBe('BEP20-ADDRESS');
  expect(selected('Coin')).toBe('2');
  expect(address.mock.calls.at(-1)).toEqual([2, 'BEP20']);
});

it('deposit: a coin with no network open for deposits says so (regression: a skeleton for ever)', async () => {
  jest.spyOn(walletApi, 'currencies').mockResolvedValue([USDT, coin(3, 'ETH', [])]);
  const address = jest.spyOn(walletApi, 'depositAddress');
  renderAt(PATHS.deposit, `${PATHS.deposit}?currency_id=3`, <DepositPage titleKey="titles.deposit" />);
  expect(await screen.findByText('Deposits of ETH are closed for now')).toBeTruthy();
  expect(address).not.toHaveBeenCalled();
});

it('transfer: back from the records, the coin and accounts chosen are still chosen', async () => {
  const options: TransferOptions = {
    accounts: ['coin', 'lever', 'option'],
    currencies: [
      {
        currency_id: 1,
        symbol: 'USDT',
        available: { coin: '5', lever: '7', option: '9' },
        routes: [
          { from: 'coin', to: 'lever' },
          { from: 'coin', to: 'option' },
          { from: 'lever', to: 'coin' },
          { from: 'option', to: 'coin' },
        ],
      },
      { currency_id: 2, symbol: 'BTC', available: { coin: '1' }, routes: [] },
    ],
  };
  jest.spyOn(walletApi, 'transferOptions').mockResolvedValue(options);
  withBack(PATHS.transfer, <TransferPage titleKey="titles.transfer" />, PATHS.transferRecord);
  await userEvent.selectOptions(await screen.findByLabelText('From'), 'lever');
  // Lever's only way is to the trade account.
  expect(selected('To')).toBe('coin');
  await userEvent.click(screen.getByRole('link', { name: 'Records' }));
  await userEvent.click(await screen.findByRole('button', { name: 'Back here' }));
  await waitFor(() => expect(selected('From')).toBe('lever'));
  expect(selected('To')).toBe('coin');
  expect(selected('Coin')).toBe('1');
});

it('flash exchange: fewer than two coins to exchange says so (regression: a skeleton for ever)', async () => {
  jest.spyOn(walletApi, 'currencies').mockResolvedValue([USDT]);
  jest.spyOn(walletApi, 'flashCoins').mockResolvedValue([{ currency_id: 1, symbol: 'USDT' }]);
  jest.spyOn(walletApi, 'conversions').mockResolvedValue({ items: [], total: 0, page: 1, page_size: 20 } as never);
  renderAt(PATHS.fpjy, PATHS.fpjy, <FpjyPage titleKey="titles.fpjy" />);
  expect(await screen.findByText('Flash exchange is not available for your coins right now')).toBeTruthy();
});

// Regression: every coin's detail offered Transfer, which opened the transfer screen on USDT for a coin that cannot move.
it.each([
  ['USDT', 1, true],
  ['BTC', 2, false],
])('asset detail of %s: Transfer offered only for a coin that can move between the accounts (%s)', async (symbol, id, offered) => {
  jest.spyOn(walletApi, 'detail').mockImplementation(
    async (account, currency_id): Promise<WalletDetail> =>
      ({
        account,
        currency_id,
        symbol,
        total: '1',
        available: '1',
        frozen: '0',
        log: { items: [], total: 0, page: 1, limit: 20 },
      }) as unknown as WalletDetail,
  );
  jest.spyOn(walletApi, 'transferOptions').mockResolvedValue({
    accounts: ['coin', 'lever'],
    currencies: [
      { currency_id: 1, symbol: 'USDT', available: { coin: '1' }, routes: [{ from: 'coin', to: 'lever' }] },
      { currency_id: 2, symbol: 'BTC', available: { coin: '1' }, routes: [] },
    ],
  });
  renderAt(PATHS.tradeAccount, `${PATHS.tradeAccount}?account=coin&currency_id=${id}`, <TradeAccountPage titleKey="titles.tradeAccount" />);
  await screen.findByTestId('detail-available');
  await waitFor(() => expect(walletApi.transferOptions).toHaveBeenCalled());
  await waitFor(() => expect(screen.queryByTestId('detail-transfer') !== null).toBe(offered));
  expect(screen.getByRole('link', { name: 'Withdraw' })).toBeTruthy();
});
