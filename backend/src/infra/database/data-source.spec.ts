import { dataSourceOptions } from './data-source';

const URL = 'postgres://postgres@127.0.0.1:5432/kestrel';

describe('dataSourceOptions: the pool', () => {
  const saved = { size: process.env.DB_POOL_SIZE, idle: process.env.DB_POOL_IDLE_MS };
  afterEach(() => {
    for (const [k, v] of [['DB_POOL_SIZE', saved.size], ['DB_POOL_IDLE_MS', saved.idle]] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });

  it('keeps its connections by default: none is closed for being idle (node-postgres would after 10 s)', () => {
    delete process.env.DB_POOL_SIZE;
    delete process.env.DB_POOL_IDLE_MS;
    expect(dataSourceOptions(URL).extra).toEqual({ max: 20, idleTimeoutMillis: 0 });
  });

  it('takes the size and the idle time from the environment', () => {
    process.env.DB_POOL_SIZE = '8';
    process.env.DB_POOL_IDLE_MS = '30000';
    expect(dataSourceOptions(URL).extra).toEqual({ max: 8, idleTimeoutMillis: 30000 });
  });
});
