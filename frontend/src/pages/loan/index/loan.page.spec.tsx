import { act, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderAt } from '../../../../test/render';
import { ApiError } from '../../../api/client';
import { loanApi, type LoanProduct } from '../../../api/loan';
import { PATHS } from '../../../app/paths';
import { LoanPage } from './loan.page';

const product: LoanProduct = {
  id: 1,
  code: 'P1',
  name: 'Quick loan',
  lender: 'Kestrel',
  currency_id: 3,
  symbol: 'USDT',
  decimals: 4,
  min_amount: '100',
  max_amount: '10000',
  cycles: [7, 30],
  daily_rate: '0.001',
  repay_method: 'maturity',
};

afterEach(() => jest.restoreAllMocks());

it('an amount with more decimals than the coin has is refused on the form, saying how many it may have, and no preview is asked for', async () => {
  jest.spyOn(loanApi, 'products').mockResolvedValue({ items: [product], preview: null });
  const preview = jest.spyOn(loanApi, 'preview');
  const apply = jest.spyOn(loanApi, 'apply');
  renderAt(PATHS.loan, PATHS.loan, <LoanPage titleKey="titles.loan" />);
  await userEvent.type(await screen.findByLabelText('Expected amount'), '500.12345');
  await act(async () => new Promise((r) => setTimeout(r, 300)));
  expect(preview).not.toHaveBeenCalled();
  await userEvent.click(screen.getByTestId('loan-apply'));
  expect((await screen.findByTestId('loan-error')).textContent).toContain('Amount can have at most 4 decimal places');
  expect(apply).not.toHaveBeenCalled();
});

// Regression: products that did not load said "No loan products are available right now.", with nothing to press.
it('products that did not load offer a retry, not "no products"', async () => {
  jest
    .spyOn(loanApi, 'products')
    .mockRejectedValueOnce(new ApiError('Network error', 0))
    .mockResolvedValueOnce({ items: [product], preview: null });
  renderAt(PATHS.loan, PATHS.loan, <LoanPage titleKey="titles.loan" />);
  await screen.findByTestId('load-failed');
  expect(screen.queryByText('No loan products are available right now.')).toBeNull();
  await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
  await screen.findByTestId('loan-terms');
});
