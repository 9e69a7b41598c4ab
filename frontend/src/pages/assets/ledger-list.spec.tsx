import { render, screen } from '@testing-library/react';
import type { LedgerLine } from '../../api/wallet';
import { LedgerList } from './ledger-list';

const line = (over: Partial<LedgerLine>): LedgerLine => ({
  id: '1',
  account: 'coin',
  currency_id: 3,
  symbol: 'USDT',
  code: 200,
  code_name: 'Deposit increase',
  amount: '0',
  available_change: '0',
  frozen_change: '0',
  balance_after: '0',
  ref: null,
  created_at: '2026-12-02T10:00:00.000Z',
  ...over,
});

describe('ledger lines', () => {
  it('name a code as the records filter does, group the amounts, show a freeze by its frozen change and name the account', () => {
    render(
      <LedgerList
        lines={[
          line({ id: '1', code: 200, code_name: 'Deposit increase', amount: '10000.00000000', available_change: '10000', balance_after: '10000.00000000' }),
          line({ id: '2', code: 901, code_name: 'Freeze', amount: '0', available_change: '-50.5', frozen_change: '50.5', balance_after: '9949.5' }),
          line({
            id: '3',
            account: 'option',
            code: 400,
            code_name: 'ETF deduction',
            amount: '-99.26490000',
            available_change: '-99.2649',
            balance_after: '900.7351',
          }),
          line({ id: '4', code: 999, code_name: 'Some later code', amount: '1', available_change: '1', balance_after: '1' }),
        ]}
      />,
    );
    const rows = screen.getAllByRole('listitem').map((li) => li.textContent);
    expect(rows[0]).toContain('Deposit (200)');
    expect(rows[0]).toContain('+10,000 USDT');
    expect(rows[0]).toContain('Balance after 10,000');
    expect(rows[0]).toContain('Trade account');
    expect(rows[1]).toContain('Frozen (901)');
    expect(rows[1]).toContain('Frozen +50.5 USDT');
    expect(rows[2]).toContain('Option stake (400)');
    expect(rows[2]).toContain('-99.2649 USDT');
    expect(rows[2]).toContain('Options account');
    // A code the app has no name for keeps the API's.
    expect(rows[3]).toContain('Some later code (999)');
  });
});
