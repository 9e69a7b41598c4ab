import { type Browser, type Page } from 'playwright-core';
import { launchBrowser } from './screens';
import { latestCode, startStack, type Stack } from './stack';

/**
 * The built web app under the server's Content-Security-Policy (issue "Reliability and security
 * suite", item 5): the real stack serves frontend/dist with the policy; a visitor's and a logged-in
 * user's screens (home with live tickers over Socket.IO, login, register, markets, trade with the
 * chart, contracts, assets, the location picker with its map, the proof screen) load without a
 * single policy violation, and the document answers carry the policy with frame-ancestors 'none'.
 */

jest.setTimeout(180_000);

let stack: Stack;
let browser: Browser;
let page: Page;
const violations: string[] = [];

async function register(url: string): Promise<string> {
  const email = `csp.${process.pid}.${Date.now().toString(36)}@kestrel.test`;
  const form = (body: Record<string, string>) => ({ method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(body).toString() });
  await fetch(`${url}/api/sms_mail`, form({ email, purpose: 'register' }));
  const code = await latestCode(url, email, 'register');
  const res = await fetch(`${url}/api/user/register`, form({ type: 'email', email, code, password: 'csp-pass-1', re_password: 'csp-pass-1', agreement: '1' })).then((r) => r.json());
  if (res.code !== 1) throw new Error(`register: ${JSON.stringify(res)}`);
  return res.data.token as string;
}

beforeAll(async () => {
  stack = await startStack();
  browser = await launchBrowser();
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  page = await context.newPage();
  page.setDefaultTimeout(20_000);
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      const w = window as unknown as { __csp?: string[] };
      (w.__csp ??= []).push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`);
    });
  });
  page.on('console', (m) => {
    if (/Content Security Policy|Refused to/i.test(m.text())) violations.push(`console: ${m.text()}`);
  });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

async function visit(path: string, ready = '.nav-bar__title, #root > *'): Promise<void> {
  const res = await page.goto(`${stack.url}/?n=${Date.now()}#${path}`);
  const csp = res?.headers()['content-security-policy'] ?? '';
  expect([path, csp.includes("frame-ancestors 'none'"), csp.includes("script-src 'self'")]).toEqual([path, true, true]);
  await page.locator(ready).first().waitFor();
  await page.waitForTimeout(1_500); // lazy chunks, styles, the socket and the chart settle
  const seen = await page.evaluate(() => (window as unknown as { __csp?: string[] }).__csp ?? []);
  violations.push(...seen.map((v) => `${path}: ${v}`));
}

describe('the web app under the Content-Security-Policy', () => {
  it('a visitor: home with live tickers, login, register, trade, markets: no violation', async () => {
    await visit('/');
    await page.getByTestId('market-list').waitFor({ timeout: 30_000 });
    for (const path of ['/pages/user/login/login', '/pages/user/login/register?type=email', '/pages/market/index', '/pages/trade/index', '/pages/trade/kline?symbol=BTC/USDT']) await visit(path);
    expect(violations).toEqual([]);
  });

  it('a logged-in user: assets, contracts, the location picker, the proof screen, settings: no violation', async () => {
    const token = await register(stack.url);
    await page.evaluate((t) => localStorage.setItem('token', t), token);
    for (const path of ['/pages/assets/index', '/pages/lever/index', '/choose-location', '/proof', '/pages/settings/index']) await visit(path);
    expect(violations).toEqual([]);
  });

  it('the API docs (Swagger UI) render under the same policy', async () => {
    await page.goto(`${stack.url}/api/docs`);
    await page.locator('.swagger-ui .opblock').first().waitFor({ timeout: 30_000 });
    const seen = await page.evaluate(() => (window as unknown as { __csp?: string[] }).__csp ?? []);
    expect([...seen, ...violations]).toEqual([]);
  });

  it('the watch works: an injected inline script is blocked and reported', async () => {
    await visit('/');
    const ran = await page.evaluate(async () => {
      const s = document.createElement('script');
      s.textContent = 'window.__inline = true';
      document.head.appendChild(s);
      await new Promise((r) => setTimeout(r, 300));
      return { ran: (window as unknown as { __inline?: boolean }).__inline === true, seen: (window as unknown as { __csp?: string[] }).__csp ?? [] };
    });
    expect(ran.ran).toBe(false);
    expect(ran.seen.some((v) => v.startsWith('script-src'))).toBe(true);
  });
});
