import { limitAddress } from './request-context';

describe('limitAddress: the address a per-address rate limit counts', () => {
  it('an IPv4 address, or one mapped into IPv6, is itself', () => {
    expect(limitAddress('203.0.113.7')).toBe('203.0.113.7');
    expect(limitAddress('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(limitAddress('::FFFF:203.0.113.7')).toBe('203.0.113.7');
  });

  // Regression: each IPv6 address was its own key, so one subscriber's /64 gave 2^64 fresh addresses (one login guess each).
  it('every IPv6 address of one /64 is one key, however it is written', () => {
    const key = '2001:db8:1:2::/64';
    for (const ip of [
      '2001:db8:1:2:3:4:5:6',
      '2001:0db8:0001:0002:ffff:ffff:ffff:ffff',
      '2001:db8:1:2::1',
      '2001:DB8:1:2::',
      '2001:db8:1:2::5%eth0',
      '2001:db8:1:2:0:0:1.2.3.4',
    ])
      expect(limitAddress(ip)).toBe(key);
    expect(limitAddress('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
    expect(limitAddress('::1')).toBe('0:0:0:0::/64');
    expect(limitAddress('2001:db8::')).toBe('2001:db8:0:0::/64');
  });

  it('what is not an address is left as it is', () => {
    for (const ip of ['unknown', '1::2::3', '2001:db8:1:2:3:4:5:6:7', 'zz::1']) expect(limitAddress(ip)).toBe(ip);
  });
});
