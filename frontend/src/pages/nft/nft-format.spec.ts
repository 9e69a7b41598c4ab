import { isPrice, nftPrice, proceedsOf } from './nft-format';

describe('NFT price formatting', () => {
  it('shows prices truncated, grouped, without trailing zeros', () => {
    expect(nftPrice('10')).toBe('10');
    expect(nftPrice('97.5')).toBe('97.5');
    expect(nftPrice('1234.123456789')).toBe('1,234.12345678');
    expect(nftPrice('0.000000009')).toBe('0');
    expect(nftPrice(null)).toBe('0');
  });

  it("previews the seller's proceeds as the server computes them (fee truncated to 8 decimals)", () => {
    expect(proceedsOf('25', '0.025')).toBe('24.37500000');
    expect(proceedsOf('12.34567891', '0.0333')).toBe('11.93456781');
    expect(proceedsOf('7', '0')).toBe('7.00000000');
  });

  it('accepts the prices the server accepts', () => {
    for (const ok of ['1', '0.00000001', '150', '999999999999.99999999']) expect(isPrice(ok)).toBe(true);
    for (const bad of ['', '0', '0.000000001', '-1', '1e3', 'abc', '1234567890123']) expect(isPrice(bad)).toBe(false);
  });
});
