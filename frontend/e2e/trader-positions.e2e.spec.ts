import { join } from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import { ARTIFACTS, go as goTo, launchBrowser, shootThemes } from './screens';
import { ADMIN, apiOf, startStack, uploadImage, type Stack, registerByEmail, setFundPassword, approvedDeposit, approveReviews } from './stack';

/**
 * Issue 27, live contract positions on the real stack (market simulator ON): a verified user with
 * USDT in the contract account opens a position (after a reconnect while filling the form, which
 * keeps what was typed); its P/L and mark price then change on screen without any further
 * `lever/deal` request (the private `position` push); TP/SL is edited
 * in the sheet (client side rule, then the saved values come back over the push); tight TP/SL set
 * through the API make the watcher close it, and it leaves the list live with a toast. Screens at
 * 390×844 in both themes and in Chinese, axe clean.
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
const tag = `${process.pid}${Date.now().toString(36)}`;
const dealRequests: string[] = [];

async function verifiedFundedUser() {
  const email = `positions.${tag}@kestrel.test`;
  const s = await registerByEmail(stack.url, email);
  await setFundPassword(stack.url, email, s.token);
  const [f, b, h] = [await uploadImage(stack.url, s.token, 30), await uploadImage(stack.url, s.token, 60), await uploadImage(stack.url, s.token, 120)];
  await api(
    'POST',
    'user/real_name',
    { country: 'Brazil', name: 'Poe Sition', id_number: 'PS123456', address: 'Av. Paulista 1000', front_image: f, back_image: b, hand_image: h },
    s.token,
  );
  await approveReviews(stack.url, adminToken, 'real_name');
  await approvedDeposit(stack.url, adminToken, s.token, '1000', `dep-${tag}`, 220);
  await api('POST', 'wallet/change', { from: 'coin', to: 'lever', currency_id: USDT, amount: '500', client_id: `t-${tag}` }, s.token);
  return { token: s.token, user: await api<unknown>('GET', 'user/center', {}, s.token) };
}

const go = (p: Page, path: string) => goTo(p, stack.url, path);
const num = (s: string | null) => Number((s ?? '').replace(/[^\d.-]/g, ''));

beforeAll(async () => {
  stack = await startStack({ simulator: true });
  api = apiOf(stack.url);
  browser = await launchBrowser();
  adminToken = (await api<{ token: string }>('POST', 'admin/login', ADMIN)).token;
  await api('POST', 'admin/chains/1', { deposit_address: 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7', reason: 'e2e' }, adminToken);
  user = await verifiedFundedUser();
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, colorScheme: 'light' });
  page = await context.newPage();
  page.setDefaultTimeout(20_000);
  page.on('request', (r) => r.url().endsWith('/api/lever/deal') && dealRequests.push(r.url()));
  await page.goto(`${stack.url}/`);
  await page.evaluate(
    ([t, u]) => {
      localStorage.setItem('token', t as string);
      localStorage.setItem('user', JSON.stringify(u));
      localStorage.setItem('theme', 'light');
      localStorage.setItem('symbol', 'BTC/USDT');
    },
    [user.token, user.user],
  );
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

describe('live contract positions', () => {
  it('P/L and mark change on screen with no lever/deal request after the first; TP/SL edit round trip; a watcher close leaves live with a toast', async () => {
    await go(page, `/pages/lever/index2?symbol=${encodeURIComponent(SYMBOL)}`);
    await page.getByTestId('lever-form').waitFor();
    await page.waitForFunction(() => /\d/.test(document.querySelector('[data-testid="mark-price"]')?.textContent ?? ''));
    const mark = num(await page.getByTestId('mark-price').textContent());
    await page.getByLabel(/^Lots/).fill('1');
    await page.getByRole('radio', { name: '10×' }).click();
    await page.getByLabel('Take profit').fill(String(Math.round(mark * 1.5)));
    await page.getByLabel('Stop loss').fill(String(Math.round(mark * 0.5)));
    // The connection drops and comes back while the form is filled (no recovery: the screen resyncs,
    // one more lever/deal). The data reloads in place and what was typed stays (it used to remount
    // the form, emptying it).
    await page.context().setOffline(true);
    await page.getByTestId('stale-badge').waitFor({ timeout: 60_000 });
    const reloaded = page.waitForResponse((r) => r.url().endsWith('/api/lever/deal'), { timeout: 60_000 });
    await page.context().setOffline(false);
    await reloaded;
    expect(await page.getByLabel(/^Lots/).inputValue()).toBe('1');
    await page.getByTestId('lever-submit').click();
    const position = page.getByTestId('position').first();
    await position.waitFor();
    const dealsAfterOpen = dealRequests.length;
    // The first read, the resync's, and one more when the screen bound the signed-in socket before it
    // first connected (its first reads may predate the private room: docs/architecture.md).
    expect(dealsAfterOpen).toBeGreaterThanOrEqual(2);
    expect(dealsAfterOpen).toBeLessThanOrEqual(3);

    // The simulator trades: the pushed P/L changes with the mark, no request asks for it. (On a
    // loaded CI machine it once stayed still for 30 s: the server's warnings, e.g. the simulator's
    // slow-tick line, go into the failure's message.)
    const firstPnl = await position.getByTestId('pnl').textContent();
    await page
      .waitForFunction((before) => document.querySelector('[data-testid="position"] [data-testid="pnl"]')?.textContent !== before, firstPnl, {
        timeout: 90_000,
      })
      .catch((err: Error) => {
        throw stack.failure(err.message);
      });
    expect(await position.getByTestId('risk-rate').textContent()).toMatch(/^\d+(\.\d+)?%$/);

    // TP/SL: the side rule in the sheet, then a save that comes back over the push.
    await position.getByTestId('edit-tpsl').click();
    const sheet = page.getByTestId('tpsl-sheet');
    await sheet.waitFor();
    await sheet.getByLabel('Take profit').fill(String(Math.round(mark * 0.5)));
    await sheet.getByTestId('tpsl-save').click();
    expect(await sheet.getByText(/take profit must be above/i).count()).toBe(1);
    const tp = String(Math.round(mark * 1.4));
    const sl = String(Math.round(mark * 0.6));
    await sheet.getByLabel('Take profit').fill(tp);
    await sheet.getByLabel('Stop loss').fill(sl);
    await shootSheet('trader-tpsl-sheet');
    await sheet.getByTestId('tpsl-save').click();
    await page.locator('.toaster', { hasText: 'Take profit and stop loss saved' }).waitFor();
    await sheet.waitFor({ state: 'detached' });
    const holding = (await api<{ items: Array<{ id: string; take_profit: string; stop_loss: string }> }>('POST', 'lever/my_trade', { status: 'holding' }, user.token)).items;
    expect(holding).toHaveLength(1);
    expect(Number(holding[0].take_profit)).toBe(Number(tp));
    expect(Number(holding[0].stop_loss)).toBe(Number(sl));

    // Tight TP/SL (set through the API, retried while the mark moves): the watcher closes it and the screen drops it live.
    for (let i = 0; ; i++) {
      const m = num(await page.getByTestId('mark-price').textContent());
      const r = await fetch(`${stack.url}/api/lever/tpsl`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', lang: 'en', Authorization: user.token },
        body: new URLSearchParams({ id: holding[0].id, take_profit: (m * 1.00005).toFixed(2), stop_loss: (m * 0.99995).toFixed(2) }).toString(),
      }).then((x) => x.json());
      if (r.code === 1 || i > 20) break;
      await page.waitForTimeout(300);
    }
    await page.locator('.toaster', { hasText: /BTC\/USDT position closed: (Take profit|Stop loss)/ }).waitFor({ timeout: 60_000 });
    await page.waitForFunction(() => !document.querySelector('[data-testid="position"]'));
    expect(dealRequests.length).toBe(dealsAfterOpen);
  }, 240_000);

  it('the contract screen in both themes and in Chinese at 390×844; axe finds nothing serious or critical', async () => {
    const findings = await shootThemes(page, stack.url, 'trader-contract', '/pages/lever/index2', { ready: '[data-testid="lever-form"]', settleMs: 400 });
    await page.evaluate(() => localStorage.setItem('lang', 'zh'));
    await go(page, '/pages/lever/index2');
    await page.getByTestId('lever-form').waitFor();
    await page.waitForTimeout(400);
    await page.screenshot({ path: join(ARTIFACTS, 'trader-contract-zh.png') });
    await page.evaluate(() => localStorage.setItem('lang', 'en'));
    expect(findings).toEqual([]);
  });
});

/** The open TP/SL sheet as it stands (light theme; the dark contract screen is shot below). */
async function shootSheet(file: string) {
  await page.screenshot({ path: join(ARTIFACTS, `${file}-light.png`) });
}
