import fc from 'fast-check';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adminToken, registerByEmail } from './support/accounts';
import { ADMIN, startTestApp, TestApp } from './support/test-app';
import { nestRoutes } from './support/routes';

/**
 * Fuzzing (issue: reliability and security suite, item 4): every registered route gets generated
 * bodies and header values; every answer must be HTTP 200 or 404 with the envelope, never a 5xx or a
 * stack trace. FUZZ_RUNS (default 2 per route) and FUZZ_SEED make a run repeatable.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 2);
const SEED = Number(process.env.FUZZ_SEED ?? 28);
const nasty = fc.constantFrom<unknown>(1e308 * 10, -0, '1e-30', 'NaN', '1e309', 'x'.repeat(20_000), '𝔘𝔫𝔦\u0000\u202e', [], {}, [1, [2]], { a: { b: { c: 1 } } }, null, true, -1, '0x10', ' 1 ');
const body = fc.dictionary(fc.constantFrom('id', 'amount', 'price', 'num', 'symbol', 'type', 'page', 'limit', 'password', 'code', 'email', 'currency'), fc.oneof(nasty, fc.anything()), { maxKeys: 6 });

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

  it('every route answers the envelope (or 404) to generated bodies and headers', async () => {
    const user = await registerByEmail(t);
    const op = await adminToken(t, ADMIN.email, ADMIN.password);
    const routes = nestRoutes(t);
    for (const r of routes) {
      const token = r.kind === 'operator' ? op : r.kind === 'user' ? user.token : undefined;
      await fc.assert(
        fc.asyncProperty(body, fc.string({ maxLength: 40 }), async (b, header) => {
          requests += 1;
          const path = r.path.replace(/:[A-Za-z_]+/g, '1');
          let req = t.http()[r.method.toLowerCase() as 'get'](path).set('lang', header.replace(/[^\x20-\x7e]/g, ''));
          if (token) req = req.set('Authorization', token);
          const res = r.method === 'GET' ? await req.query({ limit: String(b.limit ?? '').slice(0, 200), page: String(b.page ?? '').slice(0, 200) }) : await req.type('json').send(JSON.stringify(b));
          const ok = (res.status === 200 && typeof res.body?.code === 'number' && typeof res.body?.message === 'string') || res.status === 404;
          const leaky = /\bat [\w.<>]+ \(|node_modules|Error:/.test(res.text ?? '');
          if (!ok || leaky || res.body?.code === 500) failures.push(`${r.method} ${r.path} ${res.status} ${String(res.text).slice(0, 200)}`);
        }),
        { numRuns: RUNS, seed: SEED },
      );
    }
    expect(failures).toEqual([]);
  });
});
