import { act, renderHook, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderAt } from '../../../../test/render';
import { ApiError } from '../../../api/client';
import { optionApi, type OptionPeriod } from '../../../api/derivatives';
import { useMoneySubmit } from '../../../components/client-id';
import { useLiveStore } from '../../../live/live.store';
import { BuyPopup } from './buy-popup';

const period: OptionPeriod = { id: 1, seconds: 60, profit_ratio: '0.125', min_qty: '0.5', max_qty: '2500.75', fee_rate: '0', enabled: true };

afterEach(() => jest.restoreAllMocks());

it('delivery times that failed to load offer a retry (nothing can be bought without one); the range and the win ratio keep their decimals', async () => {
  const seconds = jest.spyOn(optionApi, 'seconds').mockRejectedValueOnce(new ApiError('Network error', 0)).mockResolvedValueOnce([period]);
  jest.spyOn(optionApi, 'payable').mockResolvedValue([{ currency_id: 3, symbol: 'USDT', available: '200', frozen: '0' }]);
  const submitter = renderHook(() => useMoneySubmit('option')).result.current;
  renderAt('/', '/', <BuyPopup symbol="BTC/USDT" direction="up" price="100" onClose={() => undefined} submitter={submitter} />);
  await screen.findByTestId('load-failed');
  await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
  const chip = await screen.findByTestId('period-60');
  expect(chip.textContent).toBe('60 s · 12.5%');
  await userEvent.click(chip);
  expect(screen.getByRole('textbox', { name: 'Quantity (USDT)' }).getAttribute('placeholder')).toBe('0.5 – 2,500.75');
  expect(seconds).toHaveBeenCalledTimes(2);
});

it("a quantity outside the delivery time's range, or more than the balance with its fee, is said before anything is sent", async () => {
  jest.spyOn(optionApi, 'seconds').mockResolvedValue([{ ...period, fee_rate: '0.01' }]);
  jest.spyOn(optionApi, 'payable').mockResolvedValue([{ currency_id: 3, symbol: 'USDT', available: '200', frozen: '0' }]);
  const submit = jest.spyOn(optionApi, 'submit').mockRejectedValue(new ApiError('refused by the server', 2000));
  const submitter = renderHook(() => useMoneySubmit('option')).result.current;
  renderAt('/', '/', <BuyPopup symbol="BTC/USDT" direction="up" price="100" onClose={() => undefined} submitter={submitter} />);
  await userEvent.click(await screen.findByTestId('period-60'));
  const quantity = screen.getByRole('textbox', { name: 'Quantity (USDT)' });
  const tryBuying = async (value: string) => {
    await userEvent.clear(quantity);
    await userEvent.type(quantity, value);
    await userEvent.click(screen.getByTestId('buy-confirm'));
    return (await screen.findByTestId('buy-error')).textContent;
  };
  expect(await tryBuying('0.4')).toBe('Quantity must be between 0.5 and 2,500.75');
  expect(await tryBuying('2600')).toBe('Quantity must be between 0.5 and 2,500.75');
  // 198.1 + its 1 % fee (1.981) is 200.081: more than the 200 available.
  expect(await tryBuying('198.1')).toBe('Insufficient balance: 200.081 USDT is needed, fee included');
  expect(submit).not.toHaveBeenCalled();
  // 198 + 1.98 = 199.98 fits: sent (and the server's refusal shown as it says it).
  expect(await tryBuying('198')).toBe('refused by the server');
  expect(submit).toHaveBeenCalledTimes(1);
});

it('the balance is read again on a balance push; the retry of an unanswered purchase is sent with its id even when the balance no longer covers it', async () => {
  jest.spyOn(optionApi, 'seconds').mockResolvedValue([period]);
  const payable = jest
    .spyOn(optionApi, 'payable')
    .mockResolvedValueOnce([{ currency_id: 3, symbol: 'USDT', available: '200', frozen: '0' }])
    .mockResolvedValue([{ currency_id: 3, symbol: 'USDT', available: '2', frozen: '0' }]);
  const submit = jest
    .spyOn(optionApi, 'submit')
    .mockRejectedValueOnce(new ApiError('Network error', 0))
    .mockResolvedValue({ order_id: '9' } as Awaited<ReturnType<typeof optionApi.submit>>);
  const submitter = renderHook(() => useMoneySubmit('option')).result.current;
  renderAt('/', '/', <BuyPopup symbol="BTC/USDT" direction="up" price="100" onClose={() => undefined} submitter={submitter} />);
  await userEvent.click(await screen.findByTestId('period-60'));
  await userEvent.type(screen.getByRole('textbox', { name: 'Quantity (USDT)' }), '198');
  await userEvent.click(screen.getByTestId('buy-confirm'));
  expect((await screen.findByTestId('buy-error')).textContent).toBe('Network error');
  // The purchase went through after all: its payment's push brings the balance down.
  act(() => useLiveStore.setState((s) => ({ balanceVersion: s.balanceVersion + 1 })));
  await waitFor(() => expect(screen.getByTestId('payable').textContent).toBe('2.0000 USDT'));
  expect(payable).toHaveBeenCalledTimes(2);
  await userEvent.click(screen.getByTestId('buy-confirm'));
  await waitFor(() => expect(submit).toHaveBeenCalledTimes(2));
  expect(submit.mock.calls[1][0].client_id).toBe(submit.mock.calls[0][0].client_id);
  // Answered with the first purchase: the popup goes to the orders awaiting delivery.
  await waitFor(() => expect(screen.getByTestId('location').textContent).toBe('/pages/option/details'));
});

it('the balance is read again after a resync, and an older read answering late does not replace a newer one', async () => {
  jest.spyOn(optionApi, 'seconds').mockResolvedValue([period]);
  const answers: Array<(v: Awaited<ReturnType<typeof optionApi.payable>>) => void> = [];
  jest.spyOn(optionApi, 'payable').mockImplementation(() => new Promise((r) => answers.push(r)));
  const submitter = renderHook(() => useMoneySubmit('option')).result.current;
  renderAt('/', '/', <BuyPopup symbol="BTC/USDT" direction="up" price="100" onClose={() => undefined} submitter={submitter} />);
  await waitFor(() => expect(answers).toHaveLength(1));
  // The socket came back without the pushes it missed (a payout meanwhile): read again.
  act(() => useLiveStore.setState((s) => ({ resync: s.resync + 1 })));
  await waitFor(() => expect(answers).toHaveLength(2));
  await act(async () => answers[1]([{ currency_id: 3, symbol: 'USDT', available: '300', frozen: '0' }]));
  await act(async () => answers[0]([{ currency_id: 3, symbol: 'USDT', available: '100', frozen: '0' }]));
  expect(screen.getByTestId('payable').textContent).toBe('300.0000 USDT');
});
