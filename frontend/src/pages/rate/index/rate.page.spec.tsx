import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderAt } from '../../../../test/render';
import { ApiError } from '../../../api/client';
import { walletApi } from '../../../api/wallet';
import { PATHS } from '../../../app/paths';
import { RatePage } from './rate.page';

afterEach(() => jest.restoreAllMocks());

it('rates that failed to load offer a retry, not an empty card', async () => {
  jest
    .spyOn(walletApi, 'rates')
    .mockRejectedValueOnce(new ApiError('Network error', 0))
    .mockResolvedValueOnce([{ code: 'EUR', name: 'Euro', symbol: '€', rate: '0.92' }]);
  renderAt(PATHS.rate, PATHS.rate, <RatePage titleKey="titles.rate" />);
  await screen.findByTestId('load-failed');
  await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
  await screen.findByTestId('rate-EUR');
});
