import type { DepthData } from '@kestrel/contracts';
import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router-dom';
import { ApiError } from '../../../api/client';
import { tradingApi, type Order } from '../../../api/trading';
import { spotMarket } from '../../../../test/render';
import { TradeForm } from './trade-form';

const market = spotMarket('BTC');
const holding = (symbol: string, available: string) => ({ currency_id: 1, symbol, available, frozen: '0', decimals: 8 });
const book: DepthData = { symbol: 'BTC/USDT', bids: [['68990.00', '1']], asks: [['69000.00', '1']] };

const form = (depth: DepthData | null, last: string | null, held = { base: '1', quote: '100000' }) => (
  <MemoryRouter>
    <TradeForm
      market={market}
      price=""
      setPrice={() => undefined}
      depth={depth}
      last={last}
      base={holding('BTC', held.base) as never}
      quote={holding('USDT', held.quote) as never}
      offline={false}
      onPlaced={() => undefined}
    />
  </MemoryRouter>
);
const show = (depth: DepthData | null, last: string | null) => render(form(depth, last));

afterEach(() => jest.restoreAllMocks());

describe('trade form: a market order is sent with a worst price 5 % past the best opposite price', () => {
  it('a market buy by amount names its bound on screen and sends it as the price', async () => {
    const place = jest.spyOn(tradingApi, 'place').mockResolvedValue({} as Order);
    show(book, '68995.00');
    await userEvent.click(screen.getByRole('radio', { name: 'Market' }));
    expect(screen.getByTestId('market-protection').textContent).toBe(
      'Fills now at the best prices, up to 72,450.00 USDT (the current price + 5%). The rest is cancelled.',
    );
    await userEvent.type(screen.getByLabelText('Amount (USDT)'), '500');
    await userEvent.click(screen.getByTestId('place-order'));
    await waitFor(() => expect(place).toHaveBeenCalledTimes(1));
    expect(place.mock.calls[0][0]).toMatchObject({ symbol: 'BTC/USDT', side: 'buy', type: 'market', price: '72450.00', amount: '500', quantity: undefined });
  });

  it('a market sell sends the bound 5 % under the best bid', async () => {
    const place = jest.spyOn(tradingApi, 'place').mockResolvedValue({} as Order);
    show(book, null);
    await userEvent.click(screen.getByRole('radio', { name: 'Sell' }));
    await userEvent.click(screen.getByRole('radio', { name: 'Market' }));
    expect(screen.getByTestId('market-protection').textContent).toContain('down to 65,540.50 USDT (the current price − 5%)');
    await userEvent.type(screen.getByLabelText('Quantity (BTC)'), '0.5');
    await userEvent.click(screen.getByTestId('place-order'));
    await waitFor(() => expect(place).toHaveBeenCalledTimes(1));
    expect(place.mock.calls[0][0]).toMatchObject({ side: 'sell', type: 'market', price: '65540.50', quantity: '0.5' });
  });

  it("takes no bound from another market's depth not yet replaced (the last trade's price instead)", async () => {
    const place = jest.spyOn(tradingApi, 'place').mockResolvedValue({} as Order);
    show({ symbol: 'ETH/USDT', bids: [['3000.00', '1']], asks: [['3001.00', '1']] }, '69000.00');
    await userEvent.click(screen.getByRole('radio', { name: 'Market' }));
    expect(screen.getByTestId('market-protection').textContent).toContain('up to 72,450.00 USDT');
    await userEvent.type(screen.getByLabelText('Amount (USDT)'), '500');
    await userEvent.click(screen.getByTestId('place-order'));
    await waitFor(() => expect(place).toHaveBeenCalledTimes(1));
    expect(place.mock.calls[0][0].price).toBe('72450.00');
  });

  it('with no price on the book nor a last trade, a market order is refused on screen and nothing is sent', async () => {
    const place = jest.spyOn(tradingApi, 'place');
    show({ symbol: 'BTC/USDT', bids: [], asks: [] }, null);
    await userEvent.click(screen.getByRole('radio', { name: 'Market' }));
    expect(screen.getByTestId('market-protection').textContent).toBe('There is no price on the book yet: use a limit order.');
    await userEvent.type(screen.getByLabelText('Amount (USDT)'), '500');
    await userEvent.click(screen.getByTestId('place-order'));
    expect((await screen.findByRole('alert')).textContent).toBe('There is no price on the book yet: use a limit order.');
    expect(place).not.toHaveBeenCalled();
  });

  it('a retry after an unknown fate keeps the client id and the bound first sent with it, though the book moved', async () => {
    const place = jest
      .spyOn(tradingApi, 'place')
      .mockRejectedValueOnce(new ApiError('unknown', 2107))
      .mockResolvedValue({} as Order);
    const view = show(book, null);
    await userEvent.click(screen.getByRole('radio', { name: 'Market' }));
    await userEvent.type(screen.getByLabelText('Amount (USDT)'), '500');
    await userEvent.click(screen.getByTestId('place-order'));
    await waitFor(() => expect(place).toHaveBeenCalledTimes(1));
    view.rerender(form({ ...book, asks: [['70000.00', '1']] }, null));
    // The retry sends the bound its id was first sent with, and the screen shows that one, not the book's.
    expect(screen.getByTestId('market-protection').textContent).toContain('up to 72,450.00 USDT');
    await userEvent.click(screen.getByTestId('place-order'));
    await waitFor(() => expect(place).toHaveBeenCalledTimes(2));
    // Answered: a new order (another tap) gets a new id and the bound of the book now, shown as such.
    await userEvent.type(screen.getByLabelText('Amount (USDT)'), '500');
    expect(screen.getByTestId('market-protection').textContent).toContain('up to 73,500.00 USDT');
    await userEvent.click(screen.getByTestId('place-order'));
    await waitFor(() => expect(place).toHaveBeenCalledTimes(3));
    const [first, second, third] = place.mock.calls.map((c) => c[0]);
    expect(first.price).toBe('72450.00');
    expect(second).toEqual(first);
    expect(third.price).toBe('73500.00');
    expect(third.client_order_id).not.toBe(first.client_order_id);
  });
});

describe('trade form: a retry after an unknown fate', () => {
  it('is not refused by the balance its own first try may have frozen: it goes out with the same client id (regression: "Insufficient balance", then a second order by hand)', async () => {
    const place = jest
      .spyOn(tradingApi, 'place')
      .mockRejectedValueOnce(new ApiError('Network error', 0))
      .mockResolvedValue({} as Order);
    const view = render(form(book, null, { base: '0', quote: '100000' }));
    await userEvent.click(screen.getByRole('radio', { name: 'Market' }));
    await userEvent.type(screen.getByLabelText('Amount (USDT)'), '60000');
    await userEvent.click(screen.getByTestId('place-order'));
    await waitFor(() => expect(place).toHaveBeenCalledTimes(1));
    // It was placed after all: the balance push leaves 40,000 available.
    view.rerender(form(book, null, { base: '0', quote: '40000' }));
    await userEvent.click(screen.getByTestId('place-order'));
    await waitFor(() => expect(place).toHaveBeenCalledTimes(2));
    expect(place.mock.calls[1][0]).toEqual(place.mock.calls[0][0]);
    // A new order for more than is available is still refused here.
    await userEvent.type(screen.getByLabelText('Amount (USDT)'), '60000');
    await userEvent.click(screen.getByTestId('place-order'));
    expect((await screen.findByRole('alert')).textContent).toBe('Insufficient balance');
    expect(place).toHaveBeenCalledTimes(2);
  });
});

describe('trade form: the retry after the screen was left', () => {
  it('sends the unanswered order again with its client id when the form is opened again (regression: a new id, a second order)', async () => {
    const place = jest
      .spyOn(tradingApi, 'place')
      .mockRejectedValueOnce(new ApiError('Network error', 0))
      .mockResolvedValue({} as Order);
    const first = render(form(book, null));
    await userEvent.click(screen.getByRole('radio', { name: 'Market' }));
    await userEvent.type(screen.getByLabelText('Amount (USDT)'), '500');
    await userEvent.click(screen.getByTestId('place-order'));
    await waitFor(() => expect(place).toHaveBeenCalledTimes(1));
    first.unmount();
    // Back on the trade screen, the book has moved: the same order again, with its id and its first bound.
    render(form({ ...book, asks: [['70000.00', '1']] }, null));
    await userEvent.click(screen.getByRole('radio', { name: 'Market' }));
    await userEvent.type(screen.getByLabelText('Amount (USDT)'), '500');
    await userEvent.click(screen.getByTestId('place-order'));
    await waitFor(() => expect(place).toHaveBeenCalledTimes(2));
    expect(place.mock.calls[1][0]).toEqual(place.mock.calls[0][0]);
  });
});

describe('trade form: balances not known yet', () => {
  it('an order is not refused against a balance that did not load (the server checks it), and the available line says it is unknown', async () => {
    const place = jest.spyOn(tradingApi, 'place').mockResolvedValue({} as Order);
    render(
      <MemoryRouter>
        <TradeForm
          market={market}
          price=""
          setPrice={() => undefined}
          depth={book}
          last={null}
          base={undefined}
          quote={undefined}
          offline={false}
          onPlaced={() => undefined}
        />
      </MemoryRouter>,
    );
    expect(screen.getByTestId('available').textContent).toBe('-- USDT');
    await userEvent.click(screen.getByRole('radio', { name: 'Market' }));
    await userEvent.type(screen.getByLabelText('Amount (USDT)'), '500');
    await userEvent.click(screen.getByTestId('place-order'));
    await waitFor(() => expect(place).toHaveBeenCalledTimes(1));
  });
});

describe('trade form: the available line', () => {
  it('reads as the money screens write a balance: grouped, without trailing zeros, in the side’s coin', async () => {
    render(form(book, null, { base: '0.50000000', quote: '11345.50000000' }));
    expect(screen.getByTestId('available').textContent).toBe('11,345.5 USDT');
    await userEvent.click(screen.getByRole('radio', { name: 'Sell' }));
    expect(screen.getByTestId('available').textContent).toBe('0.5 BTC');
  });
});

describe('trade form: the quantity', () => {
  const limitForm = (m = market, price = '69000') => (
    <MemoryRouter>
      <TradeForm
        market={m}
        price={price}
        setPrice={() => undefined}
        depth={book}
        last={null}
        base={holding(m.base, '10') as never}
        quote={holding('USDT', '1000000') as never}
        offline={false}
        onPlaced={() => undefined}
      />
    </MemoryRouter>
  );

  // Regression: 0.12345 on a lot of 0.0001 was sent; the server placed 0.1234, not what the total and fee showed.
  it('is refused on the form when it is not a whole number of lots, saying the step; nothing is sent', async () => {
    const place = jest.spyOn(tradingApi, 'place').mockResolvedValue({} as Order);
    render(limitForm());
    await userEvent.type(screen.getByLabelText('Quantity (BTC)'), '0.12345');
    await userEvent.click(screen.getByTestId('place-order'));
    expect((await screen.findByRole('alert')).textContent).toBe('Quantity must be a multiple of 0.0001 BTC');
    expect(place).not.toHaveBeenCalled();
    await userEvent.clear(screen.getByLabelText('Quantity (BTC)'));
    await userEvent.type(screen.getByLabelText('Quantity (BTC)'), '0.12340');
    await userEvent.click(screen.getByTestId('place-order'));
    await waitFor(() => expect(place).toHaveBeenCalledTimes(1));
    expect(place.mock.calls[0][0]).toMatchObject({ quantity: '0.12340' });
  });

  // Regression: a quantity typed on one market stayed when the market was switched (2 ETH became 2 BTC).
  it('is cleared, with its error, when the market changes', async () => {
    const view = render(limitForm());
    await userEvent.type(screen.getByLabelText('Quantity (BTC)'), '0.00001');
    await userEvent.click(screen.getByTestId('place-order'));
    await screen.findByRole('alert');
    view.rerender(limitForm(spotMarket('ETH'), '3000'));
    expect((screen.getByLabelText('Quantity (ETH)') as HTMLInputElement).value).toBe('');
    expect(screen.queryByRole('alert')).toBeNull();
  });
});
