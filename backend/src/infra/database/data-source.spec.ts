import { withEnv } from '../../../test/support/env';
import { dataSourceOptions } from './data-source';

const URL = 'postgres://postgres@127.0.0.1:5432/kestrel';

/** The options built with the pool's two settings as given (undefined: unset). */
const withPool = (size: string | undefined, idleMs: string | undefined) =>
  withEnv('DB_POOL_SIZE', size, () => withEnv('DB_POOL_IDLE_MS', idleMs, () => dataSourceOptions(URL)));

describe('dataSourceOptions: the pool', () => {
  it('keeps its connections by default: none is closed for being idle (node-postgres would after 10 s)', () => {
    expect(withPool(undefined, undefined).extra).toEqual({ max: 20, idleTimeoutMillis: 0 });
  });

  it('takes the size and the idle time from the environment', () => {
    expect(withPool('8', '30000').extra).toEqual({ max: 8, idleTimeoutMillis: 30000 });
  });

  it('refuses a size or an idle time that is not a whole number in range (no silent pool of 10, no NaN that never closes one)', () => {
    expect(() => withPool('abc', undefined)).toThrow('DB_POOL_SIZE must be a non-negative integer (digits only), got "abc"');
    expect(() => withPool('0', undefined)).toThrow('DB_POOL_SIZE must be between 1 and 1000, got "0"');
    expect(() => withPool(undefined, '10s')).toThrow('DB_POOL_IDLE_MS must be a non-negative integer (digits only), got "10s"');
  });
});
