import AxeBuilder from '@axe-core/playwright';
import { join } from 'node:path';
import { type Browser, type Page, type WebSocketRoute } from 'playwright-core';
import { ARTIFACTS, go as goTo, launchBrowser } from './screens';
import { apiOf, latestCode, startStack, type Stack } from './stack';

/**
 * Issue 27, offline: on the spot trade screen (market simulator ON) the socket is dropped by the
 * browser's own WebSocket route (new attempts refused, HTTP polling aborted); the stale badge shows
 * and the screen stops moving while the market keeps trading on the server; once the socket may
 * connect again the badge goes and the screen shows the market's new state (its last trade).
 */
const SYMBOL = 'BTC/USDT';
jest.setTimeout(180_000);

let stack: Stack;
let browser: Browser;
let page: Page;
let blocked = false;
const sockets: WebSocketRoute[] = [];

const latestTrade = async () =>
  ((await fetch(`${stack.url}/api/currency/deal?symbol=${encodeURIComponent(SYMBOL)}&limit=1`).then((r) => r.json())).data as Array<{ price: string; time: number }>)[0];
const num = (s: string | null) => Number((s ?? '').replace(/[^\d.]/g, ''));

beforeAll(async () => {
  stack = await startStack({ simulator: true });
  browser = await launchBrowser();
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, colorScheme: 'light' });
  page = await context.newPage();
  page.setDefaultTimeout(20_000);
  await page.routeWebSocket(/\/socket\.io\//, (ws) => {
    if (blocked) return void ws.close({ code: 1011, reason: 'test: offline' });
    ws.connectToServer();
    sockets.push(ws);
  });
  await page.route(/\/socket\.io\//, (r) => (blocked ? r.abort('internetdisconnected') : r.continue()));
  // The trade screen is for a signed-in user.
  const api = apiOf(stack.url);
  const email = `offline.${process.pid}${Date.now().toString(36)}@kestrel.test`;
  await api('POST', 'sms_mail', { email, purpose: 'register' });
  const s = await api<{ token: string; user: unknown }>('POST', 'user/register', {
    type: 'email',
    email,
    code: await latestCode(stack.url, email, 'register'),
    password: 'pass-1234',
    re_password: 'pass-1234',
    agreement: 1,
  });
  await page.goto(`${stack.url}/`);
  await page.evaluate(
    ([t, u]) => {
      localStorage.setItem('token', t as string);
      localStorage.setItem('user', JSON.stringify(u));
      localStorage.setItem('theme', 'light');
    },
    [s.token, s.user],
  );
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

it('drop the socket, the market moves, reconnect: the stale badge comes and goes and the screen shows the new state', async () => {
  await goTo(page, stack.url, `/pages/trade/index?symbol=${encodeURIComponent(SYMBOL)}`);
  await page.getByTestId('order-book').waitFor().catch(async (e) => {
    await page.screenshot({ path: join(ARTIFACTS, 'trader-offline-debug.png') });
    throw e;
  });
  await page.waitForFunction(() => /\d/.test(document.querySelector('[data-testid="last"]')?.textContent ?? ''));
  expect(await page.getByTestId('stale-badge').count()).toBe(0);

  blocked = true;
  for (const ws of sockets.splice(0)) await ws.close({ code: 1011, reason: 'test: offline' });
  await page.getByTestId('stale-badge').waitFor();
  const shown = await page.getByTestId('last').textContent();
  const droppedAt = Date.now();
  await page.screenshot({ path: join(ARTIFACTS, 'trader-offline-light.png') });
  const axe = await new AxeBuilder({ page }).disableRules(['region']).analyze();
  expect(axe.violations.filter((v) => v.impact === 'critical' || v.impact === 'serious').map((v) => v.id)).toEqual([]);

  // The market trades on while this screen is cut off; the screen does not move.
  for (let i = 0; i < 120; i++) {
    const t = await latestTrade();
    if (t.time > droppedAt + 500) break;
    await page.waitForTimeout(250);
  }
  expect((await latestTrade()).time).toBeGreaterThan(droppedAt);
  expect(await page.getByTestId('last').textContent()).toBe(shown);
  expect(await page.getByTestId('stale-badge').count()).toBe(1);

  blocked = false;
  await page.getByTestId('stale-badge').waitFor({ state: 'detached', timeout: 30_000 });
  // The screen catches up: its last price is the market's latest trade (read again while the simulator trades).
  let matched = false;
  for (let i = 0; i < 60 && !matched; i++) {
    const [onScreen, server] = [num(await page.getByTestId('last').textContent()), num((await latestTrade()).price)];
    matched = onScreen === server;
    if (!matched) await page.waitForTimeout(250);
  }
  expect(matched).toBe(true);
});
