import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { loadConfig } from '../infra/config/config';
import { dataSourceOptions } from '../infra/database/data-source';
import { isDecimalString } from '../infra/money';
import { LedgerCode, SYSTEM_OWNER_ID } from '../modules/ledger/ledger-codes';
import { LedgerModule } from '../modules/ledger/ledger.module';
import { LedgerService } from '../modules/ledger/ledger.service';

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

@Module({ imports: [TypeOrmModule.forRoot({ ...dataSourceOptions(loadConfig().databaseUrl), logging: false }), LedgerModule] })
class FundModule {}

async function main(): Promise<void> {
  const users = arg('users').split(',').map((u) => Number(u));
  const currencyId = Number(arg('currency'));
  const amount = arg('amount');
  const reason = arg('reason');
  if (users.some((u) => !Number.isSafeInteger(u) || u <= 0) || !Number.isSafeInteger(currencyId) || !isDecimalString(amount) || amount.startsWith('-')) {
    throw new Error('--users must be positive ids, --currency an id, --amount a positive decimal');
  }
  const app = await NestFactory.createApplicationContext(FundModule, { logger: ['error'] });
  const ledger = app.get(LedgerService);
  for (const userId of users) {
    const id = randomUUID();
    await ledger.post({
      commandId: `cli-funding:${id}`,
      refType: 'system-funding',
      refId: id,
      actor: `operator-cli:${process.env.USER ?? 'unknown'}`,
      reason,
      movements: [
        { ownerType: 'user', ownerId: userId, accountType: 'coin', currencyId, code: LedgerCode.SystemFunding, available: amount },
        { ownerType: 'system', ownerId: SYSTEM_OWNER_ID, accountType: 'external', currencyId, code: LedgerCode.SystemFunding, available: `-${amount}` },
      ],
    });
  }
  await app.close();
  process.stdout.write(`funded ${users.length} account(s) with ${amount} of currency ${currencyId}\n`);
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
