import { act, render, screen } from '@testing-library/react';
import { useState } from 'react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router-dom';
import { financeApi, type WealthProduct } from '../../api/finance';
import { ProductCard, ReportCard } from './finance-parts';
import { ProductList } from './index/finance.page';

const product = (over: Partial<WealthProduct>): WealthProduct => ({
  id: 1,
  code: 'flexible',
  kind: 'flexible',
  type: 1,
  name: 'Flexible fund',
  currency: 'USDT',
  days: 0,
  min_amount: '100',
  daily_rate: '0.004242',
  total_rate: '0',
  accrual_min: '10000',
  penalty_mode: 'none',
  penalty_ratio: '0',
  penalty_multiple: '0',
  capacity: '5000000',
  sold: '0',
  left: '5000000',
  progress: '0',
  rush_share: '0',
  status: 'in_progress',
  sale_start: '2026-12-01T00:00:00.000Z',
  sale_end: null,
  starts_in_seconds: 0,
  ends_in_seconds: null,
  ...over,
});

describe('wealth cards', () => {
  it("headline a flexible fund's daily rate to the 4 decimals of the fixed terms' daily line (zeros past 2 dropped), and name the remaining capacity's currency", () => {
    render(
      <MemoryRouter>
        <ul>
          <ProductCard p={product({})} loadedAt={Date.now()} />
          <ProductCard p={product({ id: 3, code: 'flexible-2', daily_rate: '0.0042' })} loadedAt={Date.now()} />
          <ProductCard p={product({ id: 2, code: 'hosting-7d', kind: 'fixed', days: 7, total_rate: '0.029694', left: '1000000' })} loadedAt={Date.now()} />
        </ul>
      </MemoryRouter>,
    );
    const [flexible, round, fixed] = screen.getAllByTestId('wealth-product');
    // Truncated, never rounded: 0.4242 %, not 0.42 %.
    expect(flexible.querySelector('.wealth-card__rate')!.textContent).toBe('0.4242%');
    expect(round.querySelector('.wealth-card__rate')!.textContent).toBe('0.42%');
    expect(flexible.textContent).toContain('5,000,000.00 USDT');
    expect(fixed.querySelector('.wealth-card__rate')!.textContent).toBe('2.96%');
    expect(fixed.textContent).toContain('0.4242%');
    expect(fixed.textContent).toContain('1,000,000.00 USDT');
  });

  it("show the report's amounts with its currency", () => {
    render(
      <ReportCard
        report={{ currency: 'USDT', held: '1000', earned_today: '4.2', earned_total: '12.34567', hosting_orders: 1, trust_available: '0', trust_frozen: '0' }}
      />,
    );
    expect(screen.getByTestId('report-held').textContent).toBe('1,000.00 USDT');
    expect(screen.getByTestId('wealth-report').textContent).toContain('4.2000 USDT');
    expect(screen.getByTestId('wealth-report').textContent).toContain('12.3456 USDT');
  });
});

describe('the product list of a tab', () => {
  afterEach(() => jest.restoreAllMocks());
  function Tabs() {
    const [type, setType] = useState<1 | 2>(1);
    return <ProductList type={type} onType={setType} />;
  }
  it("shows only the chosen tab's products: a late answer for the tab left is dropped, and the new tab starts from a skeleton", async () => {
    const answers: Record<number, (items: WealthProduct[]) => void> = {};
    jest.spyOn(financeApi, 'products').mockImplementation((type) => new Promise((resolve) => (answers[type] = resolve)));
    render(
      <MemoryRouter>
        <Tabs />
      </MemoryRouter>,
    );
    await userEvent.click(screen.getByTestId('wealth-type-2'));
    await act(async () => answers[1]([product({ id: 1, name: 'Hosting fund' })]));
    expect(screen.queryByText('Hosting fund')).toBeNull();
    await act(async () => answers[2]([product({ id: 2, type: 2, name: 'Rig rental 30 days' })]));
    expect(screen.getByText('Rig rental 30 days')).toBeTruthy();
    expect(screen.queryByText('Hosting fund')).toBeNull();
  });
});
