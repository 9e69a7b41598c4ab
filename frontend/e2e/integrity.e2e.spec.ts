import { type Browser, type Page } from 'playwright-core';
import { join } from 'node:path';
import { ARTIFACTS, go as goTo, launchBrowser, shootThemes, phonePage } from './screens';
import { ADMIN, apiOf, startStack, type Stack, registerByEmail, setFundPassword, approvedDeposit } from './stack';

/**
 * Issue "Verifiable honesty" on the real stack (market simulator ON: contracts open and close on
 * recorded ticks). A funded user opens and closes a contract position; the app shows its audit
 * (the recorded ticks, the formula, the result, recomputed here); the operator builds a root of
 * proof of liabilities and the user's verification screen says "Verified"; a proof with one
 * balance changed (intercepted with page.route) says "Failed at step N". Screenshots at 390×844 in
 * both themes, in English and Chinese, with axe on the new screens.
 */
const USDT = 3;
const SYMBOL = 'BTC/USDT';

jest.setTimeout(240_000);

let stack: Stack;
let browser: Browser;
let api: ReturnType<typeof apiOf>;
let adminToken: string;
let page: Page;
let user: { token: string; user: unknown };
let positionId = '';
const tag = `${process.pid}${Date.now().toString(36)}`;

async function fundedUser() {
  const email = `honest.${tag}@kestrel.test`;
  const s = await registerByEmail(stack.url, email);
  await setFundPassword(stack.url, email, s.token);
  await approvedDeposit(stack.url, adminToken, s.token, '500', `dep-${tag}`);
  await api('POST', 'wallet/change', { from: 'coin', to: 'lever', currency_id: USDT, amount: '300', client_id: `t-${tag}` }, s.token);
  return s;
}

const go = (p: Page, path: string) => goTo(p, stack.url, path);
const shoot = (p: Page, name: string, path: string, ready?: string, then?: (p: Page) => Promise<void>) => shootThemes(p, stack.url, name, path, { ready, then, settleMs: 400 });

/**
 * Runs `body` with every answer of `proof/mine` changed by `tamper` on its way to the page (one
 * balance edited in transit), and removes the route afterwards, also on failure. The real answer is
 * fetched again once on a reset connection: the driver reuses a kept-alive socket that the
 * server may close as idle in the same instant (a transport race, not an answer).
 */
async function tampered(p: Page, tamper: (balances: string[]) => string[], body: () => Promise<void>): Promise<void> {
  await p.route('**/api/proof/mine', async (route) => {
    const res = await route.fetch().catch((err: Error) => (/ECONNRESET|socket hang up/.test(err.message) ? route.fetch() : Promise.reject(err)));
    const json = await res.json();
    json.data.balances = tamper(json.data.balances as string[]);
    await route.fulfill({ response: res, json });
  });
  try {
    await body();
  } finally {
    await p.unroute('**/api/proof/mine');
  }
}

/** Exact decimal arithmetic for the recomputation (BigInt at 10^-30, truncation toward zero). */
const SCALE = 30;
const big = (v: string) => {
  const [i, f = ''] = v.replace('-', '').split('.');
  const n = BigInt(i + f.padEnd(SCALE, '0').slice(0, SCALE));
  return v.startsWith('-') ? -n : n;
};
const show = (n: bigint, places = 8) => {
  const neg = n < 0n;
  const digits = (neg ? -n : n).toString().padStart(SCALE + 1, '0');
  const int = digits.slice(0, -SCALE);
  const frac = digits.slice(-SCALE, -SCALE + places).replace(/0+$/, '');
  const out = `${int}${frac ? `.${frac}` : ''}`;
  return neg && out !== '0' ? `-${out}` : out;
};

beforeAll(async () => {
  stack = await startStack({ simulator: true });
  api = apiOf(stack.url);
  browser = await launchBrowser();
  adminToken = (await api<{ token: string }>('POST', 'admin/login', ADMIN)).token;
  await api('POST', 'admin/chains/1', { deposit_address: 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7', reason: 'e2e' }, adminToken); // USDT TRC20
  user = await fundedUser();
  page = await phonePage(browser, stack.url, user, { lang: 'en' }, { acceptDownloads: true });
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

describe('verifiable honesty on the real stack', () => {
  it('a closed contract position shows its audit: the recorded ticks, the formula and a result that recomputes', async () => {
    // The simulator records its first mark price a few seconds after start (code 2211 until then).
    const submit = () =>
      api<{ id: string; open_price: string }>(
        'POST',
        'lever/submit',
        { symbol: SYMBOL, side: 'long', type: 'market', lots: '2', multiple: 10, take_profit: '99999999', stop_loss: '1', client_id: `pos-${tag}` },
        user.token,
      );
    let p: { id: string; open_price: string } | undefined;
    for (const until = Date.now() + 30_000; !p; ) {
      try {
        p = await submit();
      } catch (err) {
        if (!/"code":2211/.test(String(err)) || Date.now() > until) throw err;
        await new Promise((r) => setTimeout(r, 500));
      }
    }
    positionId = p.id;
    // Let a few ticks pass, then close at the latest recorded one.
    await new Promise((r) => setTimeout(r, 2500));
    await api('POST', 'lever/close', { id: p.id }, user.token);
    const audit = await api<{
      lots: number;
      lot_value: string;
      open_tick: { id: string; price: string };
      close_tick: { id: string; price: string };
      result: { pnl: string };
    }>('GET', 'lever/audit', { position_id: p.id });
    // Recomputed here, from the audit's recorded ticks alone.
    const notional = big(audit.lot_value) * BigInt(audit.lots);
    const move = (notional * (big(audit.close_tick.price) - big(audit.open_tick.price))) / big(audit.open_tick.price);
    expect(show(move)).toBe(audit.result.pnl.replace(/^-0$/, '0'));

    await go(page, '/pages/lever/index3');
    const row = page.getByTestId('lever-history-row').first();
    await row.waitFor();
    await row.getByTestId('audit-toggle').click();
    const view = row.getByTestId('lever-audit');
    await view.waitFor();
    expect(await view.getByTestId('audit-open').getAttribute('data-tick-id')).toBe(audit.open_tick.id);
    expect(await view.getByTestId('audit-close').getAttribute('data-tick-id')).toBe(audit.close_tick.id);
    expect(await view.getByTestId('audit-result').textContent()).toContain(audit.result.pnl.replace('-', '−'));
    expect(await view.getByTestId('audit-verdict').getAttribute('data-ok')).toBe('1');
    expect(await view.getByTestId('audit-trigger').textContent()).toBe('You closed it; the price is the latest recorded tick at that moment.');
    // Public: the same audit without a token, and no personal data in it.
    const anon = await fetch(`${stack.url}/api/lever/audit?position_id=${p.id}`).then((r) => r.text());
    expect(anon).not.toMatch(/"(user_id|email|phone)"/);
  });

  it('the verification screen says "Verified" against a root the operator just built', async () => {
    const root = await api<{ root: string }>('POST', 'admin/proof/build', {}, adminToken);
    // Reachable from the assets screen.
    await go(page, '/pages/assets/index');
    await page.getByTestId('assets-proof').click();
    await page.waitForURL(/#\/proof$/);
    const verdict = page.getByTestId('proof-verdict');
    await verdict.waitFor();
    expect(await verdict.getAttribute('data-ok')).toBe('1');
    expect(await verdict.locator('h2').textContent()).toContain('Verified');
    expect(await page.getByTestId('proof-root').getAttribute('title')).toBe(root.root);
    expect(await page.getByTestId('proof-totals').locator('dt').allTextContents()).toContain('USDT');
    // The proof file downloads.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('proof-download').click()]);
    expect(download.suggestedFilename()).toMatch(/\.json$/);
    // The whole screen, for a look at the path and the totals below the fold.
    await page.screenshot({ path: join(ARTIFACTS, 'proof-full-en-light.png'), fullPage: true });
  });

  it('a tampered proof (one balance changed in transit) says "Failed at step N" and marks the step', async () => {
    const firstChanged = (balances: string[]) => {
      const i = balances.findIndex((b) => b !== '0');
      return balances.map((b, j) => (j === i ? (BigInt(b) + 1n).toString() : b));
    };
    await tampered(page, firstChanged, async () => {
      await go(page, '/proof');
      const verdict = page.getByTestId('proof-verdict');
      await verdict.waitFor();
      expect(await verdict.getAttribute('data-ok')).toBe('0');
      const step = await verdict.getAttribute('data-failed-step');
      expect(await verdict.locator('h2').textContent()).toContain(`Failed at step ${step}`);
      const steps = await page.getByTestId('proof-step').count();
      expect(Number(step)).toBe(steps);
      if (steps > 0) expect(await page.locator(`[data-testid="proof-step"][data-level="${step}"] [data-testid="step-bad"]`).count()).toBe(1);
    });
  });

  it('the integrity page is reachable from settings → about and lists the operator actions', async () => {
    await go(page, '/pages/settings/index');
    await page.getByTestId('settings-integrity').click();
    await page.waitForURL(/#\/integrity$/);
    await page.getByTestId('integrity-guarantees').waitFor();
    expect(await page.getByTestId('integrity-guarantees').locator('li').count()).toBe(5);
    expect(await page.getByTestId('operator-actions').locator('details').count()).toBeGreaterThan(8);
  });

  it('screenshots at 390×844 in both themes, English and Chinese; axe finds nothing critical or serious', async () => {
    const findings: string[] = [];
    for (const lang of ['en', 'zh'] as const) {
      await page.evaluate((l) => localStorage.setItem('lang', l), lang);
      findings.push(...(await shoot(page, `proof-${lang}`, '/proof', '[data-testid="proof-verdict"]')));
      findings.push(
        ...(await shoot(page, `proof-failed-${lang}`, '/proof', undefined, (p) =>
          tampered(
            p,
            (balances) => balances.map((b) => (b === '0' ? b : (BigInt(b) + 1n).toString())),
            async () => {
              await p.reload();
              await p.getByTestId('proof-verdict').waitFor();
            },
          ),
        )),
      );
      findings.push(
        ...(await shoot(page, `lever-audit-${lang}`, '/pages/lever/index3', '[data-testid="lever-history-row"]', async (p) => {
          await p.getByTestId('audit-toggle').first().click();
          await p.getByTestId('lever-audit').waitFor();
          await p.getByTestId('lever-audit').scrollIntoViewIfNeeded();
        })),
      );
      findings.push(...(await shoot(page, `integrity-${lang}`, '/integrity', '[data-testid="integrity-guarantees"]')));
    }
    await page.evaluate(() => localStorage.setItem('lang', 'en'));
    expect(positionId).not.toBe('');
    expect(findings).toEqual([]);
  });
});
