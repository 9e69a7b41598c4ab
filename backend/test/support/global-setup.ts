import { existsSync } from 'node:fs';

/**
 * When a Docker engine is present and no services are named, start throwaway PostgreSQL and
 * Redis containers with testcontainers (DESIGN §10). Otherwise (this project's CI machines have
 * no Docker engine) the tests use DATABASE_URL / REDIS_URL, default the local services.
 */
export default async function globalSetup(): Promise<void> {
  const dockerSocket = process.env.DOCKER_HOST || existsSync('/var/run/docker.sock');
  if (!dockerSocket || process.env.DATABASE_URL || process.env.REDIS_URL || process.env.TESTCONTAINERS === 'off') return;
  const { GenericContainer, Wait } = await import('testcontainers');
  const pg = await new GenericContainer('postgres:16')
    .withEnvironment({ POSTGRES_HOST_AUTH_METHOD: 'trust' })
    .withExposedPorts(5432)
    .withWaitStrategy(Wait.forLogMessage(/database system is ready to accept connections/, 2))
    .start();
  const redis = await new GenericContainer('redis:7').withExposedPorts(6379).start();
  process.env.DATABASE_URL = `postgres://postgres@${pg.getHost()}:${pg.getMappedPort(5432)}/postgres`;
  process.env.REDIS_URL = `redis://${redis.getHost()}:${redis.getMappedPort(6379)}`;
  (globalThis as { __containers?: unknown[] }).__containers = [pg, redis];
}
