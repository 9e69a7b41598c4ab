import { join } from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import { ARTIFACTS, go as goTo, launchBrowser, shootThemes, phonePage } from './screens';
import { ADMIN, apiOf, startStack, type Stack, registerByEmail, approvedDeposit } from './stack';

/**
 * New-coin subscriptions (IEO) on the real stack: an operator opens a project whose window ends
 * in ~45 s (supply 100 at 2 USDT); another subscriber asks for 100 through the API; the user
 * subscribes for 50 on the screen (ieo list → ieoBuy), sees the details with a countdown, and after
 * the end the real BullMQ job allocates 100 of 150 requested: the user's allocation (33.33, the
 * coin has 2 decimals) and refund (33.34) appear on the screen.
 * Screens at 390×844 in both themes with axe; the details in Chinese too.
 */

jest.setTimeout(240_000);

let stack: Stack;
let browser: Browser;
let api: ReturnType<typeof apiOf>;
let adminToken: string;
let page: Page;
const tag = `${process.pid}${Date.now().toString(36)}`;

/** Registered by e-mail, with `usdt` deposited into the trade account (an approved deposit). */
async function fundedUser(name: string, usdt: string) {
  const email = `${name}.${tag}@kestrel.test`;
  const s = await registerByEmail(stack.url, email);
  await approvedDeposit(stack.url, adminToken, s.token, usdt, `dep-${name}-${tag}`, 90);
  return s;
}

const go = (p: Page, path: string) => goTo(p, stack.url, path);

const shoot = (p: Page, name: string, path: string, ready: string) => shootThemes(p, stack.url, `${name}`, path, { ready });

beforeAll(async () => {
  stack = await startStack({ simulator: false });
  api = apiOf(stack.url);
  browser = await launchBrowser();
  adminToken = (await api<{ token: string }>('POST', 'admin/login', ADMIN)).token;
  await api('POST', 'admin/chains/1', { deposit_address: 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7', reason: 'e2e' }, adminToken); // USDT TRC20
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

describe('IEO screens on the real stack', () => {
  it('subscribes on the screen and sees the allocation after the window ends (oversubscribed 1.5×: 33.33 of 50, the rest refunded)', async () => {
    const user = await fundedUser('ieo', '100');
    const other = await fundedUser('ieo-other', '200');
    const symbol = `E${tag
      .slice(-6)
      .toUpperCase()
      .replace(/[^A-Z0-9]/g, 'X')}`;
    const project = await api<{ id: number }>(
      'POST',
      'admin/ieo',
      {
        symbol,
        name: 'End To End Coin',
        decimals: 2,
        price: '2',
        supply: '100',
        start_at: new Date(Date.now() - 1000).toISOString(),
        end_at: new Date(Date.now() + 45_000).toISOString(),
        min_qty: '1',
        max_qty: '100',
        website: 'https://example.org',
        white_paper: 'https://example.org/paper.pdf',
        intro: 'A coin for the browser test.',
        reason: 'e2e: a short window',
      },
      adminToken,
    );
    await api('POST', 'lh/newcoin/order/submit', { project_id: project.id, quantity: '100', client_id: `o-${tag}` }, other.token);

    page = await phonePage(browser, stack.url, user, { lang: 'en' });
    const findings: string[] = [];
    findings.push(...(await shoot(page, 'ieo-list', '/pages/template/ieo', `[data-symbol="${symbol}"]`)));
    findings.push(...(await shoot(page, 'ieo-buy', `/pages/template/ieoBuy/ieoBuy?id=${project.id}`, '[data-testid="ieo-submit"]')));
    await go(page, '/pages/template/ieo');
    const card = page.locator(`[data-symbol="${symbol}"]`);
    expect(await card.getByTestId('ieo-state').getAttribute('data-state')).toBe('active');
    expect(await card.getByTestId('ieo-countdown').textContent()).toMatch(/^Ends in 00:00:\d\d$/);
    await card.getByTestId('ieo-subscribe-link').click();
    await page.waitForURL(/ieoBuy\/ieoBuy\?id=/);
    await page.getByTestId('ieo-submit').waitFor();
    await page.waitForFunction(() => /100/.test(document.querySelector('[data-testid="ieo-available"]')?.textContent ?? ''));
    // The screen's own checks first: the range, then the balance.
    await page.getByLabel(`Quantity (${symbol})`).fill('101');
    await page.getByTestId('ieo-submit').click();
    expect(await page.getByText('Quantity must be between 1 and 100').count()).toBe(1);
    await page.getByLabel(`Quantity (${symbol})`).fill('50.5');
    await page.getByTestId('ieo-submit').click();
    expect(await page.getByText('Insufficient balance').count()).toBe(1);
    await page.getByLabel(`Quantity (${symbol})`).fill('50');
    expect(await page.getByTestId('ieo-payment').textContent()).toBe(`100.00000000 USDT`);
    await page.getByTestId('ieo-submit').click();
    await page.waitForURL(/ieoDetails\/ieoDetails\?id=/);
    await page.getByTestId('ieo-mine').waitFor();
    expect(await page.getByTestId('ieo-my-requested').textContent()).toBe(`50.00 ${symbol}`);
    expect(await page.getByTestId('ieo-my-allocation').textContent()).toBe('After the end');
    expect(await page.getByTestId('ieo-countdown').textContent()).toMatch(/^Ends in/);
    await page.screenshot({ path: join(ARTIFACTS, 'ieo-details-active-light.png') });

    // After the end the BullMQ job allocates: 150 requested for 100, so 50 × 100 / 150 = 33.33 (2 decimals), paid 66.66.
    await page.locator('[data-testid="ieo-state"][data-state="distributed"]').waitFor({ timeout: 90_000 });
    await page.waitForFunction(() => /33\.33/.test(document.querySelector('[data-testid="ieo-my-allocation"]')?.textContent ?? ''), undefined, {
      timeout: 20_000,
    });
    expect(await page.getByTestId('ieo-my-allocation').textContent()).toBe(`33.33 ${symbol}`);
    expect(await page.getByTestId('ieo-my-refund').textContent()).toBe('33.34000000 USDT');
    expect(await page.getByTestId('ieo-ratio').textContent()).toBe('66.666666%');
    expect(await page.getByTestId('ieo-result').textContent()).toContain('150.00');
    expect(await page.getByTestId('ieo-record').getAttribute('data-status')).toBe('distributed');
    // The other subscriber's allocation is nowhere on the user's screen.
    expect(await page.locator('main').textContent()).not.toContain(`66.66 ${symbol}`);
    findings.push(...(await shoot(page, 'ieo-details', `/pages/template/ieoBuy/ieoDetails/ieoDetails?id=${project.id}`, '[data-testid="ieo-result"]')));
    findings.push(...(await shoot(page, 'ieo-buy-ended', `/pages/template/ieoBuy/ieoBuy?id=${project.id}`, '[data-testid="ieo-state"]')));

    // The trade account: 33.33 of the new coin, 100 − 66.66 USDT.
    const coins = await api<Array<{ symbol: string; available: string }>>('GET', 'currency/user_currency_list', {}, user.token);
    expect(coins.find((c) => c.symbol === symbol)?.available).toMatch(/^33\.33/);
    expect(coins.find((c) => c.symbol === 'USDT')?.available).toMatch(/^33\.34/);

    // Another language: the same screen in Chinese.
    await page.evaluate(() => localStorage.setItem('lang', 'zh'));
    await go(page, `/pages/template/ieoBuy/ieoDetails/ieoDetails?id=${project.id}`);
    await page.getByTestId('ieo-result').waitFor();
    expect(await page.locator('main').textContent()).toContain('分配结果');
    await page.screenshot({ path: join(ARTIFACTS, 'ieo-details-zh-light.png') });
    await page.evaluate(() => localStorage.setItem('lang', 'en'));
    expect(findings).toEqual([]);
  });
});
