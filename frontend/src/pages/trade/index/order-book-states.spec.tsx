import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { spotMarket } from '../../../../test/render';
import { LatestTrades, OrderBook } from './order-book';

const market = spotMarket('BTC');

it('latest trades: placeholder rows while they come, "No data" for a market with none, a retry when they did not load', async () => {
  const retry = jest.fn();
  const view = render(<LatestTrades market={market} trades={[]} loaded={false} />);
  expect(screen.getByRole('status')).toBeTruthy();
  view.rerender(<LatestTrades market={market} trades={[]} loaded />);
  expect(screen.getByText('No data')).toBeTruthy();
  view.rerender(<LatestTrades market={market} trades={[]} loaded={false} failed onRetry={retry} />);
  await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
  expect(retry).toHaveBeenCalledTimes(1);
});

it('order book: a book that did not load offers a retry, not placeholder rows for ever', async () => {
  const retry = jest.fn();
  render(<OrderBook market={market} depth={null} last={null} onPrice={() => undefined} failed onRetry={retry} />);
  await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
  expect(retry).toHaveBeenCalledTimes(1);
});
