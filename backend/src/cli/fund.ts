import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { loadConfig } from '../infra/config/config';
import { dataSourceOptions } from '../infra/database/data-source';
import { isDecimalString } from '../infra/money';
import { coinLeg, systemLeg } from '../modules/engine/trade-account-commands';
import { LedgerCode } from '../modules/ledger/ledger-codes';

/**
 * Operator tool: bring money in as recorded system funding (ledger code 900, against the external
 * account), e.g. for a market maker's float or a load test's accounts. It needs database access;
 * there is deliberately no HTTP endpoint for it. Every posting carries the operator's reason.
 *
 *   node backend/dist/cli/fund.js --users 12,13 --currency 3 --amount 100000 --reason "load test float"
 */
function arg(name: string): string {
  const i = process.argv.indexOf(`--${name}`);
  const value = i >= 0 ? process.argv[i + 1] : undefined;
  if (!value) throw new Error(`missing --${name}`);
  return value;
}

async function main(): Promise<void> {
  const users = arg('users').split(',').map((u) => Number(u));
  const currencyId = Number(arg('currency'));
  const amount = arg('amount');
  const reason = arg('reason');
  if (users.some((u) => !Number.isSafeInteger(u) || u <= 0) || !Number.isSafeInteger(currencyId) || !isDecimalString(amount) || amount.startsWith('-')) {
    throw new Error('--users must be positive ids, --currency an id, --amount a positive decimal');
  }
  // Trade accounts belong to the sequencer: the funding goes to it through the outbox, which the
  // running exchange relays (and applies once, by command id).
  const ds = new DataSource({ ...dataSourceOptions(loadConfig().databaseUrl), logging: false });
  await ds.initialize();
  const ids: string[] = [];
  for (const userId of users) {
    const id = randomUUID();
    const commandId = `cli-funding:${id}`;
    ids.push(commandId);
    const posting = {
      commandId,
      refType: 'system-funding',
      refId: id,
      actor: `operator-cli:${process.env.USER ?? 'unknown'}`,
      reason,
      legs: [coinLeg(userId, currencyId, LedgerCode.SystemFunding, amount), systemLeg('external', currencyId, LedgerCode.SystemFunding, `-${amount}`)],
    };
    await ds.query('INSERT INTO sequencer_outbox (command_id, command) VALUES ($1, $2)', [commandId, JSON.stringify(posting)]);
  }
  // Wait (bounded) for the exchange to apply them.
  let results: Array<{ result: string | null }> = [];
  for (let i = 0; i < 60; i++) {
    results = await ds.query('SELECT result FROM sequencer_outbox WHERE command_id = ANY($1)', [ids]);
    if (results.every((r) => r.result !== null)) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  await ds.destroy();
  const applied = results.filter((r) => r.result === 'OK').length;
  const pending = results.filter((r) => r.result === null).length;
  process.stdout.write(`funded ${applied} account(s) with ${amount} of currency ${currencyId}${pending ? `; ${pending} queued until the exchange runs` : ''}\n`);
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
