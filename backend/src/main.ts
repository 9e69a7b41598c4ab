import 'reflect-metadata';
import { createApp } from './app.factory';
import { loadConfig, role as currentRole } from './infra/config/config';

/**
 * One image, four roles (DESIGN §3, docs/operations.md):
 * - `all` (default, `npm start`): everything in one process.
 * - `api`: HTTP and sockets, stateless; commands for the sequencer go to the engine over Redis.
 * - `engine`: contends for the sequencer's lease (one active, the others standby); the active one
 *   runs the sequencer, its projector and what reads the books (market data, mark prices, the
 *   simulator). It listens on PORT for its health check only (not behind the proxy).
 * - `worker`: the BullMQ jobs (option delivery, contract watcher, daily jobs). Like the engine it
 *   listens on PORT for its health check only.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const role = currentRole();
  const app = await createApp(config);
  await app.listen(config.port, process.env.HOST ?? '0.0.0.0');
  process.stdout.write(
    role === 'engine' || role === 'worker'
      ? `Kestrel ${role} is up (health: http://localhost:${config.port}/api/health)\n`
      : `Kestrel is up: http://localhost:${config.port}/  (API /api, docs /api/docs)\n`,
  );
}

main().catch((err) => {
  process.stderr.write(`Kestrel failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
