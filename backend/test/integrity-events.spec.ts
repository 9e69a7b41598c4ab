import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { OPERATOR_ACTIONS, OPERATOR_AREAS } from '../../contracts/src/integrity';
import { nestRoutes } from './support/routes';
import { startTestApp, TestApp } from './support/test-app';

/**
 * The public list of operator actions (contracts/src/integrity.ts, shown on the app's integrity
 * page and in docs/integrity.md) is kept in sync with the code: the same operator write routes as
 * the server registers, and every event type an operator appends is listed.
 */
const SRC = join(__dirname, '../src');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return sources(p);
    return p.endsWith('.ts') && !p.endsWith('.spec.ts') ? [p] : [];
  });
}

/** Event type literals ('PascalCase') in the event-store appends made with an operator actor. */
function operatorEventTypes(): Set<string> {
  const found = new Set<string>();
  for (const file of sources(SRC)) {
    const text = readFileSync(file, 'utf8');
    // Appends whose metadata names an operator (`admin:<id>`, or an `actor` built from one in admin services).
    const operatorFile = /admin/i.test(file) || /actor: `admin:/.test(text);
    for (const m of text.matchAll(/events\.append\(([\s\S]{0,600}?)\]\);/g)) {
      const call = m[1];
      if (!/admin:/.test(call) && !(operatorFile && /metadata: \{ actor, reason/.test(call))) continue;
      for (const lit of call.matchAll(/'([A-Z][a-z]+(?:[A-Z][a-z]+)+)'/g)) found.add(lit[1]);
    }
    // news-admin.service.ts appends through a helper: this.event(m, stream, actor, reason, 'Type', …).
    for (const m of text.matchAll(/this\.event\(m, [^\n]*?, actor, [^,]+, '([A-Z]\w+)'/g)) found.add(m[1]);
    // Types chosen by a ternary or passed to a save helper inside an operator service.
    if (/admin/i.test(file)) for (const m of text.matchAll(/this\.save\(adminId, [^)]*'([A-Z]\w+)'\)/g)) found.add(m[1]);
  }
  return found;
}

describe('integrity: the public list of operator actions matches the code', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ optionWorker: false });
  });
  afterAll(() => t.close());

  it('lists exactly the operator write routes the server registers', () => {
    // Every operator write route but the logout (it ends the caller's own session and changes nothing of the exchange, as the login).
    const registered = nestRoutes(t)
      .filter((r) => r.kind === 'operator' && r.method !== 'GET' && r.path !== '/api/admin/logout')
      .map((r) => `${r.method} ${r.path}`)
      .sort();
    const listed = OPERATOR_ACTIONS.map((a) => a.route).sort();
    expect(listed).toEqual(registered);
    expect(new Set(listed).size).toBe(listed.length);
    for (const a of OPERATOR_ACTIONS) expect(OPERATOR_AREAS).toContain(a.area);
  });

  it('every event type an operator appends is listed, and every listed type exists in the code', () => {
    const listed = new Set(OPERATOR_ACTIONS.flatMap((a) => a.events));
    const appended = operatorEventTypes();
    expect(appended.size).toBeGreaterThan(20);
    expect([...appended].filter((x) => !listed.has(x)).sort()).toEqual([]);
    const all = sources(SRC)
      .map((f) => readFileSync(f, 'utf8'))
      .join('\n');
    expect([...listed].filter((x) => !all.includes(`'${x}'`)).sort()).toEqual([]);
  });

  it('a ledger posting by an operator is listed as moving balances, with a reason rule; one that moves balances records an event', () => {
    for (const a of OPERATOR_ACTIONS) {
      // A trade-account posting is a journaled command of the sequencer (no LedgerPosted): its decision's own event names the operator and reason.
      if (a.events.includes('LedgerPosted')) expect(a.balances).toBe(true);
      if (a.balances) expect(a.events.length).toBeGreaterThan(0);
      expect(['required', 'optional', 'none']).toContain(a.reason);
    }
  });
});
