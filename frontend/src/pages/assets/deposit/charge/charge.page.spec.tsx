import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderAt } from '../../../../../test/render';
import { ApiError } from '../../../../api/client';
import { walletApi, type DepositAddress } from '../../../../api/wallet';
import { PATHS } from '../../../../app/paths';
import { useSessionStore, type User } from '../../../../stores/session.store';
import { useToastStore } from '../../../../stores/toast.store';
import { ChargePage } from './charge.page';

const address: DepositAddress = { currency_id: 3, symbol: 'USDT', chain: 'TRC20', address: 'TXaddress', min_deposit: '10', decimals: 4, chains: [] };
const open = () => renderAt(PATHS.depositCharge, `${PATHS.depositCharge}?currency_id=3&chain=TRC20`, <ChargePage titleKey="titles.depositCharge" />);

beforeEach(() => useSessionStore.getState().setSession('tok', { id: 1 } as User));
afterEach(() => jest.restoreAllMocks());

it('an address that did not come (no answer) offers a retry on the page instead of going back without a word', async () => {
  jest.spyOn(walletApi, 'depositAddress').mockRejectedValueOnce(new ApiError('Network error', 0)).mockResolvedValueOnce(address);
  open();
  await screen.findByTestId('load-failed');
  expect(screen.getByTestId('location').textContent).toContain(PATHS.depositCharge);
  await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
  await screen.findByText('TXaddress');
});

it('a refusal says why and goes back to the choice of coin and chain', async () => {
  jest.spyOn(walletApi, 'depositAddress').mockRejectedValueOnce(new ApiError('Deposits on this chain are closed', 1000));
  open();
  await screen.findByText(PATHS.deposit);
  expect(useToastStore.getState().toasts.map((t) => t.text)).toContain('Deposits on this chain are closed');
});

it('an amount with more decimals than the coin has is refused on the form, saying how many it may have (the server refuses it with only "Enter a valid amount")', async () => {
  jest.spyOn(walletApi, 'depositAddress').mockResolvedValue(address);
  const deposit = jest.spyOn(walletApi, 'deposit');
  open();
  await userEvent.type(await screen.findByLabelText('Amount (USDT)'), '10.12345');
  await userEvent.click(screen.getByTestId('charge-submit'));
  expect(await screen.findByText('Amount can have at most 4 decimal places')).toBeTruthy();
  expect(deposit).not.toHaveBeenCalled();
});
