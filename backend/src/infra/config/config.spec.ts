import { withEnv } from '../../../test/support/env';
import { loadConfig, trustProxy } from './config';

describe('loadConfig', () => {
  it('reads a number of seconds or milliseconds only as digits: `7d`, `3s` or `2.5` stop the start instead of becoming 7, 3 or 2', () => {
    for (const bad of ['7d', '3s', '2.5', '-1', '1e3']) {
      expect(() => withEnv('USER_TOKEN_TTL_SECONDS', bad, () => loadConfig())).toThrow(
        `USER_TOKEN_TTL_SECONDS must be a non-negative integer (digits only), got "${bad}"`,
      );
    }
    expect(withEnv('USER_TOKEN_TTL_SECONDS', ' 3600 ', () => loadConfig()).userTokenTtlSeconds).toBe(3600);
    expect(withEnv('USER_TOKEN_TTL_SECONDS', '', () => loadConfig()).userTokenTtlSeconds).toBe(7 * 24 * 3600);
  });

  it('gives the flash desk its documented float when FLASH_FLOAT is blank, as for an unset one', () => {
    const documented = { USDT: '1000000', BTC: '10', ETH: '300' };
    expect(withEnv('FLASH_FLOAT', undefined, () => loadConfig()).flashExchange.float).toEqual(documented);
    expect(withEnv('FLASH_FLOAT', '  ', () => loadConfig()).flashExchange.float).toEqual(documented);
    expect(withEnv('FLASH_FLOAT', 'USDT:5', () => loadConfig()).flashExchange.float).toEqual({ USDT: '5' });
  });

  it('lets the flash desk quote at a last trade of at most FLASH_MAX_PRICE_AGE_SECONDS (default 300); outside 1 s to 1 day the start stops', () => {
    expect(withEnv('FLASH_MAX_PRICE_AGE_SECONDS', undefined, () => loadConfig()).flashMaxPriceAgeSeconds).toBe(300);
    expect(withEnv('FLASH_MAX_PRICE_AGE_SECONDS', ' ', () => loadConfig()).flashMaxPriceAgeSeconds).toBe(300);
    expect(withEnv('FLASH_MAX_PRICE_AGE_SECONDS', '60', () => loadConfig()).flashMaxPriceAgeSeconds).toBe(60);
    for (const bad of ['0', '86401'])
      expect(() => withEnv('FLASH_MAX_PRICE_AGE_SECONDS', bad, () => loadConfig())).toThrow('FLASH_MAX_PRICE_AGE_SECONDS must be between 1 and 86400');
    expect(() => withEnv('FLASH_MAX_PRICE_AGE_SECONDS', '5m', () => loadConfig())).toThrow('FLASH_MAX_PRICE_AGE_SECONDS must be a non-negative integer');
  });

  it('takes the flash desk reference window (FLASH_REFERENCE_SECONDS, 60 s to 1 day, default 900) and deviation (FLASH_MAX_DEVIATION, a fraction, default 0.02)', () => {
    expect(withEnv('FLASH_REFERENCE_SECONDS', undefined, () => loadConfig()).flashReferenceSeconds).toBe(900);
    expect(withEnv('FLASH_REFERENCE_SECONDS', '60', () => loadConfig()).flashReferenceSeconds).toBe(60);
    for (const bad of ['59', '86401'])
      expect(() => withEnv('FLASH_REFERENCE_SECONDS', bad, () => loadConfig())).toThrow('FLASH_REFERENCE_SECONDS must be between 60 and 86400');
    expect(withEnv('FLASH_MAX_DEVIATION', undefined, () => loadConfig()).flashMaxDeviation).toBe('0.02');
    expect(withEnv('FLASH_MAX_DEVIATION', '0.005', () => loadConfig()).flashMaxDeviation).toBe('0.005');
    for (const bad of ['0', '0.0', '1', '1.5'])
      expect(() => withEnv('FLASH_MAX_DEVIATION', bad, () => loadConfig())).toThrow('FLASH_MAX_DEVIATION must be a fraction above 0 and below 1');
    expect(() => withEnv('FLASH_MAX_DEVIATION', '2%', () => loadConfig())).toThrow('FLASH_MAX_DEVIATION must be a non-negative decimal');
  });

  it('takes a blank rate limit for its default', () => {
    expect(withEnv('RATE_LIMIT_LOGIN_IP', ' ', () => loadConfig()).rateLimits.loginPerIp).toEqual({ limit: 30, windowSeconds: 60 });
  });

  it('keeps the outbox read (ADMIN_OUTBOX_READ) off unless set to on or 1; a value it cannot read stops the start', () => {
    for (const off of [undefined, '', ' ', 'off', '0']) expect(withEnv('ADMIN_OUTBOX_READ', off, () => loadConfig()).adminOutboxRead).toBe(false);
    for (const on of ['on', '1', ' ON ']) expect(withEnv('ADMIN_OUTBOX_READ', on, () => loadConfig()).adminOutboxRead).toBe(true);
    expect(() => withEnv('ADMIN_OUTBOX_READ', 'yes', () => loadConfig())).toThrow('ADMIN_OUTBOX_READ must be on or off, got "yes"');
  });

  it('takes an ADMIN_PASSWORD of 10 to 128 characters; another stops the start (it is applied on every start, and the login takes no other)', () => {
    expect(withEnv('ADMIN_PASSWORD', 'operator-pass-1', () => loadConfig()).adminPassword).toBe('operator-pass-1');
    expect(withEnv('ADMIN_PASSWORD', undefined, () => loadConfig()).adminPassword).toBeUndefined();
    expect(() => withEnv('ADMIN_PASSWORD', 'short', () => loadConfig())).toThrow('ADMIN_PASSWORD must be 10 to 128 characters, got 5');
    expect(() => withEnv('ADMIN_PASSWORD', 'x'.repeat(129), () => loadConfig())).toThrow('got 129');
  });

  it('gives each user UPLOAD_USER_BYTES_PER_DAY of uploads a day (default 100 MiB); outside 1 MiB to 100 GiB the start stops', () => {
    expect(withEnv('UPLOAD_USER_BYTES_PER_DAY', undefined, () => loadConfig()).uploadUserBytesPerDay).toBe(100 * 1024 * 1024);
    expect(withEnv('UPLOAD_USER_BYTES_PER_DAY', ' ', () => loadConfig()).uploadUserBytesPerDay).toBe(100 * 1024 * 1024);
    expect(withEnv('UPLOAD_USER_BYTES_PER_DAY', '20971520', () => loadConfig()).uploadUserBytesPerDay).toBe(20 * 1024 * 1024);
    for (const bad of ['1048575', '107374182401'])
      expect(() => withEnv('UPLOAD_USER_BYTES_PER_DAY', bad, () => loadConfig())).toThrow('UPLOAD_USER_BYTES_PER_DAY must be between 1048576 and 107374182400');
    expect(() => withEnv('UPLOAD_USER_BYTES_PER_DAY', '100MB', () => loadConfig())).toThrow('UPLOAD_USER_BYTES_PER_DAY must be a non-negative integer');
  });

  it('reads FAST_LANE and WS_COALESCE as on unless `off`', () => {
    expect(withEnv('FAST_LANE', undefined, () => loadConfig()).fastLane).toBe(true);
    expect(withEnv('FAST_LANE', 'off', () => loadConfig()).fastLane).toBe(false);
    expect(withEnv('WS_COALESCE', undefined, () => loadConfig()).wsCoalesce).toBe(true);
    expect(withEnv('WS_COALESCE', 'off', () => loadConfig()).wsCoalesce).toBe(false);
  });
});

describe('trustProxy (TRUST_PROXY as Express takes it)', () => {
  it('gives a hop count as a number, true/false as booleans, and anything else as the list it is', () => {
    expect(trustProxy('1')).toBe(1);
    expect(trustProxy('2')).toBe(2);
    expect(trustProxy('true')).toBe(true);
    expect(trustProxy('false')).toBe(false);
    expect(trustProxy('loopback')).toBe('loopback');
    expect(trustProxy('loopback, 10.0.0.0/8')).toBe('loopback, 10.0.0.0/8');
  });

  it('defaults to loopback', () => {
    expect(withEnv('TRUST_PROXY', undefined, () => loadConfig()).trustProxy).toBe('loopback');
    expect(withEnv('TRUST_PROXY', '1', () => loadConfig()).trustProxy).toBe(1);
  });
});
