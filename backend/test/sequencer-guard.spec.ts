import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { Client } from 'pg';
import { LedgerCode } from '../src/modules/ledger/ledger-codes';
import { LedgerService, Movement, Posting, SequencerAccountError } from '../src/modules/ledger/ledger.service';
import { TrialBalanceService } from '../src/modules/ledger/trial-balance.service';
import { registerByEmail } from './support/accounts';
import { coinBalance, deposit } from './support/funding';
import { startTestApp, TestApp } from './support/test-app';

/**
 * "A second writer is impossible" (Spot core v2): the trade accounts (`coin`) and the house
 * accounts that trade against them (`spot-fee`, `desk`) are written by the sequencer alone —
 * its projector writes their rows. Three fences, each tested: the ledger service refuses any
 * posting that touches them; the database refuses any other write to their balances and entries;
 * and a static check fails the build when code outside the engine posts to them through the ledger.
 */
const ETH = 2;
const USDT = 3;
/** The guard's error (migration 1795500881265-SpotCoreV2.ts), raised with SQLSTATE P0001. */
const GUARD_ERROR = /written only by the sequencer's projector/;

describe('the sequencer is the only writer of the trade and house accounts (real PostgreSQL + Redis)', () => {
  let t: TestApp;
  let ledger: LedgerService;
  let userId: number;
  let pg: Client;
  let n = 0;

  beforeAll(async () => {
    t = await startTestApp();
    ledger = t.app.get(LedgerService);
    userId = (await registerByEmail(t)).user.id;
    await deposit(t, userId, USDT, '100'); // a trade-account balance row to aim at
    pg = new Client({ connectionString: t.databaseUrl });
    await pg.connect();
  });
  afterAll(async () => {
    await pg?.end();
    await t?.close();
  });
  afterEach(async () => {
    expect((await new TrialBalanceService(t.ds).compute()).ok).toBe(true);
  });

  /** Everything a posting could have written. */
  const footprint = async () =>
    (
      await t.ds.query(
        `SELECT (SELECT COUNT(*) FROM ledger_entries)::int AS entries, (SELECT COUNT(*) FROM events)::int AS events,
                (SELECT COUNT(*) FROM balances)::int AS accounts,
                (SELECT string_agg(owner_type || owner_id || account_type || currency_id || ':' || available || '/' || frozen, ',' ORDER BY id) FROM balances) AS balances`,
      )
    )[0];

  const account = (accountType: Movement['accountType'], available: string): Movement =>
    accountType === 'coin' || accountType === 'option'
      ? { ownerType: 'user', ownerId: userId, accountType, currencyId: USDT, code: LedgerCode.SystemFunding, available }
      : { ownerType: 'system', ownerId: 0, accountType, currencyId: USDT, code: LedgerCode.SystemFunding, available };
  const posting = (movements: Movement[]): Posting => ({ commandId: `guard-test:${++n}`, refType: 'guard-test', refId: String(n), actor: 'test', movements });
  const funding = (accountType: Movement['accountType'], amount = '1') => posting([account(accountType, amount), account('external', `-${amount}`)]);

  describe('the ledger service', () => {
    it.each(['coin', 'spot-fee', 'desk'] as const)('refuses a posting that moves a %s account, and writes nothing', async (accountType) => {
      const before = await footprint();
      await expect(ledger.post(funding(accountType))).rejects.toThrow(SequencerAccountError);
      // As the debit side too, and among other movements.
      await expect(ledger.post(posting([account('option', '1'), account(accountType, '-1')]))).rejects.toThrow(SequencerAccountError);
      // Inside a caller's transaction: refused before anything is written in it.
      await expect(t.ds.transaction((m) => ledger.post(funding(accountType), m))).rejects.toThrow(SequencerAccountError);
      // The batch paths refuse the whole batch, the good postings with it.
      await expect(t.ds.transaction((m) => ledger.postBatch([funding('option'), funding(accountType)], m))).rejects.toThrow(SequencerAccountError);
      await expect(
        t.ds.transaction((m) =>
          ledger.postAllOrFail(
            [
              { ...funding('option'), streamVersion: 1 },
              { ...funding(accountType), streamVersion: 1 },
            ],
            m,
          ),
        ),
      ).rejects.toThrow(SequencerAccountError);
      expect(await footprint()).toEqual(before);
    });

    it('still posts to the database accounts (option)', async () => {
      const before = await footprint();
      const r = await ledger.post(funding('option', '2.5'));
      expect(r.duplicate).toBe(false);
      const after = await footprint();
      expect(after.entries).toBe(before.entries + 2);
      expect(after.events).toBe(before.events + 1);
      const option = (await ledger.balancesOf('user', userId)).find((b) => b.accountType === 'option' && b.currencyId === USDT);
      expect(option).toMatchObject({ available: '2.5', frozen: '0' });
      // The trade account is untouched by all of the above.
      expect(await coinBalance(t, userId, USDT)).toEqual({ available: '100', frozen: '0' });
    });
  });

  describe('the database guard', () => {
    const insertEntry = (accountType: string, ownerType = 'user', ownerId = userId) =>
      pg.query(
        `INSERT INTO ledger_entries (event_seq, owner_type, owner_id, account_type, currency_id, code, available_delta, frozen_delta, available_after, frozen_after, ref_type, ref_id, memo)
         VALUES (0, $1, $2, $3, $4, 900, 1, 0, 1, 0, 'guard-test', 'raw', '')`,
        [ownerType, ownerId, accountType, USDT],
      );
    const insertBalance = (accountType: string, currencyId: number, ownerType = 'user', ownerId = userId) =>
      pg.query(`INSERT INTO balances (owner_type, owner_id, account_type, currency_id, available) VALUES ($1, $2, $3, $4, 1)`, [
        ownerType,
        ownerId,
        accountType,
        currencyId,
      ]);
    const refused = async (p: Promise<unknown>, pattern = GUARD_ERROR) => {
      const err = await p.then(
        () => undefined,
        (e: { code?: string; message: string }) => e,
      );
      expect(err).toBeDefined();
      expect(err!.code).toBe('P0001');
      expect(err!.message).toMatch(pattern);
    };

    it('refuses raw writes to a trade account: UPDATE and INSERT of its balance, INSERT of its ledger entries', async () => {
      const before = await footprint();
      await refused(pg.query(`UPDATE balances SET available = available + 1 WHERE account_type = 'coin'`));
      await refused(pg.query(`UPDATE balances SET frozen = frozen + 1, available = available - 1 WHERE owner_id = $1 AND account_type = 'coin'`, [userId]));
      await refused(insertBalance('coin', ETH));
      await refused(
        pg.query(
          `INSERT INTO balances (owner_type, owner_id, account_type, currency_id) VALUES ('user', $1, 'coin', $2)
           ON CONFLICT (owner_type, owner_id, account_type, currency_id) DO UPDATE SET available = balances.available + 1`,
          [userId, USDT],
        ),
      );
      await refused(insertEntry('coin'));
      // Moving a database account's row into a sequencer account is a write to that account too.
      await pg.query('BEGIN');
      try {
        await insertBalance('option', ETH);
        await refused(
          pg.query(`UPDATE balances SET account_type = 'coin' WHERE owner_id = $1 AND account_type = 'option' AND currency_id = $2`, [userId, ETH]),
        );
      } finally {
        await pg.query('ROLLBACK');
      }
      expect(await footprint()).toEqual(before);
    });

    it.each(['spot-fee', 'desk'] as const)('refuses raw writes to the house %s account', async (accountType) => {
      const before = await footprint();
      await refused(insertBalance(accountType, USDT, 'system', 0));
      await refused(insertEntry(accountType, 'system', 0));
      expect(await footprint()).toEqual(before);
    });

    it("lets the projector's transactions through (SET LOCAL kestrel.writer = 'projector'), and only those", async () => {
      const before = await footprint();
      await pg.query('BEGIN');
      try {
        await pg.query(`SET LOCAL kestrel.writer = 'projector'`);
        const up = await pg.query(`UPDATE balances SET available = available + 1 WHERE owner_id = $1 AND account_type = 'coin' RETURNING available::text`, [
          userId,
        ]);
        expect(up.rows).toEqual([{ available: '101.000000000000000000' }]);
        await insertBalance('coin', ETH);
        await insertBalance('spot-fee', USDT, 'system', 0);
        await insertBalance('desk', USDT, 'system', 0);
        await insertEntry('coin');
        await insertEntry('desk', 'system', 0);
      } finally {
        await pg.query('ROLLBACK');
      }
      expect(await footprint()).toEqual(before);
      // SET LOCAL ends with its transaction: the same connection is refused again.
      await refused(pg.query(`UPDATE balances SET available = available + 1 WHERE account_type = 'coin'`));
      // Any other value is refused too.
      await pg.query('BEGIN');
      try {
        await pg.query(`SET LOCAL kestrel.writer = 'api'`);
        await refused(pg.query(`UPDATE balances SET available = available + 1 WHERE account_type = 'coin'`));
      } finally {
        await pg.query('ROLLBACK');
      }
      // The database accounts are not the guard's business.
      await pg.query('BEGIN');
      try {
        await insertEntry('option');
        await pg.query(`UPDATE balances SET available = available + 1 WHERE owner_id = $1 AND account_type = 'option'`, [userId]);
      } finally {
        await pg.query('ROLLBACK');
      }
      expect(await footprint()).toEqual(before);
    });

    it("refuses any write to sequencer_commands but the projector's (a stray row would answer a command that never ran as done)", async () => {
      const insert = () => pg.query(`INSERT INTO sequencer_commands (command_id, seq, applied_at) VALUES ('forged', 1, now())`);
      await refused(insert());
      await refused(pg.query(`DELETE FROM sequencer_commands`));
      await refused(pg.query(`TRUNCATE sequencer_commands`));
      await pg.query('BEGIN');
      try {
        await pg.query(`SET LOCAL kestrel.writer = 'projector'`);
        await insert();
      } finally {
        await pg.query('ROLLBACK');
      }
      expect((await pg.query(`SELECT COUNT(*)::int AS n FROM sequencer_commands WHERE command_id = 'forged'`)).rows).toEqual([{ n: 0 }]);
    });

    it("refuses any trade row but the projector's, and any change to one (a trade's row holds its ledger legs)", async () => {
      const insert = () =>
        pg.query(
          `INSERT INTO trades (market_id, trade_id, price, quantity, quote_quantity, taker_side, maker_order_id, taker_order_id, maker_user_id, taker_user_id, executed_at, ledger_id, event_seq,
             maker_pay_available_after, maker_pay_frozen_after, maker_receive_available_after, maker_receive_frozen_after,
             taker_pay_available_after, taker_pay_frozen_after, taker_receive_available_after, taker_receive_frozen_after)
           VALUES (1, 999999, 1, 1, 1, 'buy', 1, 2, $1, $1, now(), 8, 1, 0, 0, 1000, 0, 0, 0, 1000, 0)`,
          [userId],
        );
      await refused(insert());
      await refused(pg.query(`UPDATE trades SET maker_receive_available_after = 1000000`), /append-only/);
      await refused(pg.query(`DELETE FROM trades`), /append-only/);
      await refused(pg.query(`TRUNCATE trades`), /append-only/);
      await pg.query('BEGIN');
      try {
        await pg.query(`SET LOCAL kestrel.writer = 'projector'`);
        await insert();
        // Not even the projector changes one.
        await refused(pg.query(`UPDATE trades SET maker_receive_available_after = 1000000 WHERE trade_id = 999999`), /append-only/);
      } finally {
        await pg.query('ROLLBACK');
      }
      expect((await pg.query(`SELECT COUNT(*)::int AS n FROM trades WHERE trade_id = 999999`)).rows).toEqual([{ n: 0 }]);
    });

    it("refuses any order row and any change to one but the projector's, and deleting one (an order's row holds its freeze and release)", async () => {
      const insert = () =>
        pg.query(
          `INSERT INTO orders (id, user_id, market_id, side, type, price, quantity, frozen_currency_id, frozen_left, status, frozen_amount, freeze_ledger_id, freeze_seq, freeze_available_after, freeze_frozen_after)
           VALUES (999999999, $1, 1, 'buy', 'limit', 1, 1, 3, 1, 'waiting', 1, 8, 1, 0, 1)`,
          [userId],
        );
      await refused(insert(), /only by the sequencer's projector/);
      await refused(pg.query(`UPDATE orders SET release_available_after = 1000000`), /only by the sequencer's projector/);
      await refused(pg.query(`DELETE FROM orders`), /never deleted/);
      await refused(pg.query(`TRUNCATE orders`), /never deleted/);
      await pg.query('BEGIN');
      try {
        await pg.query(`SET LOCAL kestrel.writer = 'projector'`);
        await insert();
        await pg.query(`UPDATE orders SET status = 'cancelled' WHERE id = 999999999`);
        // Not even the projector deletes one.
        await refused(pg.query(`DELETE FROM orders WHERE id = 999999999`), /never deleted/);
      } finally {
        await pg.query('ROLLBACK');
      }
      expect((await pg.query(`SELECT COUNT(*)::int AS n FROM orders WHERE id = 999999999`)).rows).toEqual([{ n: 0 }]);
    });

    // A trade account's row relabelled as a database account takes the trade account's balance off the
    // read side (and hands it to another account) while the sequencer still holds it: a write to the
    // trade account that is not the projector's. The guard looks at the rows as they were too (OLD TABLE).
    it('refuses moving a trade-account row out of the sequencer accounts (UPDATE … SET account_type)', async () => {
      const before = await footprint();
      await pg.query('BEGIN');
      try {
        await refused(pg.query(`UPDATE balances SET account_type = 'option', currency_id = $2 WHERE owner_id = $1 AND account_type = 'coin'`, [userId, ETH]));
      } finally {
        await pg.query('ROLLBACK');
      }
      expect(await footprint()).toEqual(before);
    });

    it('refuses deleting a trade-account row', async () => {
      const before = await footprint();
      await pg.query('BEGIN');
      try {
        await refused(pg.query(`DELETE FROM balances WHERE owner_id = $1 AND account_type = 'coin'`, [userId]));
      } finally {
        await pg.query('ROLLBACK');
      }
      expect(await footprint()).toEqual(before);
    });
  });
});

// ---- the static check ---------------------------------------------------------------------------

const SRC = join(__dirname, '..', 'src');
/** The sequencer's own code (the only writer) may name its accounts anywhere. */
const ALLOWED = [join(SRC, 'modules', 'engine') + sep];
const METHODS = 'post|postBatch|postAllOrFail';
const ACCOUNT_LITERAL = /(['"`])(coin|spot-fee|desk)\1/;
/** Helpers that build legs or keys of the sequencer's accounts (engine/trade-account-commands.ts, sequencer/balances.ts, sequencer.ts). */
const SEQUENCER_HELPERS = ['coinLeg', 'userCoin', 'SPOT_FEE_ACCOUNT'];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return e.name.endsWith('.ts') && !e.name.endsWith('.spec.ts') && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

/** The source with comments blanked out (strings kept), so positions stay the same. */
function withoutComments(src: string): string {
  let out = '';
  for (let i = 0; i < src.length;) {
    const c = src[i];
    const two = src.slice(i, i + 2);
    if (two === '//' || two === '/*') {
      const end = two === '//' ? src.indexOf('\n', i) : src.indexOf('*/', i + 2) + 2;
      const stop = end <= 1 || end === -1 ? src.length : end;
      out += src.slice(i, stop).replace(/[^\n]/g, ' ');
      i = stop;
    } else if (c === "'" || c === '"' || c === '`') {
      let j = i + 1;
      while (j < src.length && src[j] !== c) j += src[j] === '\\' ? 2 : 1;
      out += src.slice(i, j + 1);
      i = j + 1;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** String literals emptied (for looking up identifiers: `desk:${symbol}` names no variable). */
const withoutStrings = (code: string) => code.replace(/(['"`])(?:\\.|(?!\1)[^\\])*\1/g, '""');

/** From an opening bracket, the text up to its matching close (strings skipped). */
function balanced(code: string, open: number): string {
  let depth = 0;
  for (let i = open; i < code.length; i++) {
    const c = code[i];
    if (c === "'" || c === '"' || c === '`') {
      let j = i + 1;
      while (j < code.length && code[j] !== c) j += code[j] === '\\' ? 2 : 1;
      i = j;
    } else if ('([{'.includes(c)) depth++;
    else if (')]}'.includes(c) && --depth === 0) return code.slice(open + 1, i);
  }
  return code.slice(open + 1);
}

/** An expression or statement from `start` up to a `;` (or `,` when `stopAtComma`) at depth 0. */
function upTo(code: string, start: number, stopAtComma: boolean): string {
  let depth = 0;
  for (let i = start; i < code.length; i++) {
    const c = code[i];
    if (c === "'" || c === '"' || c === '`') {
      let j = i + 1;
      while (j < code.length && code[j] !== c) j += code[j] === '\\' ? 2 : 1;
      i = j;
    } else if ('([{'.includes(c)) depth++;
    else if (')]}'.includes(c)) {
      if (--depth < 0) return code.slice(start, i);
    } else if (depth === 0 && (c === ';' || (stopAtComma && c === ','))) return code.slice(start, i);
  }
  return code.slice(start);
}

const mentions = (text: string, names: Iterable<string>) => {
  const code = withoutStrings(text);
  for (const name of names) if (new RegExp(`(?<![\\w$.])${name.replace(/\$/g, '\\$')}(?![\\w$])`).test(code)) return true;
  return false;
};

/**
 * The ledger calls (`post`, `postBatch`, `postAllOrFail` on a LedgerService) in one source file
 * whose posting names a sequencer account: a literal 'coin' / 'spot-fee' / 'desk' in it, one of the
 * sequencer's leg helpers, or a local variable or function whose definition does (followed
 * through any number of local definitions: `const movements = [{ accountType: 'coin', … }]`).
 */
export function ledgerPostsToSequencerAccounts(source: string): string[] {
  const code = withoutComments(source);
  if (!/\bLedgerService\b/.test(code)) return [];
  const receivers = new Set<string>();
  for (const m of code.matchAll(/(\w+)\s*[:=]\s*(?:new\s+)?LedgerService\b/g)) receivers.add(m[1]);
  for (const m of code.matchAll(/(?:const|let|var)\s+(\w+)\s*=\s*[\w.]*get\(\s*LedgerService\s*\)/g)) receivers.add(m[1]);
  const receiver = [...receivers]
    .map((r) => `(?<![\\w$])(?:this\\.)?${r}`)
    .concat('get\\(\\s*LedgerService\\s*\\)')
    .join('|');
  const calls = [...code.matchAll(new RegExp(`(?:${receiver})\\s*(?:\\?\\.|\\.)\\s*(?:${METHODS})\\s*(?:<[^>]*>)?\\s*\\(`, 'g'))];
  if (!calls.length) return [];

  // Local definitions, and which of them name a sequencer account (to a fixed point).
  const defs = new Map<string, string>();
  for (const m of code.matchAll(/\b(?:const|let|var)\s+(\w+)\s*(?::[^=;]+)?=(?!=)/g))
    defs.set(m[1], (defs.get(m[1]) ?? '') + upTo(code, m.index! + m[0].length, true));
  for (const m of code.matchAll(/\bfunction\s+(\w+)\s*\(/g)) {
    const body = code.indexOf('{', m.index! + m[0].length + balanced(code, m.index! + m[0].length - 1).length);
    defs.set(m[1], (defs.get(m[1]) ?? '') + (body >= 0 ? balanced(code, body) : ''));
  }
  const tainted = new Set<string>(SEQUENCER_HELPERS);
  for (let grew = true; grew;) {
    grew = false;
    for (const [name, text] of defs)
      if (!tainted.has(name) && (ACCOUNT_LITERAL.test(text) || mentions(text, tainted))) {
        tainted.add(name);
        grew = true;
      }
  }

  const found: string[] = [];
  for (const call of calls) {
    const open = call.index! + call[0].length - 1;
    const firstArg = upTo(code, open + 1, true); // the posting(s); the second argument is the transaction
    if (ACCOUNT_LITERAL.test(firstArg) || mentions(firstArg, tainted)) found.push(`${call[0]}${firstArg.replace(/\s+/g, ' ').slice(0, 160)}`);
  }
  return found;
}

describe('static check: nothing outside the engine posts to the sequencer accounts through the ledger', () => {
  const files = sourceFiles(SRC);
  const rel = (f: string) => relative(join(SRC, '..', '..'), f);

  it('finds the ledger calls it is meant to look at (the check is not vacuous)', () => {
    const callers = files.filter((f) => new RegExp(`ledger\\.(?:${METHODS})\\(`).test(readFileSync(f, 'utf8'))).map(rel);
    expect(callers).toEqual(
      expect.arrayContaining([
        'backend/src/modules/wallet/accounts.service.ts',
        'backend/src/modules/fpjy/fpjy.service.ts',
        'backend/src/modules/lever/lever.service.ts',
        'backend/src/modules/microtrade/option-delivery.service.ts',
      ]),
    );
  });

  it('passes on the tree as it is', () => {
    const offenders = files
      .filter((f) => !ALLOWED.some((dir) => f.startsWith(dir)))
      .flatMap((f) => ledgerPostsToSequencerAccounts(readFileSync(f, 'utf8')).map((c) => `${rel(f)}: ${c}`));
    expect(offenders).toEqual([]);
  });

  it('only the projector claims to be the projector, and raw writes to balances, entries, trades and orders stay in the ledger service and the engine', () => {
    const outside = files.filter((f) => !ALLOWED.some((dir) => f.startsWith(dir)) && !f.includes(`${sep}migrations${sep}`));
    expect(outside.filter((f) => /kestrel\.writer/.test(withoutComments(readFileSync(f, 'utf8')))).map(rel)).toEqual([]);
    expect(
      outside.filter((f) => /\b(?:INSERT\s+INTO|UPDATE)\s+"?(?:balances|ledger_entries)\b/i.test(withoutComments(readFileSync(f, 'utf8')))).map(rel),
    ).toEqual(['backend/src/modules/ledger/ledger.service.ts']);
    // A trade's row holds its ledger legs: only the projector writes trades.
    expect(outside.filter((f) => /\b(?:INSERT\s+INTO|UPDATE|COPY)\s+"?trades\b/i.test(withoutComments(readFileSync(f, 'utf8')))).map(rel)).toEqual([]);
    // An order's row holds its freeze and release: only the projector writes orders, and nobody deletes one.
    expect(
      outside.filter((f) => /\b(?:INSERT\s+INTO|UPDATE|COPY|DELETE\s+FROM|TRUNCATE)\s+"?orders\b/i.test(withoutComments(readFileSync(f, 'utf8')))).map(rel),
    ).toEqual([]);
  });

  describe('fails on code that would be a second writer', () => {
    const service = (body: string, extra = '') => `
      import { Injectable } from '@nestjs/common';
      import { DataSource } from 'typeorm';
      import { coinLeg, TradeAccountCommands } from '../engine/trade-account-commands';
      import { LedgerService, Movement } from '../ledger/ledger.service';
      ${extra}
      @Injectable()
      export class SneakyService {
        constructor(private readonly dataSource: DataSource, private readonly ledger: LedgerService, private readonly trading: TradeAccountCommands) {}
        async run(userId: number, amount: string): Promise<void> {
          ${body}
        }
      }`;

    it.each([
      [
        'a coin movement written inline',
        `await this.ledger.post({ commandId: 'x', refType: 'bonus', refId: '1', actor: 'system', movements: [
           { ownerType: 'user', ownerId: userId, accountType: 'coin', currencyId: 3, code: 900, available: amount },
           { ownerType: 'system', ownerId: 0, accountType: 'external', currencyId: 3, code: 900, available: '-' + amount }] });`,
        '',
      ],
      [
        'movements built in a variable first',
        `const movements: Movement[] = [{ ownerType: 'user', ownerId: userId, accountType: "coin", currencyId: 3, code: 900, available: amount }];
         await this.dataSource.transaction((m) => this.ledger.post({ commandId: 'x', refType: 'bonus', refId: '1', actor: 'a', movements }, m));`,
        '',
      ],
      [
        'a local helper for the house account, in a batch',
        `await this.dataSource.transaction((m) => this.ledger.postBatch([{ commandId: 'x', refType: 'fee', refId: '1', actor: 'a', movements: [houseFee(3, amount)] }], m));`,
        `const houseFee = (currencyId: number, available: string): Movement => ({ ownerType: 'system', ownerId: 0, accountType: 'spot-fee', currencyId, code: 601, available });`,
      ],
      [
        "the sequencer's leg helper handed to the ledger",
        `await this.dataSource.transaction((m) => this.ledger.postAllOrFail([{ commandId: 'x', refType: 'r', refId: '1', actor: 'a', streamVersion: 1, movements: [coinLeg(userId, 3, 900, amount) as Movement] }], m));`,
        '',
      ],
      [
        'the desk through a function declaration and a second variable',
        `const legs = [desk(3, amount)];
         const posting = { commandId: 'x', refType: 'r', refId: '1', actor: 'a', movements: legs };
         await this.ledger.post(posting);`,
        `function desk(currencyId: number, available: string): Movement { return { ownerType: 'system', ownerId: 0, accountType: 'desk', currencyId, code: 500, available }; }`,
      ],
      [
        'a ledger fetched from the container',
        `const l = app.get(LedgerService); await l.post({ commandId: 'x', refType: 'r', refId: '1', actor: 'a', movements: [{ ownerType: 'user', ownerId: 1, accountType: 'coin', currencyId: 3, code: 900, available: '1' }] });`,
        `declare const app: { get<T>(t: unknown): T };`,
      ],
    ])('%s', (_name, body, extra) => {
      expect(ledgerPostsToSequencerAccounts(service(body, extra))).toHaveLength(1);
    });

    it('but not on the sanctioned ways: the sequencer port, and ledger postings on database accounts in the same file', () => {
      const ok = service(
        `// A comment may say ledger.post({ accountType: 'coin' }) without being code.
         const r = await this.trading.postOrFail({ commandId: 'c', refType: 'transfer', refId: '1', actor: 'a', legs: [coinLeg(userId, 3, 502, '-' + amount), leg('lever', amount)] });
         const ref = { refType: 'system-funding', refId: \`desk:\${userId}\`, actor: 'system' };
         if (r.code === 'OK') await this.ledger.post({ ...ref, commandId: 'd', movements: [leg('option', amount), leg('lever', '-' + amount)] });`,
        `const leg = (accountType: 'option' | 'lever', available: string): Movement => ({ ownerType: 'user', ownerId: 1, accountType, currencyId: 3, code: 503, available });`,
      );
      expect(ledgerPostsToSequencerAccounts(ok)).toEqual([]);
    });
  });
});
