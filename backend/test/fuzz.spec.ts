import fc from 'fast-check';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EngineHost } from '../src/modules/engine/engine-host.service';
import { TrialBalanceService } from '../src/modules/ledger/trial-balance.service';
import { adminToken, registerByEmail } from './support/accounts';
import { deposit } from './support/funding';
import { nestRoutes, Route } from './support/routes';
import { ADMIN, startTestApp, TestApp } from './support/test-app';

/**
 * Fuzzing (issue: reliability and security suite, item 4): every registered route, and the order
 * fast lane served outside Nest's router, gets generated bodies — as JSON, as a form, and as raw
 * JSON text with duplicated keys — and generated header values; every answer must be HTTP 200 with
 * the envelope (or a plain 404), never a 5xx or a stack trace. A route none of whose answers was
 * accepted (code 1) must leave every balance and the ledger as they were, and the trial balance
 * must be exact at the end. FUZZ_RUNS (default 2 per route) and FUZZ_SEED make a run repeatable.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 2);
const SEED = Number(process.env.FUZZ_SEED ?? 28);
const KEYS = ['id', 'amount', 'price', 'num', 'symbol', 'type', 'page', 'limit', 'password', 'code', 'email', 'currency', 'currency_id', 'quantity', 'side', 'order_id'] as const;
const nasty = fc.constantFrom<unknown>(1e308 * 10, -0, '1e-30', 'NaN', '1e309', 'x'.repeat(20_000), '𝔘𝔫𝔦\u0000\u202e', [], {}, [1, [2]], { a: { b: { c: 1 } } }, null, true, -1, '0x10', ' 1 ', 3_000_000_000, '3000000000', 1e21, '1e21', '9007199254740993');
const body = fc.dictionary(fc.constantFrom(...KEYS), fc.oneof(nasty, fc.anything()), { maxKeys: 6 });
/** How the body travels: JSON, a form (nested values as `a[b]=…`, arrays as repeated keys), or JSON text whose keys repeat. */
const encoding = fc.constantFrom('json', 'form', 'duplicated-json');
/** The order routes the fast lane answers before Express (not in Nest's router table). */
const FAST_LANE: Route[] = [
  { method: 'POST', path: '/api/coin/trade', kind: 'user' },
  { method: 'PUT', path: '/api/coin/trade', kind: 'user' },
];

function formOf(b: Record<string, unknown>): string {
  const parts: string[] = [];
  const add = (k: string, v: unknown): void => {
    if (Array.isArray(v)) v.forEach((x) => add(k, x));
    else if (v !== null && typeof v === 'object') for (const [kk, vv] of Object.entries(v)) add(`${k}[${kk}]`, vv);
    else parts.push(`${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`);
  };
  for (const [k, v] of Object.entries(b)) add(k, v);
  return parts.join('&');
}

/** `{"k":v1,"k":v2,…}`: every key twice, the second value another generated one (JSON.parse keeps the last). */
function duplicatedJson(b: Record<string, unknown>): string {
  const entries = Object.entries(b);
  if (!entries.length) return '{"id":1,"id":"x"}';
  const json = (v: unknown) => JSON.stringify(v) ?? 'null';
  return `{${entries.map(([k, v], i) => `${JSON.stringify(k)}:${json(v)},${JSON.stringify(k)}:${json(entries[(i + 1) % entries.length][1])}`).join(',')}}`;
}

describe('fuzz', () => {
  let t: TestApp;
  let requests = 0;
  const failures: string[] = [];
  beforeAll(async () => {
    t = await startTestApp({ optionWorker: false });
  });
  afterAll(async () => {
    const line = `fuzz: ${requests} requests, ${failures.length} failures`;
    writeFileSync(join(tmpdir(), 'kestrel-fuzz.txt'), line + '\n');
    console.log(line);
    await t?.close();
  });

  /** Every balance and the ledger's size, once the projection has caught up with what was journaled. */
  const books = async (): Promise<string> => {
    const host = t.app.get(EngineHost);
    for (let i = 0; i < 100 && host.positions.projected < host.positions.journaled; i++) await new Promise((r) => setTimeout(r, 50));
    const [row] = await t.ds.query(
      `SELECT (SELECT md5(COALESCE(string_agg(concat_ws(':', owner_type, owner_id, account_type, currency_id, available, frozen), ',' ORDER BY owner_type, owner_id, account_type, currency_id), '')) FROM balances) AS balances,
              (SELECT COUNT(*) FROM ledger_entries)::text AS entries`,
    );
    return `${row.balances}/${row.entries}`;
  };

  it('every route answers the envelope (or 404) to generated bodies and headers; refused requests change nothing', async () => {
    const user = await registerByEmail(t);
    // Money to lose: a refused request must leave it where it is.
    await deposit(t, user.user.id, 3, '1000');
    const op = await adminToken(t, ADMIN.email, ADMIN.password);
    // The logouts last: each revokes the token the routes after it would be fuzzed with.
    const last = (r: Route) => Number(r.path.endsWith('/logout'));
    const routes = [...nestRoutes(t), ...FAST_LANE].sort((x, y) => last(x) - last(y));
    for (const r of routes) {
      const token = r.kind === 'operator' ? op : r.kind === 'user' ? user.token : undefined;
      const before = await books();
      let accepted = 0;
      await fc.assert(
        fc.asyncProperty(body, encoding, fc.string({ maxLength: 40 }), async (b, enc, header) => {
          requests += 1;
          const path = r.path.replace(/:[A-Za-z_]+/g, '1');
          let req = t.http()[r.method.toLowerCase() as 'get'](path).set('lang', header.replace(/[^\x20-\x7e]/g, ''));
          if (token) req = req.set('Authorization', token);
          const res =
            r.method === 'GET'
              ? await req.query(Object.fromEntries(Object.entries(b).map(([k, v]) => [k, String(v).slice(0, 200)])))
              : enc === 'form'
                ? await req.type('form').send(formOf(b))
                : await req.type('json').send(enc === 'json' ? JSON.stringify(b) : duplicatedJson(b));
          const ok = (res.status === 200 && typeof res.body?.code === 'number' && typeof res.body?.message === 'string') || res.status === 404;
          const leaky = /\bat [\w.<>]+ \(|node_modules|Error:/.test(res.text ?? '');
          if (res.body?.code === 1) accepted += 1;
          if (!ok || leaky || res.body?.code === 500 || res.body?.code === 9000) failures.push(`${r.method} ${r.path} (${enc}) ${res.status} ${String(res.text).slice(0, 200)}`);
        }),
        { numRuns: RUNS, seed: SEED },
      );
      if (!accepted && r.method !== 'GET' && (await books()) !== before) failures.push(`${r.method} ${r.path}: refused requests changed the balances or the ledger`);
    }
    const trial = await t.app.get(TrialBalanceService).compute();
    if (!trial.ok) failures.push(`trial balance not exact after the run: ${JSON.stringify(trial).slice(0, 300)}`);
    expect(failures).toEqual([]);
  });
});
