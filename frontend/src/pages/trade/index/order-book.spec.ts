import type { DepthData } from '@kestrel/contracts';
import { bookView } from './order-book';

const depth = (asks: Array<[string, string]>, bids: Array<[string, string]>) => ({ symbol: 'BTC/USDT', asks, bids }) as unknown as DepthData;

describe('order book view: cumulative depth and spread', () => {
  const d = depth(
    [
      ['101.5', '1'],
      ['102', '3'],
    ],
    [
      ['100', '2'],
      ['99.5', '6'],
    ],
  );
  it('gives each level its running total as a share of the deeper side, best price first', () => {
    const v = bookView(d, 8, 2);
    expect(v.bids).toEqual([
      ['100', '2', '25.00'],
      ['99.5', '6', '100.00'],
    ]);
    expect(v.asks).toEqual([
      ['101.5', '1', '12.50'],
      ['102', '3', '50.00'],
    ]);
  });
  it('truncates a share below 0.01 % to 0.00 (a tiny best level beside a deep book has no visible bar)', () => {
    const v = bookView(
      depth(
        [['101', '100000']],
        [
          ['100', '0.001'],
          ['99', '5'],
        ],
      ),
      8,
      2,
    );
    expect(v.bids.map((l) => l[2])).toEqual(['0.00', '0.00']);
    expect(v.asks.map((l) => l[2])).toEqual(['100.00']);
  });
  it('shows the spread truncated to the tick precision and in % of the best ask (truncated)', () => {
    expect(bookView(d, 8, 2)).toMatchObject({ spread: '1.50', spreadPct: '1.47' });
    expect(bookView(d, 8, 0)).toMatchObject({ spread: '1' });
  });
  it('counts only the levels shown and has no spread with an empty side', () => {
    expect(bookView(d, 1, 2).bids).toEqual([['100', '2', '100.00']]);
    expect(bookView(depth([], [['100', '2']]), 8, 2)).toMatchObject({ spread: null, spreadPct: null, asks: [] });
  });
});
