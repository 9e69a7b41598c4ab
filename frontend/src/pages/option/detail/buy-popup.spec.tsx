import { renderHook, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderAt } from '../../../../test/render';
import { ApiError } from '../../../api/client';
import { optionApi, type OptionPeriod } from '../../../api/derivatives';
import { useMoneySubmit } from '../../../components/client-id';
import { BuyPopup } from './buy-popup';

const period: OptionPeriod = { id: 1, seconds: 60, profit_ratio: '0.125', min_qty: '0.5', max_qty: '2500.75', fee_rate: '0', enabled: true };

afterEach(() => jest.restoreAllMocks());

it('delivery times that failed to load offer a retry (nothing can be bought without one); the range and the win ratio keep their decimals', async () => {
  const seconds = jest.spyOn(optionApi, 'seconds').mockRejectedValueOnce(new ApiError('Network error', 0)).mockResolvedValueOnce([period]);
  jest.spyOn(optionApi, 'payable').mockResolvedValue([{ currency_id: 3, symbol: 'USDT', available: '200', frozen: '0' }]);
  const submitter = renderHook(() => useMoneySubmit()).result.current;
  renderAt('/', '/', <BuyPopup symbol="BTC/USDT" direction="up" price="100" onClose={() => undefined} submitter={submitter} />);
  await screen.findByTestId('load-failed');
  await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
  const chip = await screen.findByTestId('period-60');
  expect(chip.textContent).toBe('60 s · 12.5%');
  await userEvent.click(chip);
  expect(screen.getByRole('textbox', { name: 'Quantity (USDT)' }).getAttribute('placeholder')).toBe('0.5 – 2,500.75');
  expect(seconds).toHaveBeenCalledTimes(2);
});
