import { NestExpressApplication } from '@nestjs/platform-express';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { createApp } from '../../src/app.factory';
import { AppConfig, loadConfig } from '../../src/infra/config/config';

/**
 * Medium tier: the real app on real PostgreSQL and Redis (DESIGN §10). Each test file gets its
 * own freshly migrated database and its own Redis key prefix, so files share no state.
 * Services come from DATABASE_URL / REDIS_URL, default the local ones.
 */
export const SERVER_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
export const ADMIN = { email: 'ops@kestrel.test', password: 'operator-pass-1' };

const generous = { limit: 10_000, windowSeconds: 60 };

export interface TestApp {
  app: NestExpressApplication;
  http: () => ReturnType<typeof request>;
  ds: DataSource;
  config: AppConfig;
  databaseUrl: string;
  close: () => Promise<void>;
}

export function withDatabase(url: string, db: string): string {
  const u = new URL(url);
  u.pathname = `/${db}`;
  return u.toString();
}

export async function createDatabase(): Promise<{ name: string; url: string; drop: () => Promise<void> }> {
  const name = `kestrel_t_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: withDatabase(SERVER_URL, 'postgres') });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  return {
    name,
    url: withDatabase(SERVER_URL, name),
    drop: async () => {
      const c = new Client({ connectionString: withDatabase(SERVER_URL, 'postgres') });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await c.end();
    },
  };
}

export async function startTestApp(overrides: Partial<AppConfig> = {}): Promise<TestApp> {
  const db = await createDatabase();
  const config = loadConfig({
    databaseUrl: db.url,
    redisUrl: REDIS_URL,
    redisPrefix: `test:${db.name}:`,
    // Warnings and errors are printed (a failure in CI explains itself, e.g. the sequencer stepping down); TEST_LOG_LEVEL=silent hides them.
    logLevel: process.env.TEST_LOG_LEVEL ?? 'warn',
    adminEmail: ADMIN.email,
    adminPassword: ADMIN.password,
    marketSimulator: false,
    tokenCacheMs: 0,
    // The outbox read as a server has it by default (off), whatever ADMIN_OUTBOX_READ the run has (.ci/run sets it for the browser tests).
    adminOutboxRead: false,
    // No flash-desk float unless a test asks for one: ledger totals stay the test's own.
    flashExchange: { feeRate: '0.002', quoteTtlSeconds: 15, float: {} },
    // A suite's trades are made once, in its setup: a slow run must not age them out of the desk's
    // prices (fpjy.spec lowers this itself to test the rule).
    flashMaxPriceAgeSeconds: 86_400,
    ...overrides,
    rateLimits: {
      fundPassword: generous,
      loginPerIp: generous,
      loginPerAccount: generous,
      loginPerAccountAll: generous,
      registerPerIp: generous,
      codePerIp: generous,
      codePerTarget: generous,
      codeGuessPerTarget: generous,
      codeGuessPerAddress: generous,
      lookupPerIp: generous,
      withdrawPerUser: generous,
      flashQuotePerUser: generous,
      helpPerUser: generous,
      ...(overrides.rateLimits ?? {}),
    },
  });
  const app = await createApp(config);
  await app.init();
  const ds = app.get(DataSource);
  return {
    app,
    ds,
    config,
    databaseUrl: db.url,
    http: () => request(app.getHttpServer()),
    close: async () => {
      await app.close();
      await db.drop();
    },
  };
}
