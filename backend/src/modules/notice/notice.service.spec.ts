import { messageView, shownParams } from './notice.service';

describe('a message as the app shows it', () => {
  it('groups the numbers of its params by thousands and keeps their digits; other params unchanged', () => {
    expect(shownParams({ amount: '12345.5', coin: 'USDT', remaining: '1000000', pnl: '-2500.25', lots: '3', reason: '20000', due: '2026-12-31' })).toEqual({
      amount: '12,345.5',
      coin: 'USDT',
      remaining: '1,000,000',
      pnl: '-2,500.25',
      lots: '3',
      reason: '20000',
      due: '2026-12-31',
    });
  });

  it('renders a deposit notice with the amount grouped, in the reader’s language', () => {
    const row = {
      id: '7',
      title_key: 'notice.deposit_approved',
      params: { amount: '12345.5', coin: 'USDT' },
      ref: 'deposit:7',
      read_at: null,
      created_at: new Date('2026-12-02T10:00:00Z'),
    };
    expect(messageView(row, 'en').content).toBe('Your deposit of 12,345.5 USDT has been credited');
    expect(messageView(row, 'zh').content).toContain('12,345.5');
  });
});
