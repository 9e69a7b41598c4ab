import { equityAt, feeOf, isLiquidated, liquidationPrice, maintenanceOf, marginOf, pnlAt, slHit, tpHit, tpSlLive } from './lever-math';

// Worked example (docs/architecture.md, "Contracts"): 10 lots × 100 USDT at 60,000, ×10, maintenance 0.5%.
const long = { side: 'long' as const, lots: 10, lotValue: '100', multiple: 10, openPrice: '60000', maintenanceRate: '0.005' };
const short = { ...long, side: 'short' as const };

describe('contract arithmetic, worked examples', () => {
  it('margin, fee and maintenance', () => {
    expect(marginOf(10, '100', 10).toString()).toBe('100');
    expect(feeOf(10, '100', '0.001').toString()).toBe('1');
    expect(maintenanceOf(long).toString()).toBe('5');
  });

  it('P/L and equity: +2% is +20 long and −20 short', () => {
    expect(pnlAt(long, '61200').toString()).toBe('20');
    expect(pnlAt(short, '61200').toString()).toBe('-20');
    expect(equityAt(long, '61200').toString()).toBe('120');
    expect(pnlAt(long, '60000.01').toString()).toBe('0.00016666'); // 1000 × 0.01/60000, truncated
  });

  it('a P/L that is a whole number of units is exact: 3 lots from 60,000 to 60,200 is 1 (regression: the ratio rounded first made 0.99999999)', () => {
    const three = { ...long, lots: 3 };
    expect(pnlAt(three, '60200').toString()).toBe('1');
    expect(pnlAt({ ...three, side: 'short' }, '60200').toString()).toBe('-1');
    expect(pnlAt(three, '59800').toString()).toBe('-1');
    // An inexact quotient is still truncated toward zero: 100 × (4 − 3) / 3.
    expect(pnlAt({ ...long, lots: 1, openPrice: '3' }, '4').toString()).toBe('33.33333333');
    expect(pnlAt({ ...long, lots: 1, openPrice: '3', side: 'short' }, '4').toString()).toBe('-33.33333333');
  });

  it('liquidation exactly at equity = maintenance: long at 54,300, short at 65,700', () => {
    expect(liquidationPrice(long).toString()).toBe('54300');
    expect(isLiquidated(long, '54300.01')).toBe(false);
    expect(isLiquidated(long, '54300')).toBe(true);
    expect(liquidationPrice(short).toString()).toBe('65700');
    expect(isLiquidated(short, '65699.99')).toBe(false);
    expect(isLiquidated(short, '65700')).toBe(true);
  });

  it('take profit and stop loss trigger on the right side, inclusive', () => {
    expect(tpHit('long', '62000', '62000')).toBe(true);
    expect(tpHit('long', '62000', '61999.99')).toBe(false);
    expect(slHit('long', '59000', '59000')).toBe(true);
    expect(tpHit('short', '58000', '58000')).toBe(true);
    expect(slHit('short', '61000', '60999.99')).toBe(false);
    expect(slHit('short', '61000', '61000.5')).toBe(true);
  });

  it('levels changed after the open count only from ticks after the change', () => {
    expect(tpSlLive({ tpslTickId: null }, '5')).toBe(true);
    expect(tpSlLive({ tpslTickId: '10' }, '10')).toBe(false);
    expect(tpSlLive({ tpslTickId: '10' }, '9')).toBe(false);
    expect(tpSlLive({ tpslTickId: '10' }, '11')).toBe(true);
    expect(tpSlLive({ tpslTickId: '9007199254740993' }, '9007199254740994')).toBe(true);
  });
});
