import { act, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes, useNavigate } from 'react-router-dom';
import { renderAt, spotMarket } from '../../test/render';
import { ApiError } from '../api/client';
import { tradingApi, type Order, type Page as ListPage } from '../api/trading';
import { walletApi, type AddressEntry, type DepositAddress, type FlashQuote, type TransferOptions, type UserCurrency, type WithdrawInfo } from '../api/wallet';
import { PATHS } from '../app/paths';
import { DepositPage } from './assets/deposit/index/deposit.page';
import { TransferPage } from './assets/transfer/index/transfer.page';
import { WithdrawPage } from './assets/withdraw/index/withdraw.page';
import { FpjyPage } from './fpjy/fpjy/fpjy.page';
import { MyOrders } from './trade/index/my-orders';
import { useLiveStore } from '../live/live.store';

// The api modules' calls answer when each test says: an answer for what was shown before can arrive
// after the one for what is shown now.
function later<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  return { promise, resolve, reject };
}
/** Lets the answers already given reach the screen. */
const settle = () => act(async () => new Promise((r) => setTimeout(r, 0)));

const coin = (currency_id: number, symbol: string, chains: string[], available = '1000'): UserCurrency => ({
  currency_id,
  symbol,
  available,
  frozen: '0',
  min_deposit: '1',
  min_withdraw: '1',
  withdraw_fee: '1',
  chains: chains.map((chain) => ({ chain, deposit_available: true })),
});
const USDT = coin(1, 'USDT', ['ERC20', 'TRC20']);
const ETH = coin(2, 'ETH', ['ERC20']);

afterEach(() => {
  jest.restoreAllMocks();
});

describe('flash exchange: Enter in the amount field keeps the quote of a conversion in flight or unanswered', () => {
  const quoteNo = (n: number): FlashQuote => ({
    quote_id: `q${n}`,
    from_currency_id: 1,
    from_symbol: 'USDT',
    to_currency_id: 2,
    to_symbol: 'ETH',
    amount: '100',
    rate: '0.0005',
    fee: '0.0001',
    receive: '0.0499',
    expires_at: new Date(Date.now() + 60_000).toISOString(),
  });
  let quote: jest.SpyInstance;
  let convert: jest.SpyInstance;
  beforeEach(() => {
    jest.spyOn(walletApi, 'currencies').mockResolvedValue([USDT, ETH]);
    jest.spyOn(walletApi, 'flashCoins').mockResolvedValue([
      { currency_id: 1, symbol: 'USDT' },
      { currency_id: 2, symbol: 'ETH' },
    ]);
    jest.spyOn(walletApi, 'conversions').mockResolvedValue({ items: [], total: 0, page: 1, limit: 20 });
    let n = 0;
    quote = jest.spyOn(walletApi, 'quote').mockImplementation(async () => quoteNo(++n));
    convert = jest.spyOn(walletApi, 'convert');
  });
  const quoted = async () => {
    renderAt(PATHS.fpjy, PATHS.fpjy, <FpjyPage titleKey="titles.fpjy" />);
    await userEvent.type(await screen.findByLabelText('Amount (USDT)'), '100');
    await userEvent.click(screen.getByRole('button', { name: 'Get a quote' }));
    await screen.findByTestId('fpjy-quote');
  };
  const unknownFate = () => new ApiError('Network error', 0);

  // Regression: the countdown compared the server's expiry with the phone's clock: 20 s fast, every quote was expired on arrival.
  it('counts a quote down from its lifetime as it arrives, not by the phone’s clock against the server’s', async () => {
    quote.mockImplementation(async () => ({ ...quoteNo(1), expires_at: new Date(Date.now() - 5_000).toISOString(), expires_in: 15 }));
    await quoted();
    expect(screen.getByTestId('fpjy-convert').textContent).toBe('Exchange now (15 s)');
  });

  it('after a conversion without an answer, Enter asks for no new quote and the retry carries the same quote id', async () => {
    await quoted();
    convert.mockRejectedValueOnce(unknownFate());
    await userEvent.click(screen.getByTestId('fpjy-convert'));
    await waitFor(() => expect(screen.getByTestId('fpjy-convert').textContent).toBe('Try again'));

    await userEvent.type(screen.getByLabelText('Amount (USDT)'), '{Enter}');
    await settle();
    expect(quote).toHaveBeenCalledTimes(1);
    expect(screen.getByTestId('fpjy-convert').textContent).toBe('Try again');

    convert.mockResolvedValueOnce({ ...quoteNo(1), duplicate: true });
    await userEvent.click(screen.getByTestId('fpjy-convert'));
    await waitFor(() => expect(convert).toHaveBeenCalledTimes(2));
    expect(convert.mock.calls.map((c) => c[0])).toEqual(['q1', 'q1']);
  });

  it('a quote that answers after the amount changed is not shown (Convert would convert the amount asked for before)', async () => {
    renderAt(PATHS.fpjy, PATHS.fpjy, <FpjyPage titleKey="titles.fpjy" />);
    const field = await screen.findByLabelText('Amount (USDT)');
    await userEvent.type(field, '100');
    const pending = later<FlashQuote>();
    quote.mockReturnValueOnce(pending.promise);
    await userEvent.click(screen.getByRole('button', { name: 'Get a quote' }));
    await userEvent.type(field, '0{Enter}');
    expect(quote).toHaveBeenCalledTimes(1);
    await act(async () => pending.resolve(quoteNo(1)));
    await settle();
    expect(screen.queryByTestId('fpjy-quote')).toBeNull();

    await userEvent.click(screen.getByRole('button', { name: 'Get a quote' }));
    await screen.findByTestId('fpjy-quote');
    expect(quote).toHaveBeenLastCalledWith({ from_currency_id: 1, to_currency_id: 2, amount: '1000' });
  });

  it('while a conversion is in flight, Enter asks for no new quote: its retry still carries its own quote id', async () => {
    await quoted();
    const first = later<FlashQuote>();
    convert.mockReturnValueOnce(first.promise);
    await userEvent.click(screen.getByTestId('fpjy-convert'));
    await userEvent.type(screen.getByLabelText('Amount (USDT)'), '{Enter}');
    await settle();
    expect(quote).toHaveBeenCalledTimes(1);

    await act(async () => first.reject(unknownFate()));
    await waitFor(() => expect(screen.getByTestId('fpjy-convert').textContent).toBe('Try again'));
    convert.mockResolvedValueOnce({ ...quoteNo(1), duplicate: true });
    await userEvent.click(screen.getByTestId('fpjy-convert'));
    await waitFor(() => expect(convert).toHaveBeenCalledTimes(2));
    expect(convert.mock.calls.map((c) => c[0])).toEqual(['q1', 'q1']);
  });
});

describe('deposit: only the address of the coin and chain shown now', () => {
  const addressOf = (c: UserCurrency, address: string): DepositAddress => ({
    currency_id: c.currency_id,
    symbol: c.symbol,
    chain: 'ERC20',
    address,
    min_deposit: '1',
    decimals: 6,
    chains: [{ chain: 'ERC20', available: true }],
  });

  // Regression: an address that did not come (no answer, a server error) showed the error with no way to ask again.
  it('an address that did not come offers a retry; a refusal still says why', async () => {
    jest.spyOn(walletApi, 'currencies').mockResolvedValue([USDT]);
    const read = jest
      .spyOn(walletApi, 'depositAddress')
      .mockRejectedValueOnce(new ApiError('Network error', 0))
      .mockRejectedValueOnce(new ApiError('Server busy', 9000))
      .mockResolvedValueOnce(addressOf(USDT, '0xUSDT-ADDRESS'));
    renderAt(PATHS.deposit, PATHS.deposit, <DepositPage titleKey="titles.deposit" />);
    await userEvent.click(within(await screen.findByTestId('load-failed')).getByRole('button', { name: 'Try again' }));
    await userEvent.click(within(await screen.findByTestId('load-failed')).getByRole('button', { name: 'Try again' }));
    expect((await screen.findByTestId('deposit-address')).textContent).toBe('0xUSDT-ADDRESS');
    expect(read).toHaveBeenCalledTimes(3);
    read.mockRejectedValueOnce(new ApiError('No deposit address', 2001));
    await userEvent.click(screen.getByRole('radio', { name: 'TRC20' }));
    expect((await screen.findByTestId('no-address')).textContent).toBe('No deposit address');
    expect(screen.queryByTestId('load-failed')).toBeNull();
  });

  it('a late answer for the previous coin does not put its address under the new one', async () => {
    jest.spyOn(walletApi, 'currencies').mockResolvedValue([USDT, ETH]);
    const answers = { 1: later<DepositAddress>(), 2: later<DepositAddress>() };
    jest.spyOn(walletApi, 'depositAddress').mockImplementation((currencyId) => answers[currencyId as 1 | 2].promise);
    renderAt(PATHS.deposit, PATHS.deposit, <DepositPage titleKey="titles.deposit" />);
    await userEvent.selectOptions(await screen.findByLabelText('Coin'), '2');

    await act(async () => answers[2].resolve(addressOf(ETH, '0xETH-ADDRESS')));
    expect(screen.getByTestId('deposit-address').textContent).toBe('0xETH-ADDRESS');
    await act(async () => answers[1].resolve(addressOf(USDT, '0xUSDT-ADDRESS')));
    await settle();
    expect(screen.getByTestId('deposit-address').textContent).toBe('0xETH-ADDRESS');
    expect(screen.getByTestId('go-charge').getAttribute('href')).toContain('currency_id=2');
  });

  it('a late refusal for the previous chain does not hide the address of the new one', async () => {
    jest.spyOn(walletApi, 'currencies').mockResolvedValue([USDT]);
    const answers: Record<string, ReturnType<typeof later<DepositAddress>>> = { ERC20: later(), TRC20: later() };
    jest.spyOn(walletApi, 'depositAddress').mockImplementation((_id, chain) => answers[chain].promise);
    renderAt(PATHS.deposit, PATHS.deposit, <DepositPage titleKey="titles.deposit" />);
    await userEvent.click(await screen.findByRole('radio', { name: 'TRC20' }));

    await act(async () => answers.TRC20.resolve({ ...addressOf(USDT, 'T-USDT-ADDRESS'), chain: 'TRC20' }));
    await act(async () => answers.ERC20.reject(new ApiError('No deposit address', 2001)));
    await settle();
    expect(screen.queryByTestId('no-address')).toBeNull();
    expect(screen.getByTestId('deposit-address').textContent).toBe('T-USDT-ADDRESS');
  });
});

describe('withdraw', () => {
  const infoOf = (c: UserCurrency, chains: string[], fee: string): WithdrawInfo => ({
    currency_id: c.currency_id,
    symbol: c.symbol,
    chains,
    available: '1000',
    decimals: 6,
    fee,
    min_amount: '10',
    requests_per_day: 5,
    remaining_requests_today: 5,
    daily_limit_usdt: '2000',
    remaining_amount_today_usdt: '1500.5',
    verification_level: 1,
    has_fund_password: true,
    arrival_hours: 24,
  });
  const entry = (id: string, c: UserCurrency, chain: string, address: string): AddressEntry => ({
    id,
    currency_id: c.currency_id,
    symbol: c.symbol,
    chain,
    address,
    remark: null,
    created_at: '2026-12-01T08:00:00Z',
  });
  const selected = (label: string) => (screen.getByLabelText(label) as HTMLSelectElement).value;

  // Regression: the coin and network were the page's own state: back from "Add address" they were USDT on the first
  // network again, and the address just added was not shown ("Set the withdrawal address first" once more).
  it('back from adding an address, the coin and network chosen are still chosen, and the new address is offered', async () => {
    jest.spyOn(walletApi, 'currencies').mockResolvedValue([USDT, ETH]);
    jest
      .spyOn(walletApi, 'withdrawInfo')
      .mockImplementation(async (id) => (id === 1 ? infoOf(USDT, ['TRC20', 'ERC20'], '1') : infoOf(ETH, ['ERC20'], '0.005')));
    const book: AddressEntry[] = [];
    jest.spyOn(walletApi, 'addresses').mockImplementation(async () => [...book]);
    const AddAddress = () => {
      const navigate = useNavigate();
      return (
        <button type="button" onClick={() => navigate(-1)}>
          Saved
        </button>
      );
    };
    render(
      <MemoryRouter initialEntries={[PATHS.withdraw]}>
        <Routes>
          <Route path={PATHS.withdraw} element={<WithdrawPage titleKey="titles.withdraw" />} />
          <Route path={PATHS.addressCreate} element={<AddAddress />} />
        </Routes>
      </MemoryRouter>,
    );
    await waitFor(() => expect(selected('Network')).toBe('TRC20'));
    await userEvent.selectOptions(screen.getByLabelText('Network'), 'ERC20');
    await userEvent.click(await screen.findByTestId('add-address'));
    book.push(entry('31', USDT, 'ERC20', '0xUSDT0000000000000000031'));
    await userEvent.click(await screen.findByRole('button', { name: 'Saved' }));
    await waitFor(() => expect(selected('Network')).toBe('ERC20'));
    expect(selected('Coin')).toBe('1');
    await waitFor(() => expect(selected('Withdrawal address')).toBe('31'));
  });

  it('a late address book of the previous coin is not offered under the new one', async () => {
    jest.spyOn(walletApi, 'currencies').mockResolvedValue([USDT, ETH]);
    jest.spyOn(walletApi, 'withdrawInfo').mockImplementation(async (id) => (id === 1 ? infoOf(USDT, ['ERC20'], '1') : infoOf(ETH, ['ERC20'], '0.005')));
    const usdtBook = later<AddressEntry[]>();
    jest
      .spyOn(walletApi, 'addresses')
      .mockImplementation((id) => (id === 1 ? usdtBook.promise : Promise.resolve([entry('21', ETH, 'ERC20', '0xETH00000000000000000021')])));
    renderAt(PATHS.withdraw, PATHS.withdraw, <WithdrawPage titleKey="titles.withdraw" />);
    await userEvent.selectOptions(await screen.findByLabelText('Coin'), '2');
    await waitFor(() => expect(selected('Withdrawal address')).toBe('21'));

    await act(async () => usdtBook.resolve([entry('11', USDT, 'ERC20', '0xUSDT0000000000000000011')]));
    await settle();
    expect(selected('Withdrawal address')).toBe('21');
    expect(screen.getByTestId('withdraw-fee').textContent).toBe('0.005 ETH');
    // The daily amount limit (counted in USDT, whatever the coin) beside the requests left.
    expect(screen.getByTestId('withdraw-daily-limit').textContent).toBe('1,500.5 of 2,000 USDT left');
  });

  it("while the new coin's address book loads, the previous coin's addresses are not offered (the withdrawal would move that coin)", async () => {
    jest.spyOn(walletApi, 'currencies').mockResolvedValue([USDT, ETH]);
    jest.spyOn(walletApi, 'withdrawInfo').mockImplementation(async (id) => (id === 1 ? infoOf(USDT, ['ERC20'], '1') : infoOf(ETH, ['ERC20'], '0.005')));
    const ethBook = later<AddressEntry[]>();
    jest
      .spyOn(walletApi, 'addresses')
      .mockImplementation((id) => (id === 1 ? Promise.resolve([entry('11', USDT, 'ERC20', '0xUSDT0000000000000000011')]) : ethBook.promise));
    const withdraw = jest.spyOn(walletApi, 'withdraw');
    renderAt(PATHS.withdraw, PATHS.withdraw, <WithdrawPage titleKey="titles.withdraw" />);
    await waitFor(() => expect(selected('Withdrawal address')).toBe('11'));
    await userEvent.selectOptions(screen.getByLabelText('Coin'), '2');
    await waitFor(() => expect(screen.getByTestId('withdraw-fee').textContent).toBe('0.005 ETH'));
    expect(screen.queryByRole('option', { name: /0xUSDT/ })).toBeNull();
    // Nor "set the withdrawal address first" while the book is on its way.
    expect(screen.queryByTestId('add-address')).toBeNull();
    await userEvent.type(screen.getByLabelText(/^Amount/), '20');
    await userEvent.type(screen.getByLabelText('Fund password (6 digits)'), '123456');
    await userEvent.click(screen.getByTestId('withdraw-submit'));
    await settle();
    expect(withdraw).not.toHaveBeenCalled();
    await act(async () => ethBook.resolve([]));
    expect(await screen.findByTestId('add-address')).toBeTruthy();
  });

  // Regression: the page kept the balance and the day's requests left from before an unanswered
  // withdrawal, which may have been frozen.
  it('after a withdrawal left unanswered, the balance is read again, and the same withdrawal sent again keeps its client id whatever that balance says', async () => {
    jest.spyOn(walletApi, 'currencies').mockResolvedValue([USDT]);
    jest
      .spyOn(walletApi, 'withdrawInfo')
      .mockResolvedValueOnce({ ...infoOf(USDT, ['ERC20'], '1'), decimals: 4 })
      .mockResolvedValue({ ...infoOf(USDT, ['ERC20'], '1'), decimals: 4, available: '0', remaining_requests_today: 4 });
    jest.spyOn(walletApi, 'addresses').mockResolvedValue([entry('11', USDT, 'ERC20', '0xUSDT0000000000000000011')]);
    const withdraw = jest
      .spyOn(walletApi, 'withdraw')
      .mockRejectedValueOnce(new ApiError('Result unknown', 2107))
      .mockResolvedValue({ withdrawal_id: 'w1' } as Awaited<ReturnType<typeof walletApi.withdraw>>);
    renderAt(PATHS.withdraw, PATHS.withdraw, <WithdrawPage titleKey="titles.withdraw" />);
    await userEvent.type(await screen.findByLabelText('Amount (USDT)'), '1000');
    // What arrives reads as every amount on the page: grouped, no trailing zeros (was "999.0000").
    expect(screen.getByTestId('withdraw-receive').textContent).toBe('999 USDT');
    await userEvent.type(screen.getByLabelText('Fund password (6 digits)'), '135790');
    await userEvent.click(screen.getByTestId('withdraw-submit'));
    await waitFor(() => expect(screen.getByTestId('withdraw-available').textContent).toBe('0 USDT'));
    await userEvent.click(screen.getByTestId('withdraw-submit'));
    await waitFor(() => expect(withdraw).toHaveBeenCalledTimes(2));
    expect(withdraw.mock.calls[1][0]).toEqual(withdraw.mock.calls[0][0]);
  });

  it("opened from the address picker: the picked address's chain and address are shown, and the withdrawal goes to it", async () => {
    jest.spyOn(walletApi, 'currencies').mockResolvedValue([USDT, ETH]);
    jest.spyOn(walletApi, 'withdrawInfo').mockResolvedValue(infoOf(USDT, ['ERC20', 'TRC20'], '1'));
    jest
      .spyOn(walletApi, 'addresses')
      .mockResolvedValue([entry('11', USDT, 'ERC20', '0xUSDT0000000000000000011'), entry('12', USDT, 'TRC20', 'TUSDT000000000000000000012')]);
    const withdraw = jest.spyOn(walletApi, 'withdraw').mockResolvedValue({ withdrawal_id: 'w1' } as Awaited<ReturnType<typeof walletApi.withdraw>>);
    renderAt(PATHS.withdraw, `${PATHS.withdraw}?currency_id=1&address_id=12`, <WithdrawPage titleKey="titles.withdraw" />);
    await waitFor(() => expect(selected('Network')).toBe('TRC20'));
    expect(selected('Withdrawal address')).toBe('12');

    await userEvent.type(screen.getByLabelText('Amount (USDT)'), '50.1234567');
    await userEvent.type(screen.getByLabelText('Fund password (6 digits)'), '135790');
    // More decimals than the coin has (6): said on the screen, nothing sent (regression: the server's bare "Enter a valid amount").
    await userEvent.click(screen.getByTestId('withdraw-submit'));
    expect(await screen.findByText('Amount can have at most 6 decimal places')).toBeTruthy();
    expect(withdraw).not.toHaveBeenCalled();
    await userEvent.clear(screen.getByLabelText('Amount (USDT)'));
    await userEvent.type(screen.getByLabelText('Amount (USDT)'), '50');
    await userEvent.click(screen.getByTestId('withdraw-submit'));
    await waitFor(() => expect(withdraw).toHaveBeenCalledTimes(1));
    expect(withdraw.mock.calls[0][0]).toMatchObject({ address_id: '12', amount: '50' });
  });
});

describe("trade page's order list: only the newest request's answer", () => {
  const market = spotMarket;
  const order = (id: string, symbol: string, price: string): Order => ({
    order_id: id,
    symbol,
    side: 'buy',
    type: 'limit',
    price,
    quantity: '1',
    amount: null,
    filled_qty: '0',
    filled_amount: '0',
    avg_price: null,
    fee: '0',
    fee_currency: 'USDT',
    status: 'waiting',
    client_order_id: null,
    created_at: '2026-12-01T08:00:00Z',
    updated_at: '2026-12-01T08:00:00Z',
  });
  const pageOf = (items: Order[]): ListPage<Order> => ({ items, total: items.length, page: 1, limit: 20 });

  it('a resync reads the list again, and so does a cancel refused because the order has ended meanwhile (regression: a filled order kept its Cancel button)', async () => {
    const orders = jest.spyOn(tradingApi, 'orders').mockResolvedValue(pageOf([order('b1', 'BTC/USDT', '90000')]));
    render(<MyOrders market={market('BTC')} reloadKey={0} offline={false} />);
    await screen.findByRole('button', { name: 'Cancel the order at 90000' });
    // It filled while the socket was down; the socket comes back without the pushes it missed.
    orders.mockResolvedValue(pageOf([]));
    act(() => useLiveStore.setState((s) => ({ resync: s.resync + 1 })));
    await waitFor(() => expect(screen.queryByRole('button', { name: 'Cancel the order at 90000' })).toBeNull());

    orders.mockResolvedValue(pageOf([order('b2', 'BTC/USDT', '91000')]));
    act(() => useLiveStore.setState((s) => ({ resync: s.resync + 1 })));
    const cancel = await screen.findByRole('button', { name: 'Cancel the order at 91000' });
    jest.spyOn(tradingApi, 'cancel').mockRejectedValueOnce(new ApiError('This order has already ended', 2104));
    orders.mockResolvedValue(pageOf([]));
    await userEvent.click(cancel);
    await waitFor(() => expect(screen.queryByRole('button', { name: 'Cancel the order at 91000' })).toBeNull());
  });

  it('a first load that fails offers a retry, not "no orders"', async () => {
    const orders = jest.spyOn(tradingApi, 'orders').mockRejectedValueOnce(new ApiError('Network error', 0));
    render(<MyOrders market={market('BTC')} reloadKey={0} offline={false} />);
    await screen.findByTestId('load-failed');
    orders.mockResolvedValue(pageOf([order('b1', 'BTC/USDT', '90000')]));
    await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
    await screen.findByRole('button', { name: 'Cancel the order at 90000' });
  });

  it("after a fast switch of market, the previous market's late answer is not shown under the new one", async () => {
    const answers: Record<string, ReturnType<typeof later<ListPage<Order>>>> = { 'BTC/USDT': later(), 'ETH/USDT': later() };
    jest.spyOn(tradingApi, 'orders').mockImplementation(({ symbol }) => answers[symbol!].promise);
    const { rerender } = render(<MyOrders market={market('BTC')} reloadKey={0} offline={false} />);
    rerender(<MyOrders market={market('ETH')} reloadKey={0} offline={false} />);

    await act(async () => answers['ETH/USDT'].resolve(pageOf([order('e1', 'ETH/USDT', '3000')])));
    await act(async () => answers['BTC/USDT'].resolve(pageOf([order('b1', 'BTC/USDT', '90000')])));
    await settle();
    const shown = screen.getByTestId('current-orders');
    expect(shown.querySelectorAll('li')).toHaveLength(1);
    expect(screen.getByRole('button', { name: 'Cancel the order at 3000' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Cancel the order at 90000' })).toBeNull();
  });

  it('"Load more" shows 20 more of the newest orders (reading them again with a larger limit), up to the last one', async () => {
    const all = Array.from({ length: 30 }, (_, i) => order(`o${30 - i}`, 'BTC/USDT', String(90000 + i)));
    const orders = jest
      .spyOn(tradingApi, 'orders')
      .mockImplementation(async ({ limit = 20 }) => ({ items: all.slice(0, limit), total: all.length, page: 1, limit }));
    render(<MyOrders market={market('BTC')} reloadKey={0} offline={false} />);
    await waitFor(() => expect(screen.getByTestId('current-orders').querySelectorAll('li')).toHaveLength(20));
    await userEvent.click(screen.getByRole('button', { name: 'Load more' }));
    await waitFor(() => expect(screen.getByTestId('current-orders').querySelectorAll('li')).toHaveLength(30));
    expect(screen.queryByRole('button', { name: 'Load more' })).toBeNull();
    expect(orders.mock.calls.map(([q]) => q.limit)).toEqual([20, 40]);
  });

  it('each order shows its average price, what it spent or received, and its fee in its currency; a market buy by amount shows the amount it was given', async () => {
    const limitBuy = {
      ...order('l1', 'BTC/USDT', '90000'),
      filled_qty: '0.5',
      filled_amount: '45000',
      avg_price: '90000',
      fee: '0.0005',
      fee_currency: 'BTC',
      status: 'waiting' as const,
    };
    const byAmount = {
      ...order('m1', 'BTC/USDT', '0'),
      type: 'market' as const,
      price: null,
      quantity: null,
      amount: '100',
      filled_qty: '0.00111',
      filled_amount: '99.9',
      avg_price: '90000',
      fee: '0.00000111',
      fee_currency: 'BTC',
      status: 'completed' as const,
    };
    jest.spyOn(tradingApi, 'orders').mockResolvedValue(pageOf([limitBuy, byAmount]));
    render(<MyOrders market={market('BTC')} reloadKey={0} offline={false} />);
    await screen.findByTestId('current-orders');
    expect(screen.getAllByTestId('order-amount').map((e) => e.textContent)).toEqual(['45,000', '99.9 / 100']);
    expect(screen.getAllByTestId('order-fee').map((e) => e.textContent)).toEqual(['0.0005 BTC', '0.00000111 BTC']);
    expect(screen.getAllByText('Avg. price (USDT)')).toHaveLength(2);
  });
});

describe('transfer: an answer of unknown fate', () => {
  const options = (lever: string): TransferOptions => ({
    accounts: ['coin', 'lever'],
    currencies: [{ currency_id: 1, symbol: 'USDT', available: { coin: '0', lever }, routes: [{ from: 'lever', to: 'coin' }] }],
  });
  it('shows the balances as they are now (regression: the debited account still showed its old amount), and its retry with the same id is not refused by them', async () => {
    const read = jest.spyOn(walletApi, 'transferOptions').mockResolvedValueOnce(options('100')).mockResolvedValue(options('0'));
    const transfer = jest
      .spyOn(walletApi, 'transfer')
      .mockRejectedValueOnce(new ApiError('We could not confirm this in time', 2107))
      .mockResolvedValueOnce({ transfer_id: '7-x', duplicate: true });
    renderAt(PATHS.transfer, `${PATHS.transfer}?from=lever&to=coin`, <TransferPage titleKey="titles.transfer" />);
    await userEvent.type(await screen.findByLabelText('Amount (USDT)'), '100');
    await userEvent.click(screen.getByTestId('transfer-submit'));
    await waitFor(() => expect(read).toHaveBeenCalledTimes(2));
    await waitFor(() => expect(screen.getByTestId('transfer-available').textContent).toContain('0 USDT'));
    // The retry of the same request: sent with the kept id, though the balance shown no longer covers it.
    await userEvent.click(screen.getByTestId('transfer-submit'));
    await waitFor(() => expect(transfer).toHaveBeenCalledTimes(2));
    expect(transfer.mock.calls[1][0]).toEqual(transfer.mock.calls[0][0]);
  });
});
