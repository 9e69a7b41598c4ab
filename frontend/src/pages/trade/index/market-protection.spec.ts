import type { DepthData } from '@kestrel/contracts';
import { MARKET_BAND_PERCENT, marketProtection } from './market-protection';

const depth = (bids: string[], asks: string[]): DepthData => ({
  symbol: 'BTC/USDT',
  bids: bids.map((p) => [p, '1']),
  asks: asks.map((p) => [p, '1']),
});

describe('marketProtection: the worst price a market order from the app is sent with', () => {
  it('is 5 % of the band', () => expect(MARKET_BAND_PERCENT).toBe(5));

  it('a buy may fill at most 5 % above the best ask, on the tick grid', () => {
    expect(marketProtection('buy', depth(['68990.00'], ['69000.00', '69500.00']), '68000.00', '0.01')).toEqual({ reference: '69000.00', worst: '72450.00' });
    // 100.37 × 1.05 = 105.3885: rounded down onto the 0.01 grid, inside the band.
    expect(marketProtection('buy', depth([], ['100.37']), null, '0.01')!.worst).toBe('105.38');
    // A tick of 5: 1013 × 1.05 = 1063.65 → 1060.
    expect(marketProtection('buy', depth([], ['1015']), null, '5')!.worst).toBe('1065');
    expect(marketProtection('buy', depth([], ['1013']), null, '5')!.worst).toBe('1060');
  });

  it('a sell may fill at least 5 % below the best bid, rounded up onto the grid', () => {
    expect(marketProtection('sell', depth(['69000.00'], ['69010.00']), '70000.00', '0.01')).toEqual({ reference: '69000.00', worst: '65550.00' });
    // 100.37 × 0.95 = 95.3515: up to 95.36, so nothing below the band fills.
    expect(marketProtection('sell', depth(['100.37'], []), null, '0.01')!.worst).toBe('95.36');
    // Never under one tick (0 would be the API's "no bound").
    expect(marketProtection('sell', depth(['0.01'], []), null, '0.01')!.worst).toBe('0.01');
    expect(marketProtection('sell', depth(['1'], []), null, '5')!.worst).toBe('5');
    // A buy's bound too (a reference under one tick is off the grid: not from this market's book).
    expect(marketProtection('buy', depth([], ['0.001']), null, '0.01')!.worst).toBe('0.01');
  });

  it('falls back to the last trade when that side of the book is empty', () => {
    expect(marketProtection('buy', depth(['68990.00'], []), '69100.00', '0.01')).toEqual({ reference: '69100.00', worst: '72555.00' });
    expect(marketProtection('sell', null, '200.00', '0.01')).toEqual({ reference: '200.00', worst: '190.00' });
  });

  it('gives no bound to send when there is no price at all (the form refuses the order)', () => {
    expect(marketProtection('buy', null, null, '0.01')).toBeNull();
    expect(marketProtection('sell', depth([], ['1.00']), null, '0.01')).toBeNull();
    expect(marketProtection('buy', depth([], []), '0', '0.01')).toBeNull();
  });
});
