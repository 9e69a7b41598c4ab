import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderAt } from '../../../../test/render';
import { walletApi, type FundingRecord } from '../../../api/wallet';
import { PATHS } from '../../../app/paths';
import { WithdrawDetailPage } from '../withdraw/detail/withdraw-detail.page';
import { RecordPage } from './record.page';

const record = (id: number): FundingRecord => ({
  id: String(id),
  currency_id: 3,
  symbol: 'USDT',
  chain: 'TRC20',
  address: 'TXaddress',
  amount: '100',
  fee: '1',
  actual_amount: '99',
  status: 'passed',
  reason: null,
  created_at: '2026-12-01T08:00:00Z',
  reviewed_at: null,
});

afterEach(() => jest.restoreAllMocks());

it('withdrawal records: each shows its fee and what arrives, and "Load more" reads the next page (past the first 50)', async () => {
  const total = 70;
  const withdrawals = jest.spyOn(walletApi, 'withdrawals').mockImplementation(async (page = 1, limit = 50) => {
    const ids = Array.from({ length: total }, (_, i) => total - i).slice((page - 1) * limit, page * limit);
    return { items: ids.map(record), total, page, limit };
  });
  renderAt(PATHS.assetsRecord, `${PATHS.assetsRecord}?tab=withdraw`, <RecordPage titleKey="titles.assetsRecord" />);
  await waitFor(() => expect(screen.getAllByTestId('record-amounts')).toHaveLength(50));
  expect(screen.getAllByTestId('record-amounts')[0].textContent).toBe('Fee 1 · You receive 99 USDT');
  await userEvent.click(screen.getByRole('button', { name: 'Load more' }));
  await waitFor(() => expect(screen.getAllByTestId('record-amounts')).toHaveLength(70));
  expect(screen.queryByRole('button', { name: 'Load more' })).toBeNull();
  expect(withdrawals.mock.calls).toEqual([
    [1, 50],
    [2, 50],
  ]);
});

it("a withdrawal's detail reads that record by its id, however old (not only the first page's)", async () => {
  const one = jest.spyOn(walletApi, 'withdrawal').mockResolvedValue({ ...record(7), amount: '250', status: 'review' });
  const list = jest.spyOn(walletApi, 'withdrawals');
  renderAt(PATHS.withdrawDetail, `${PATHS.withdrawDetail}?id=7`, <WithdrawDetailPage titleKey="titles.withdrawDetail" />);
  expect((await screen.findByTestId('withdraw-amount')).textContent).toBe('250');
  expect(one).toHaveBeenCalledWith('7');
  expect(list).not.toHaveBeenCalled();
});

it('a deposit under review shows no fee or credited amount yet (regression: "Fee 0 · You receive 0 USDT"); an approved one shows both', async () => {
  jest.spyOn(walletApi, 'deposits').mockResolvedValue({
    items: [
      { ...record(2), amount: '500', fee: '0', actual_amount: '0', status: 'review' },
      { ...record(1), amount: '100', fee: '0', actual_amount: '100', status: 'passed' },
    ],
    total: 2,
    page: 1,
    limit: 50,
  });
  renderAt(PATHS.assetsRecord, `${PATHS.assetsRecord}?tab=deposit`, <RecordPage titleKey="titles.assetsRecord" />);
  await waitFor(() => expect(screen.getAllByTestId('record-status')).toHaveLength(2));
  expect(screen.getAllByTestId('record-status').map((s) => s.textContent)).toEqual(['Under review', 'Approved']);
  expect(screen.getAllByTestId('record-amounts').map((s) => s.textContent)).toEqual(['Fee 0 · You receive 100 USDT']);
});
