/** Runtime configuration, read once from the environment. Every knob is documented in docs/operations.md. */
export interface RateLimitRule {
  limit: number;
  windowSeconds: number;
}

export interface AppConfig {
  env: string;
  port: number;
  /**
   * How long the HTTP server keeps an idle keep-alive connection open (HTTP_KEEP_ALIVE_MS, 1 s–10 min,
   * default 65 s): longer than a balancer's idle timeout for its upstream connections (nginx's
   * `keepalive_timeout`, 60 s in infra/nginx/nginx.conf), so the server never closes one it may
   * be sending a request on.
   */
  httpKeepAliveMs: number;
  /**
   * Express's `trust proxy` setting (TRUST_PROXY, default `loopback`): a number is how many proxies
   * in front of the server to trust (`1` behind one proxy such as nginx), `true`/`false` all or none,
   * anything else a comma-separated list of addresses, subnets or Express's names (`loopback`, …).
   */
  trustProxy: boolean | number | string;
  /**
   * The order lanes (FAST_LANE, on unless `off`): `POST`/`PUT /api/coin/trade` answered by the HTTP
   * fast lane and Socket.IO `order` messages read from the connection; `off` sends both through
   * Express and Socket.IO's dispatch (same answers).
   */
  fastLane: boolean;
  /** One write per WebSocket per event-loop turn (WS_COALESCE, on unless `off`: only for measuring it). */
  wsCoalesce: boolean;
  databaseUrl: string;
  redisUrl: string;
  /** Prefix for every Redis key this process writes (lets tests and tenants share one Redis). */
  redisPrefix: string;
  logLevel: string;
  /** Where the logs go (default stdout): the secrets-in-logs test captures a whole run's logs here. */
  logStream?: { write(line: string): void };
  userTokenTtlSeconds: number;
  adminTokenTtlSeconds: number;
  /** How long a process trusts a verified token without asking the database again. */
  tokenCacheMs: number;
  adminEmail?: string;
  adminPassword?: string;
  /**
   * `GET admin/outbox` answers (ADMIN_OUTBOX_READ=on, off unless set, in every environment): the
   * outbox holds the text of users' messages, one-time codes included, so reading it lets an operator
   * reset a password or approve an address as the user. Only for an install without a real SMS/e-mail
   * gateway (development, the browser tests); every read is recorded as an event with the operator.
   */
  adminOutboxRead: boolean;
  frontendDist?: string;
  /** The market simulator (DESIGN §7): on unless MARKET_SIMULATOR=off. */
  marketSimulator: boolean;
  /** Withdrawal rules (spec §9): requests per UTC day, and the daily USDT-equivalent limit per verification level. */
  withdrawals: { perDay: number; dailyLimitBasic: string; dailyLimitAdvanced: string };
  /** Flash exchange: fee rate taken from what the user receives, quote lifetime, and the desk's starting float. */
  flashExchange: { feeRate: string; quoteTtlSeconds: number; float: Record<string, string> };
  /**
   * How old the last trade of a `<coin>/USDT` market may be for the flash desk to quote at it
   * (FLASH_MAX_PRICE_AGE_SECONDS, 1 s–1 day, default 300 s); older, the coin has no price to convert at.
   */
  flashMaxPriceAgeSeconds: number;
  /**
   * The flash desk's reference price (PricingService.deskPrices): the median by time of a market's
   * last trade over this window (FLASH_REFERENCE_SECONDS, 60 s–1 day, default 900 s), and how far
   * the last trade may stand from it for the desk to quote (FLASH_MAX_DEVIATION, a fraction above 0
   * and below 1, default 0.02).
   */
  flashReferenceSeconds: number;
  flashMaxDeviation: string;
  /**
   * The sequencer (docs/architecture.md): commands per journal row at most, commands taken but not
   * yet projected (queued ones too) past which new commands are refused (the lag bound), and
   * unprojected past which the next journal write waits for the projector (backpressure), commands per projector
   * transaction at most, commands between snapshots; the lease's lifetime (ms: a standby takes over
   * this long after the holder stops renewing) and how a process reaches the sequencer (`local`: it
   * runs here; `redis`: commands are forwarded over a Redis stream to the lease holder).
   */
  engine: {
    maxBatch: number;
    maxUnprojected: number;
    projectAhead: number;
    /** ms: a batch answered this long ago and not projected makes the next journal write wait too. */
    projectAheadMs: number;
    /** The least time between the starts of two journal writes (GroupCommitOptions.journalIntervalMs). */
    journalIntervalMs: number;
    /**
     * ms a command may wait in the queue while journal writes are held for the projector (over one hold or
     * several) before it is refused with 2106 instead of journaled; once one hold lasts this long, every queued
     * and every new command is refused until it ends (ENGINE_HELD_REFUSE_MS, 100 ms–10 min, default 4 s:
     * below ENGINE_FORWARD_TIMEOUT_MS's 5 s, so a forwarded command hears the 2106 rather than the api
     * process's 2107; GroupCommitOptions.heldRefuseMs): the lag bound in time, beside ENGINE_MAX_UNPROJECTED's in commands.
     */
    heldRefuseMs: number;
    projectBatch: number;
    /** ms the projector lets batches gather before a transaction (a waiting read cuts it short). */
    projectLingerMs: number;
    snapshotEvery: number;
    projectorThread: boolean;
    /** The projector thread's nice value (0: the process's priority). */
    projectorNice: number;
    leaseMs: number;
    transport: 'local' | 'redis';
    /** How long an api process waits for the engine's answer before saying "unknown, retry with the same id". */
    forwardTimeoutMs: number;
  };
  /** BullMQ workers (option delivery, contract watcher) run in this process (OPTION_WORKER, on unless `off`; never in ROLE=api). */
  optionWorker: boolean;
  /** Directory of the local-disk upload storage (UPLOAD_DIR). */
  uploadDir: string;
  /** Image uploads per user (RATE_LIMIT_UPLOAD_USER), counted before the file is read. */
  uploadRateLimit: RateLimitRule;
  /**
   * Bytes of stored images a user may have uploaded in the last 24 hours (UPLOAD_USER_BYTES_PER_DAY,
   * 1 MiB–100 GiB, default 100 MiB): a disk budget, since an upload is kept whether or not it is used.
   */
  uploadUserBytesPerDay: number;
  /** Largest JSON or form-encoded body in bytes (BODY_LIMIT_BYTES, 1 KiB–10 MiB, default 1 MiB); multipart uploads have UPLOAD_LIMITS. */
  bodyLimitBytes: number;
  /** Crash tests only (FAULT_POINTS, comma-separated, default none): named points where the process kills itself with SIGKILL. */
  faultPoints: string[];
  rateLimits: {
    fundPassword: RateLimitRule;
    loginPerIp: RateLimitRule;
    loginPerAccount: RateLimitRule;
    /** Wrong login passwords per account from every address (RATE_LIMIT_LOGIN_ACCOUNT_ALL): past it an address gets one guess per loginPerAccount window. */
    loginPerAccountAll: RateLimitRule;
    registerPerIp: RateLimitRule;
    codePerIp: RateLimitRule;
    codePerTarget: RateLimitRule;
    /**
     * Wrong verification codes per recipient and purpose over all its codes, from every address
     * (RATE_LIMIT_CODE_GUESS): past it an address gets one try per codeGuessPerAddress window (the
     * signed-in owner's own codes: every try is refused until the window ends).
     */
    codeGuessPerTarget: RateLimitRule;
    /** Wrong `register`/`forget` codes per recipient and address (RATE_LIMIT_CODE_GUESS_IP): past it that address is refused, the right code too. */
    codeGuessPerAddress: RateLimitRule;
    /** `user/check_mobile` and `user/check_email` per IP (RATE_LIMIT_LOOKUP_IP): they tell anyone whether an account exists. */
    lookupPerIp: RateLimitRule;
    /** Withdrawal requests per user (RATE_LIMIT_WITHDRAW_USER), accepted or refused, before any other check. */
    withdrawPerUser: RateLimitRule;
    /** Flash-exchange quotes per user (RATE_LIMIT_FLASH_USER): each is kept in Redis, and its conversion is recorded for good. */
    flashQuotePerUser: RateLimitRule;
    /** Help-centre writes per user (RATE_LIMIT_HELP_USER): feedback and chat messages, each a row kept for good. */
    helpPerUser: RateLimitRule;
  };
}

/** An unset or blank variable is the fallback; anything but digits stops the start (`7d` or `3s` is not read as 7 or 3). */
function int(name: string, fallback: number): number {
  const raw = process.env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d{1,15}$/.test(raw)) throw new Error(`${name} must be a non-negative integer (digits only), got "${raw}"`);
  return Number(raw);
}

/**
 * ENGINE_MAX_UNPROJECTED, at most a tenth of the sequencer's idempotency window (1,000,000 command
 * ids): a command applied but not yet projected must still be inside the window, since
 * `sequencer_commands` (what answers a retry past it) is written by the projector. It counts the
 * commands queued for a journal write too, and the backpressure keeps the unprojected ones below
 * ENGINE_PROJECT_AHEAD + ENGINE_MAX_BATCH (5,000 by default): the default 20,000 leaves the queue
 * ~15,000 (a second of a held write at the benchmarks' 10,000–15,000 commands/s) before a stalled
 * projector gets commands refused.
 */
function lagBound(): number {
  const n = int('ENGINE_MAX_UNPROJECTED', 20_000);
  if (n > 100_000) throw new Error(`ENGINE_MAX_UNPROJECTED must be at most 100000 (a tenth of the sequencer's idempotency window), got ${n}`);
  return n;
}

/**
 * ENGINE_PROJECT_AHEAD, from 1 to below the lag bound: at 0 every journal write would wait for the
 * projector with nothing to project (no command would ever be written), and at or past the lag bound
 * commands would be refused before the backpressure ever held a write.
 */
function projectAhead(maxUnprojected: number): number {
  const n = int('ENGINE_PROJECT_AHEAD', 4000);
  if (n < 1 || n >= maxUnprojected) throw new Error(`ENGINE_PROJECT_AHEAD must be at least 1 and below ENGINE_MAX_UNPROJECTED (${maxUnprojected}), got ${n}`);
  return n;
}

/** An unset or blank variable is absent (an empty ADMIN_PASSWORD must never become a password). */
function text(name: string): string | undefined {
  const raw = process.env[name]?.trim();
  return raw ? raw : undefined;
}

/** ADMIN_PASSWORD: set on every start (seed), so one that could never log in (the login takes 10–128 characters) stops the start instead. */
function operatorPassword(raw: string | undefined): string | undefined {
  if (raw !== undefined && (raw.length < 10 || raw.length > 128)) throw new Error(`ADMIN_PASSWORD must be 10 to 128 characters, got ${raw.length}`);
  return raw;
}

function decimal(name: string, fallback: string): string {
  const raw = process.env[name]?.trim() || fallback;
  if (!/^\d{1,18}(\.\d{1,18})?$/.test(raw)) throw new Error(`${name} must be a non-negative decimal, got "${raw}"`);
  return raw;
}

/** A decimal strictly between 0 and 1 (a share): anything else stops the start. */
function fraction(name: string, fallback: string): string {
  const raw = decimal(name, fallback);
  if (!/^0\.\d*[1-9]\d*$/.test(raw)) throw new Error(`${name} must be a fraction above 0 and below 1, got "${raw}"`);
  return raw;
}

/** An opt-in switch: `on` (or `1`) turns it on; unset, blank, `off` or `0` leaves it off; anything else stops the start. */
function optIn(name: string): boolean {
  const raw = process.env[name]?.trim().toLowerCase();
  if (raw === undefined || raw === '' || raw === 'off' || raw === '0') return false;
  if (raw === 'on' || raw === '1') return true;
  throw new Error(`${name} must be on or off, got "${process.env[name]}"`);
}

/** "USDT:1000000,BTC:10" → { USDT: '1000000', BTC: '10' }. */
function floats(name: string, fallback: string): Record<string, string> {
  const raw = process.env[name]?.trim() || fallback;
  const out: Record<string, string> = {};
  for (const part of raw.split(',').filter(Boolean)) {
    const m = /^([A-Z0-9]{2,16}):(\d{1,18}(\.\d{1,18})?)$/.exec(part.trim());
    if (!m) throw new Error(`${name} must look like USDT:1000000,BTC:10, got "${raw}"`);
    out[m[1]] = m[2];
  }
  return out;
}

/** ROLE: `all` (one process, the default) or one of the split roles (DESIGN §3). */
export type Role = 'all' | 'api' | 'engine' | 'worker';
export const ROLES: readonly Role[] = ['all', 'api', 'engine', 'worker'];

export function role(): Role {
  const r = process.env.ROLE ?? 'all';
  if (!(ROLES as readonly string[]).includes(r)) throw new Error(`ROLE must be one of ${ROLES.join(', ')} (got "${r}")`);
  return r as Role;
}

/** ENGINE_TRANSPORT: `local` for ROLE=all, `redis` for the split roles unless set. */
function transport(): 'local' | 'redis' {
  const raw = process.env.ENGINE_TRANSPORT ?? (role() === 'all' ? 'local' : 'redis');
  if (raw !== 'local' && raw !== 'redis') throw new Error(`ENGINE_TRANSPORT must be local or redis (got "${raw}")`);
  return raw;
}

/** "10/60" = 10 requests per 60 seconds. */
function rule(name: string, fallback: string): RateLimitRule {
  const raw = process.env[name]?.trim() || fallback;
  const m = /^(\d+)\/(\d+)$/.exec(raw);
  if (!m) throw new Error(`${name} must look like LIMIT/SECONDS (e.g. 10/60), got "${raw}"`);
  if (Number(m[1]) < 1 || Number(m[2]) < 1) throw new Error(`${name} needs a limit and a window of at least 1, got "${raw}"`);
  return { limit: Number(m[1]), windowSeconds: Number(m[2]) };
}

/**
 * An integer variable that must lie in [min, max]; outside it the start stops. Exported for the few
 * settings read where they are used (the pool's, the simulator's clock, the pushes' conflation).
 */
export function intBetween(name: string, fallback: number, min: number, max: number): number {
  const n = int(name, fallback);
  if (n < min || n > max) throw new Error(`${name} must be between ${min} and ${max}, got "${n}"`);
  return n;
}

/**
 * TRUST_PROXY as Express reads its `trust proxy` setting: a hop count must reach it as a number (the
 * string `'1'` would be taken for the address 0.0.0.1, so behind nginx every client would have
 * nginx's address and no `X-Forwarded-Proto` would be believed).
 */
export function trustProxy(raw: string): boolean | number | string {
  if (raw === 'true' || raw === 'false') return raw === 'true';
  return /^\d+$/.test(raw) ? Number(raw) : raw;
}

export function loadConfig(overrides: Partial<AppConfig> = {}): AppConfig {
  const maxUnprojected = lagBound();
  const base: AppConfig = {
    env: process.env.NODE_ENV ?? 'development',
    port: int('PORT', 3000),
    httpKeepAliveMs: intBetween('HTTP_KEEP_ALIVE_MS', 65_000, 1000, 600_000),
    trustProxy: trustProxy(text('TRUST_PROXY') ?? 'loopback'),
    fastLane: (process.env.FAST_LANE ?? 'on') !== 'off',
    wsCoalesce: (process.env.WS_COALESCE ?? 'on') !== 'off',
    databaseUrl: text('DATABASE_URL') ?? 'postgres://postgres@127.0.0.1:5432/kestrel',
    redisUrl: text('REDIS_URL') ?? 'redis://127.0.0.1:6379',
    redisPrefix: process.env.REDIS_PREFIX ?? 'kestrel:',
    logLevel: process.env.LOG_LEVEL ?? 'info',
    userTokenTtlSeconds: int('USER_TOKEN_TTL_SECONDS', 7 * 24 * 3600),
    adminTokenTtlSeconds: int('ADMIN_TOKEN_TTL_SECONDS', 12 * 3600),
    tokenCacheMs: int('TOKEN_CACHE_MS', 2000),
    adminEmail: text('ADMIN_EMAIL'),
    adminPassword: operatorPassword(text('ADMIN_PASSWORD')),
    adminOutboxRead: optIn('ADMIN_OUTBOX_READ'),
    frontendDist: text('FRONTEND_DIST'),
    marketSimulator: (process.env.MARKET_SIMULATOR ?? 'on') !== 'off',
    withdrawals: {
      perDay: int('WITHDRAW_PER_DAY', 3),
      dailyLimitBasic: decimal('WITHDRAW_DAILY_LIMIT_BASIC', '2000'),
      dailyLimitAdvanced: decimal('WITHDRAW_DAILY_LIMIT_ADVANCED', '50000'),
    },
    engine: {
      maxBatch: int('ENGINE_MAX_BATCH', 1000),
      journalIntervalMs: intBetween('ENGINE_JOURNAL_INTERVAL_MS', 4, 0, 100),
      heldRefuseMs: intBetween('ENGINE_HELD_REFUSE_MS', 4000, 100, 600_000),
      maxUnprojected,
      projectAhead: projectAhead(maxUnprojected),
      projectAheadMs: Math.max(10, int('ENGINE_PROJECT_AHEAD_MS', 400)),
      projectBatch: int('ENGINE_PROJECT_BATCH', 1000),
      projectLingerMs: int('ENGINE_PROJECT_LINGER_MS', 30),
      snapshotEvery: int('ENGINE_SNAPSHOT_EVERY', 50_000),
      projectorThread: (process.env.ENGINE_PROJECTOR_THREAD ?? 'on') !== 'off',
      projectorNice: Math.min(19, Math.max(0, int('ENGINE_PROJECTOR_NICE', 10))),
      leaseMs: Math.max(500, int('ENGINE_LEASE_MS', 3000)),
      transport: transport(),
      forwardTimeoutMs: Math.max(100, int('ENGINE_FORWARD_TIMEOUT_MS', 5000)),
    },
    flashExchange: {
      feeRate: decimal('FLASH_FEE_RATE', '0.002'),
      quoteTtlSeconds: int('FLASH_QUOTE_TTL_SECONDS', 15),
      float: floats('FLASH_FLOAT', 'USDT:1000000,BTC:10,ETH:300'),
    },
    flashMaxPriceAgeSeconds: intBetween('FLASH_MAX_PRICE_AGE_SECONDS', 300, 1, 86_400),
    flashReferenceSeconds: intBetween('FLASH_REFERENCE_SECONDS', 900, 60, 86_400),
    flashMaxDeviation: fraction('FLASH_MAX_DEVIATION', '0.02'),
    optionWorker: (process.env.OPTION_WORKER ?? 'on') !== 'off',
    uploadDir: text('UPLOAD_DIR') ?? './.data/uploads',
    uploadRateLimit: rule('RATE_LIMIT_UPLOAD_USER', '60/3600'),
    uploadUserBytesPerDay: intBetween('UPLOAD_USER_BYTES_PER_DAY', 100 * 1024 * 1024, 1024 * 1024, 100 * 1024 * 1024 * 1024),
    bodyLimitBytes: intBetween('BODY_LIMIT_BYTES', 1024 * 1024, 1024, 10 * 1024 * 1024),
    faultPoints: (process.env.FAULT_POINTS ?? '')
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean),
    rateLimits: {
      fundPassword: rule('RATE_LIMIT_FUND_PASSWORD', '5/900'),
      loginPerIp: rule('RATE_LIMIT_LOGIN_IP', '30/60'),
      loginPerAccount: rule('RATE_LIMIT_LOGIN_ACCOUNT', '10/300'),
      loginPerAccountAll: rule('RATE_LIMIT_LOGIN_ACCOUNT_ALL', '100/3600'),
      registerPerIp: rule('RATE_LIMIT_REGISTER_IP', '20/3600'),
      codePerIp: rule('RATE_LIMIT_CODE_IP', '20/3600'),
      codePerTarget: rule('RATE_LIMIT_CODE_TARGET', '10/3600'),
      codeGuessPerTarget: rule('RATE_LIMIT_CODE_GUESS', '20/86400'),
      codeGuessPerAddress: rule('RATE_LIMIT_CODE_GUESS_IP', '10/3600'),
      lookupPerIp: rule('RATE_LIMIT_LOOKUP_IP', '30/60'),
      withdrawPerUser: rule('RATE_LIMIT_WITHDRAW_USER', '20/3600'),
      flashQuotePerUser: rule('RATE_LIMIT_FLASH_USER', '60/60'),
      helpPerUser: rule('RATE_LIMIT_HELP_USER', '30/60'),
    },
  };
  const config = { ...base, ...overrides, rateLimits: { ...base.rateLimits, ...(overrides.rateLimits ?? {}) } };
  if (config.adminPassword !== undefined && config.adminPassword.length < 10) throw new Error('ADMIN_PASSWORD must be at least 10 characters');
  return config;
}

export const APP_CONFIG = Symbol('APP_CONFIG');
