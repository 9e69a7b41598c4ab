import { act, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderAt } from '../../test/render';
import { leverApi, optionApi, type OptionOrder, type Position } from '../api/derivatives';
import { financeApi, type WealthOrder } from '../api/finance';
import { loanApi, type LoanOrder, type LoanRepayment } from '../api/loan';
import { nftApi, type NftOrder } from '../api/nft';
import type { Page } from '../api/trading';
import { walletApi, type FlashQuote, type LedgerLine, type Transfer, type WalletDetail } from '../api/wallet';
import { PATHS } from '../app/paths';
import { useLiveStore } from '../live/live.store';
import { TradeAccountPage } from './assets/tradeAccount/trade-account.page';
import { TransferRecordPage } from './assets/transfer/record/transfer-record.page';
import { FpjyPage } from './fpjy/fpjy/fpjy.page';
import { OrdersPage } from './finance/ordersPage/orders.page';
import { LeverHistoryPage } from './lever/index3/lever-history.page';
import { LoanBackRecPage } from './loan/back_rec/loan-back-rec.page';
import { LoanOrdersPage } from './loan/order/loan-orders.page';
import { NftOrdersPage } from './nft/order/nft-orders.page';
import { OptionHistoryPage } from './option/details/option-orders.page';

// The screens bind the session's socket for their live updates: a socket that never connects (the pushes are the store's counters here);
// the events listened to are kept (a screen that does not bind gets no pushes).
const mockListening = new Set<string>();
jest.mock('../api/socket', () => ({
  getSocket: () => ({ connected: false, on: (event: string) => mockListening.add(event), off: (event: string) => mockListening.delete(event) }),
}));

afterEach(() => jest.restoreAllMocks());

/** A newest-first list of `total` items (ids total…1), answered `limit` at a time. */
function pages<T>(total: () => number, make: (id: number) => T) {
  return async (page = 1, limit = 50): Promise<Page<T>> => {
    const ids = Array.from({ length: total() }, (_, i) => total() - i).slice((page - 1) * limit, page * limit);
    return { items: ids.map(make), total: total(), page, limit };
  };
}
/** The same for an API call whose first argument is a status or a type filter. */
const filtered =
  <T,>(read: (page?: number, limit?: number) => Promise<Page<T>>) =>
  (_filter: unknown, page?: number, limit?: number) =>
    read(page, limit);

const position = (id: number): Position => ({
  id: String(id),
  symbol: 'BTC/USDT',
  side: 'long',
  type: 'market',
  lots: 1,
  multiple: 10,
  lot_value: '100',
  margin: '10',
  fee: '0.1',
  status: 'closed',
  target_price: null,
  open_price: '90000',
  current_price: null,
  take_profit: '0',
  stop_loss: '0',
  pnl: '1.5',
  risk_rate: null,
  maintenance_margin: null,
  liquidation_price: null,
  close_price: '90100',
  close_reason: 'user',
  closing: null,
  opened_at: '2026-12-01T08:00:00Z',
  closed_at: '2026-12-01T09:00:00Z',
  created_at: '2026-12-01T08:00:00Z',
});

it('contract history: 50 at a time with "Load more"; a first page that failed offers a retry, not "No data"', async () => {
  let fail = true;
  const read = pages(() => 70, position);
  const list = jest.spyOn(leverApi, 'list').mockImplementation(async (status, page, limit) => {
    if (fail) throw new Error('network');
    return read(page, limit);
  });
  renderAt(PATHS.lever3, PATHS.lever3, <LeverHistoryPage titleKey="titles.leverHistory" />);
  await screen.findByTestId('load-failed');
  expect(screen.queryByText('No data')).toBeNull();
  fail = false;
  await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
  await waitFor(() => expect(screen.getAllByTestId('lever-history-row')).toHaveLength(50));
  await userEvent.click(screen.getByRole('button', { name: 'Load more' }));
  await waitFor(() => expect(screen.getAllByTestId('lever-history-row')).toHaveLength(70));
  expect(screen.queryByRole('button', { name: 'Load more' })).toBeNull();
  expect(list.mock.calls.slice(-2)).toEqual([
    ['closed', 1, 50],
    ['closed', 2, 50],
  ]);
});

const option = (id: number): OptionOrder => ({
  order_id: String(id),
  symbol: 'BTC/USDT',
  direction: 'up',
  quantity: '10',
  fee: '0',
  seconds: 60,
  profit_ratio: '0.1',
  open_price: '90000',
  open_tick_id: '1',
  open_time: '2026-12-01T08:00:00Z',
  purchase_time: '2026-12-01T08:00:00Z',
  deliver_at: '2026-12-01T08:01:00Z',
  remaining_seconds: 0,
  status: 'delivered',
  result: 'up',
  delivery_price: '90100',
  delivery_tick_id: '2',
  payout: '11',
  pnl: '1',
});

it('option history: a delivery puts the new option on top and keeps the pages already loaded', async () => {
  let total = 60;
  jest.spyOn(optionApi, 'list').mockImplementation(filtered(pages(() => total, option)));
  renderAt(PATHS.optionDetails2, PATHS.optionDetails2, <OptionHistoryPage titleKey="titles.optionDetails2" />);
  await waitFor(() => expect(screen.getAllByTestId('option-delivered')).toHaveLength(50));
  await userEvent.click(screen.getByRole('button', { name: 'Load more' }));
  await waitFor(() => expect(screen.getAllByTestId('option-delivered')).toHaveLength(60));
  total = 61;
  act(() => useLiveStore.setState((s) => ({ optionVersion: s.optionVersion + 1 })));
  await waitFor(() => expect(screen.getAllByTestId('option-delivered')).toHaveLength(61));
  expect(screen.getAllByTestId('audit-toggle')[0].getAttribute('aria-controls')).toBe('audit-61');
  expect(screen.getAllByTestId('audit-toggle')[60].getAttribute('aria-controls')).toBe('audit-1');
});

const line = (id: number): LedgerLine => ({
  id: String(id),
  account: 'coin',
  currency_id: 3,
  symbol: 'USDT',
  code: 600,
  code_name: 'Spot trade',
  amount: `-${id}`,
  available_change: `-${id}`,
  frozen_change: '0',
  balance_after: '100',
  ref: null,
  created_at: '2026-12-01T08:00:00Z',
});

it('asset detail: its ledger 20 lines at a time; a balance push updates the balances and puts new lines on top of those shown', async () => {
  let total = 30;
  let available = '100';
  const read = pages(() => total, line);
  const detail = jest.spyOn(walletApi, 'detail').mockImplementation(async (account, currencyId, page = 1): Promise<WalletDetail> => ({
    account,
    currency_id: currencyId,
    symbol: 'USDT',
    total: available,
    available,
    frozen: '0',
    log: await read(page, 20),
  }));
  renderAt(PATHS.tradeAccount, `${PATHS.tradeAccount}?account=coin&currency_id=3`, <TradeAccountPage titleKey="titles.tradeAccount" />);
  await waitFor(() => expect(screen.getAllByTestId('ledger-amount')).toHaveLength(20));
  // The coin's screen binds the socket itself (regression: only the coin list did, unmounted by then, so no push reached it).
  expect(mockListening.has('balance')).toBe(true);
  await userEvent.click(screen.getByRole('button', { name: 'Load more' }));
  await waitFor(() => expect(screen.getAllByTestId('ledger-amount')).toHaveLength(30));
  expect(screen.queryByRole('button', { name: 'Load more' })).toBeNull();
  total = 31;
  available = '69';
  act(() => useLiveStore.setState((s) => ({ balanceVersion: s.balanceVersion + 1 })));
  await waitFor(() => expect(screen.getAllByTestId('ledger-amount')).toHaveLength(31));
  expect(screen.getAllByTestId('ledger-amount')[0].textContent).toBe('-31 USDT');
  expect(screen.getByTestId('detail-available').textContent).toBe('69');
  expect(detail.mock.calls.map((c) => c[2])).toEqual([1, 2, 1]);
  // More new lines than a page holds: page 1 meets none of the lines shown, so the ledger is read
  // again from the start (merged, the lines between page 1 and those shown would be missing).
  total = 61;
  act(() => useLiveStore.setState((s) => ({ balanceVersion: s.balanceVersion + 1 })));
  await waitFor(() => expect(screen.getAllByTestId('ledger-amount')[0].textContent).toBe('-61 USDT'));
  expect(screen.getAllByTestId('ledger-amount')).toHaveLength(20);
  await userEvent.click(screen.getByRole('button', { name: 'Load more' }));
  await waitFor(() => expect(screen.getAllByTestId('ledger-amount')).toHaveLength(40));
  expect(screen.getAllByTestId('ledger-amount').map((e) => e.textContent)).toEqual(Array.from({ length: 40 }, (_, i) => `-${61 - i} USDT`));
});

const wealth = (id: number) =>
  ({
    order_id: String(id),
    name: `Plan ${id}`,
    kind: 'fixed',
    amount: '100',
    earned: '1',
    remaining_days: 3,
    remaining_seconds: 3600,
    end_at: '2026-12-09T00:00:00Z',
    next_credit_at: null,
    purchase_time: '2026-12-01T08:00:00Z',
    completion_time: null,
    status: 'hosting',
    penalty: null,
  }) as unknown as WealthOrder;
const loan = (id: number) =>
  ({
    id: String(id),
    symbol: 'USDT',
    decimals: 2,
    amount: '100',
    days: 7,
    daily_rate: '0.001',
    interest: '0.7',
    repay_amount: '100.7',
    remaining: '100.7',
    repaid: '0',
    in_review: '0',
    status: 'approving',
    overdue: false,
    reason: null,
    created_at: '2026-12-01T08:00:00Z',
    approved_at: null,
    due_at: null,
    repaid_at: null,
  }) as unknown as LoanOrder;
const nft = (id: number): NftOrder => ({
  id: String(id),
  kind: 'purchase',
  item_id: id,
  name: 'Kestrel',
  token_no: id,
  collection_id: 1,
  image: null,
  price: '10',
  currency: 'USDT',
  fee: '0',
  amount: '10',
  status: 'completed',
  created_at: '2026-12-01T08:00:00Z',
});

const transfer = (id: number): Transfer => ({
  transfer_id: String(id),
  currency_id: 3,
  symbol: 'USDT',
  from: 'coin',
  to: 'lever',
  amount: '1',
  created_at: '2026-12-01T08:00:00Z',
});
const repayment = (id: number): LoanRepayment => ({
  id: String(id),
  order_id: '1',
  symbol: 'USDT',
  kind: 'balance',
  amount: '1',
  interest_part: '0.1',
  principal_part: '0.9',
  image_url: null,
  status: 'done',
  reason: null,
  created_at: '2026-12-01T08:00:00Z',
  reviewed_at: null,
});
const conversion = (id: number): FlashQuote => ({
  quote_id: String(id),
  from_currency_id: 3,
  from_symbol: 'USDT',
  to_currency_id: 1,
  to_symbol: 'BTC',
  amount: '100',
  rate: '0.00001',
  fee: '0',
  receive: '0.001',
  expires_at: '2026-12-01T08:00:15Z',
  created_at: '2026-12-01T08:00:00Z',
});

it.each([
  [
    'wealth orders',
    PATHS.financeOrders,
    <OrdersPage key="w" titleKey="titles.financeOrders" />,
    'wealth-order',
    () => jest.spyOn(financeApi, 'orders').mockImplementation(filtered(pages(() => 55, wealth))),
  ],
  [
    'loans',
    PATHS.loanOrder,
    <LoanOrdersPage key="l" titleKey="titles.loanOrder" />,
    'loan-order',
    () => jest.spyOn(loanApi, 'orders').mockImplementation(filtered(pages(() => 55, loan))),
  ],
  [
    'loan repayments',
    PATHS.loanBackRec,
    <LoanBackRecPage key="r" titleKey="titles.loanBackRec" />,
    'loan-record',
    () => jest.spyOn(loanApi, 'records').mockImplementation(filtered(pages(() => 55, repayment))),
  ],
  [
    'NFT records',
    PATHS.nftOrder,
    <NftOrdersPage key="n" titleKey="titles.nftOrder" />,
    'nft-order',
    () => jest.spyOn(nftApi, 'orders').mockImplementation(filtered(pages(() => 55, nft))),
  ],
])('%s: "Load more" reads the next page (past the first 50)', async (_name, path, element, rowId, spy) => {
  jest.spyOn(financeApi, 'report').mockRejectedValue(new Error('not needed here'));
  const calls = spy();
  renderAt(path, path, element);
  await waitFor(() => expect(screen.getAllByTestId(rowId)).toHaveLength(50));
  await userEvent.click(screen.getByRole('button', { name: 'Load more' }));
  await waitFor(() => expect(screen.getAllByTestId(rowId)).toHaveLength(55));
  expect(calls.mock.calls.map((c) => c[1])).toEqual([1, 2]);
});

it.each([
  [
    'transfers',
    PATHS.transferRecord,
    <TransferRecordPage key="t" titleKey="titles.transferRecord" />,
    '[data-testid="transfer-records"] > li',
    50,
    () => jest.spyOn(walletApi, 'history').mockImplementation(pages(() => 55, transfer)),
  ],
  [
    'flash exchanges',
    PATHS.fpjy,
    <FpjyPage key="f" titleKey="titles.fpjy" />,
    '[data-testid="fpjy-history"] > li',
    20,
    () => jest.spyOn(walletApi, 'conversions').mockImplementation((page = 1) => pages(() => 25, conversion)(page, 20)),
  ],
])('%s: "Load more" reads the next page', async (_name, path, element, rows, size, spy) => {
  jest.spyOn(walletApi, 'currencies').mockResolvedValue([]);
  jest.spyOn(walletApi, 'flashCoins').mockResolvedValue([]);
  const calls = spy();
  const { container } = renderAt(path, path, element);
  await waitFor(() => expect(container.querySelectorAll(rows)).toHaveLength(size));
  await userEvent.click(screen.getByRole('button', { name: 'Load more' }));
  await waitFor(() => expect(container.querySelectorAll(rows)).toHaveLength(size + 5));
  expect(calls.mock.calls.map((c) => c[0])).toEqual([1, 2]);
});
