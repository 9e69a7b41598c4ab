import { act, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderAt, spotMarket } from '../../../../test/render';
import { ApiError } from '../../../api/client';
import { leverApi, type LeverDeal } from '../../../api/derivatives';
import { tradingApi } from '../../../api/trading';
import { PATHS } from '../../../app/paths';
import { LeverPage } from './lever.page';

function later<T>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((yes) => (resolve = yes));
  return { promise, resolve };
}

const dealOf = (symbol: string, lot_value: string): LeverDeal => ({
  symbol,
  multiples: [5, 10],
  lot_value,
  min_lots: 1,
  max_lots: 100,
  fee_rate: '0.001',
  maintenance_rate: '0.005',
  available: '1000',
  frozen: '0',
  last_price: '100',
  mark_price: '100',
  positions: [],
});

afterEach(() => jest.restoreAllMocks());

describe('contract screen: only the rules of the market shown now', () => {
  it("a late lever/deal answer for the previous market does not replace the new market's rules", async () => {
    jest.spyOn(tradingApi, 'markets').mockResolvedValue([spotMarket('BTC'), spotMarket('ETH')]);
    const answers: Record<string, ReturnType<typeof later<LeverDeal>>> = { 'BTC/USDT': later(), 'ETH/USDT': later() };
    jest.spyOn(leverApi, 'deal').mockImplementation((symbol) => answers[symbol].promise);
    renderAt(PATHS.lever, `${PATHS.lever}?symbol=BTC/USDT`, <LeverPage titleKey="titles.lever" />);
    await userEvent.selectOptions(await screen.findByTestId('market-switcher'), 'ETH/USDT');

    await act(async () => answers['ETH/USDT'].resolve(dealOf('ETH/USDT', '10')));
    expect(await screen.findByLabelText('Lots (1 lot = 10 USDT)')).toBeTruthy();
    await act(async () => answers['BTC/USDT'].resolve(dealOf('BTC/USDT', '100')));
    await act(async () => new Promise((r) => setTimeout(r, 0)));
    expect(screen.queryByLabelText('Lots (1 lot = 100 USDT)')).toBeNull();
    expect(screen.getByLabelText('Lots (1 lot = 10 USDT)')).toBeTruthy();
  });

  it('rules that did not come (no answer) offer a retry, not a dead end', async () => {
    jest.spyOn(tradingApi, 'markets').mockResolvedValue([spotMarket('BTC')]);
    const deal = jest.spyOn(leverApi, 'deal').mockRejectedValueOnce(new ApiError('Network error', 0));
    renderAt(PATHS.lever, `${PATHS.lever}?symbol=BTC/USDT`, <LeverPage titleKey="titles.lever" />);
    await screen.findByTestId('load-failed');
    deal.mockResolvedValueOnce(dealOf('BTC/USDT', '10'));
    await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByLabelText('Lots (1 lot = 10 USDT)')).toBeTruthy();
  });
});
