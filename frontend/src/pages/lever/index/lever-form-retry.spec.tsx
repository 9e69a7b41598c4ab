import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router-dom';
import { spotMarket } from '../../../../test/render';
import { ApiError } from '../../../api/client';
import { leverApi, type LeverDeal } from '../../../api/derivatives';
import { LeverForm } from './lever-form';

const deal = (mark: string, available: string): LeverDeal => ({
  symbol: 'BTC/USDT',
  multiples: [10],
  lot_value: '100',
  min_lots: 1,
  max_lots: 100,
  fee_rate: '0.001',
  maintenance_rate: '0.005',
  available,
  frozen: '0',
  last_price: mark,
  mark_price: mark,
  positions: [],
});
const form = (d: LeverDeal) => (
  <MemoryRouter>
    <LeverForm market={spotMarket('BTC')} deal={d} offline={false} onPlaced={() => undefined} />
  </MemoryRouter>
);

afterEach(() => jest.restoreAllMocks());

// Regression: the retry of a contract order whose answer never came was refused on screen (the mark had moved past its
// take profit, or its own margin had been taken), and the user, changing a field, opened a second position under a new id.
it('the retry of an unanswered order goes out with its client id, though the mark moved past its take profit and its margin was taken', async () => {
  const submit = jest
    .spyOn(leverApi, 'submit')
    .mockRejectedValueOnce(new ApiError('Network error', 0))
    .mockResolvedValue({} as never);
  const view = render(form(deal('60000', '1000')));
  await userEvent.type(screen.getByLabelText('Lots (1 lot = 100 USDT)'), '10');
  await userEvent.type(screen.getByLabelText('Take profit'), '60100');
  await userEvent.type(screen.getByLabelText('Stop loss'), '59000');
  await userEvent.click(screen.getByTestId('lever-submit'));
  await waitFor(() => expect(submit).toHaveBeenCalledTimes(1));
  // It was opened after all: its margin and fee are taken, and the mark has moved past its take profit.
  view.rerender(form(deal('60200', '50')));
  await userEvent.click(screen.getByTestId('lever-submit'));
  await waitFor(() => expect(submit).toHaveBeenCalledTimes(2));
  expect(submit.mock.calls[1][0]).toEqual(submit.mock.calls[0][0]);
  // A new order is still checked here (the lots were cleared once it was opened).
  await userEvent.type(screen.getByLabelText('Lots (1 lot = 100 USDT)'), '10');
  await userEvent.clear(screen.getByLabelText('Take profit'));
  await userEvent.type(screen.getByLabelText('Take profit'), '60150');
  await userEvent.click(screen.getByTestId('lever-submit'));
  expect((await screen.findByRole('alert')).textContent).toBe('Take profit must be above 60200');
  expect(submit).toHaveBeenCalledTimes(2);
});
