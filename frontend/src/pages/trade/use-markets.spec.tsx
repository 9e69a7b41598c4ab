import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderAt, spotMarket } from '../../../test/render';
import { ApiError } from '../../api/client';
import { tradingApi } from '../../api/trading';
import { MarketsPending } from './markets-pending';
import { useMarkets } from './use-markets';

/** A market screen's head: the chosen market, else what MarketsPending shows. */
function Probe() {
  const { market, state, retry } = useMarkets();
  return market ? <p>{market.symbol}</p> : <MarketsPending state={state} retry={retry} />;
}

afterEach(() => jest.restoreAllMocks());

it('a failed market list says so and tries again on Retry, instead of a skeleton for ever', async () => {
  const markets = jest
    .spyOn(tradingApi, 'markets')
    .mockRejectedValueOnce(new ApiError('Network error', 0))
    .mockResolvedValueOnce([spotMarket('BTC'), spotMarket('ETH')]);
  renderAt('/trade', '/trade?symbol=ETH%2FUSDT', <Probe />);
  expect((await screen.findByTestId('load-failed', {}, { timeout: 5000 })).textContent).toContain('This could not be loaded');
  await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
  await screen.findByText('ETH/USDT');
  expect(screen.queryByTestId('load-failed')).toBeNull();
  expect(markets).toHaveBeenCalledTimes(2);
});
