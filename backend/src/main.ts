import 'reflect-metadata';
import { createApp } from './app.factory';
import { loadConfig } from './infra/config/config';

/**
 * ROLE=all (default, one process: `npm start`) or api serve HTTP; ROLE=worker boots the same
 * application (migrations, queues) without taking HTTP traffic (DESIGN §3).
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const role = process.env.ROLE ?? 'all';
  if (!['all', 'api', 'worker'].includes(role)) throw new Error(`ROLE must be all, api or worker (got "${role}")`);
  const app = await createApp(config);
  if (role === 'worker') {
    await app.init();
    process.stdout.write('Kestrel worker is up\n');
    return;
  }
  await app.listen(config.port, process.env.HOST ?? '0.0.0.0');
  process.stdout.write(`Kestrel is up: http://localhost:${config.port}/  (API /api, docs /api/docs)\n`);
}

main().catch((err) => {
  process.stderr.write(`Kestrel failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
