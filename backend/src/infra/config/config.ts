/** Runtime configuration, read once from the environment. Every knob is documented in docs/operations.md. */
export interface RateLimitRule {
  limit: number;
  windowSeconds: number;
}

export interface AppConfig {
  env: string;
  port: number;
  databaseUrl: string;
  redisUrl: string;
  /** Prefix for every Redis key this process writes (lets tests and tenants share one Redis). */
  redisPrefix: string;
  logLevel: string;
  userTokenTtlSeconds: number;
  adminTokenTtlSeconds: number;
  /** How long a process trusts a verified token without asking the database again. */
  tokenCacheMs: number;
  adminEmail?: string;
  adminPassword?: string;
  frontendDist?: string;
  /** The market simulator (DESIGN §7): on unless MARKET_SIMULATOR=off. */
  marketSimulator: boolean;
  /** Directory of the local-disk upload storage (UPLOAD_DIR). */
  uploadDir: string;
  /** Image uploads per user (RATE_LIMIT_UPLOAD_USER). */
  uploadRateLimit: RateLimitRule;
  rateLimits: {
    loginPerIp: RateLimitRule;
    loginPerAccount: RateLimitRule;
    registerPerIp: RateLimitRule;
    codePerIp: RateLimitRule;
    codePerTarget: RateLimitRule;
  };
}

function int(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number.parseInt(raw, 10);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return n;
}

/** An unset or blank variable is absent (an empty ADMIN_PASSWORD must never become a password). */
function text(name: string): string | undefined {
  const raw = process.env[name]?.trim();
  return raw ? raw : undefined;
}

/** "10/60" = 10 requests per 60 seconds. */
function rule(name: string, fallback: string): RateLimitRule {
  const raw = process.env[name] ?? fallback;
  const m = /^(\d+)\/(\d+)$/.exec(raw);
  if (!m) throw new Error(`${name} must look like LIMIT/SECONDS (e.g. 10/60), got "${raw}"`);
  return { limit: Number(m[1]), windowSeconds: Number(m[2]) };
}

export function loadConfig(overrides: Partial<AppConfig> = {}): AppConfig {
  const base: AppConfig = {
    env: process.env.NODE_ENV ?? 'development',
    port: int('PORT', 3000),
    databaseUrl: text('DATABASE_URL') ?? 'postgres://postgres@127.0.0.1:5432/kestrel',
    redisUrl: text('REDIS_URL') ?? 'redis://127.0.0.1:6379',
    redisPrefix: process.env.REDIS_PREFIX ?? 'kestrel:',
    logLevel: process.env.LOG_LEVEL ?? 'info',
    userTokenTtlSeconds: int('USER_TOKEN_TTL_SECONDS', 7 * 24 * 3600),
    adminTokenTtlSeconds: int('ADMIN_TOKEN_TTL_SECONDS', 12 * 3600),
    tokenCacheMs: int('TOKEN_CACHE_MS', 2000),
    adminEmail: text('ADMIN_EMAIL'),
    adminPassword: text('ADMIN_PASSWORD'),
    frontendDist: text('FRONTEND_DIST'),
    marketSimulator: (process.env.MARKET_SIMULATOR ?? 'on') !== 'off',
    uploadDir: text('UPLOAD_DIR') ?? './.data/uploads',
    uploadRateLimit: rule('RATE_LIMIT_UPLOAD_USER', '60/3600'),
    rateLimits: {
      loginPerIp: rule('RATE_LIMIT_LOGIN_IP', '30/60'),
      loginPerAccount: rule('RATE_LIMIT_LOGIN_ACCOUNT', '10/300'),
      registerPerIp: rule('RATE_LIMIT_REGISTER_IP', '20/3600'),
      codePerIp: rule('RATE_LIMIT_CODE_IP', '20/3600'),
      codePerTarget: rule('RATE_LIMIT_CODE_TARGET', '10/3600'),
    },
  };
  const config = { ...base, ...overrides, rateLimits: { ...base.rateLimits, ...(overrides.rateLimits ?? {}) } };
  if (config.adminPassword !== undefined && config.adminPassword.length < 10) throw new Error('ADMIN_PASSWORD must be at least 10 characters');
  return config;
}

export const APP_CONFIG = Symbol('APP_CONFIG');
