import { maskName, splitSale } from './nft-terms';

describe('NFT sale terms', () => {
  it('splits a price into fee (truncated to 8 decimals) and proceeds that add up exactly', () => {
    expect(splitSale('100', '0.025')).toEqual({ price: '100', fee: '2.5', proceeds: '97.5' });
    expect(splitSale('0.00000003', '0.5')).toEqual({ price: '0.00000003', fee: '0.00000001', proceeds: '0.00000002' });
    // 12.34567891 × 0.0333 = 0.411111107703: truncated, not rounded.
    expect(splitSale('12.34567891', '0.0333')).toEqual({ price: '12.34567891', fee: '0.4111111', proceeds: '11.93456781' });
    expect(splitSale('7', '0')).toEqual({ price: '7', fee: '0', proceeds: '7' });
  });

  it('masks an owner name, never showing it whole', () => {
    expect(maskName('kestrel1')).toBe('ke***1');
    expect(maskName('abc')).toBe('a***');
    expect(maskName('')).toBe('***');
    expect(maskName('张三丰四')).toBe('张三***四');
  });
});
