import { type Browser, type Page } from 'playwright-core';
import { go as goTo, launchBrowser, shootThemes, phonePage } from './screens';
import { ADMIN, apiOf, startStack, type Stack, registerByEmail, approvedDeposit } from './stack';

/**
 * Wealth products on the real stack: a user with USDT in the trust account buys the 15-day hosting
 * product from the Trust tab, sees it in My hosting with a live countdown, opens the early
 * redemption, is shown the server's exact penalty (0.4 % × 15 remaining days × 1,000 = 60) and
 * confirms: the order moves to Redeemed and the trust account holds 1,000 − 60. Every wealth
 * screen in both themes at 390×844, with axe, and one in Chinese.
 */
const USDT = 3;

jest.setTimeout(180_000);

let stack: Stack;
let browser: Browser;
let api: ReturnType<typeof apiOf>;
let adminToken: string;
let page: Page;
let user: { token: string; user: unknown };
const tag = `${process.pid}${Date.now().toString(36)}`;

/** Registered, 1,000 USDT deposited (approved by the operator) and moved into the trust account. */
async function investor() {
  const email = `wealth.${tag}@kestrel.test`;
  const s = await registerByEmail(stack.url, email);
  await approvedDeposit(stack.url, adminToken, s.token, '1000', `dep-${tag}`);
  await api('POST', 'wallet/change', { from: 'coin', to: 'trust', currency_id: USDT, amount: '1000', client_id: `t-${tag}` }, s.token);
  return { token: s.token, user: await api<unknown>('GET', 'user/center', {}, s.token) };
}

const go = (p: Page, path: string) => goTo(p, stack.url, path);

const shoot = (p: Page, name: string, path: string, ready: string) => shootThemes(p, stack.url, `wealth-${name}`, path, { ready });

const trust = async () =>
  (await api<Array<{ account: string; available: string; frozen: string }>>('GET', 'lh/deposit/report', {}, user.token)) as unknown as {
    trust_available: string;
    trust_frozen: string;
    held: string;
  };

beforeAll(async () => {
  stack = await startStack({ simulator: false });
  api = apiOf(stack.url);
  browser = await launchBrowser();
  adminToken = (await api<{ token: string }>('POST', 'admin/login', ADMIN)).token;
  await api('POST', 'admin/chains/1', { deposit_address: 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7', reason: 'e2e' }, adminToken); // USDT TRC20
  user = await investor();
  page = await phonePage(browser, stack.url, user, { lang: 'en' });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

describe('wealth products on the real stack', () => {
  it('buys the 15-day hosting from the Trust tab, sees it in My hosting, redeems early with the penalty shown first', async () => {
    await go(page, '/pages/template/index');
    const card = page.locator('[data-testid="wealth-product"][data-code="hosting-15d"]');
    await card.waitFor();
    expect(await card.getByTestId('listing-status').getAttribute('data-status')).toBe('in_progress');
    await card.getByTestId('wealth-buy').click();
    await page.waitForURL(/finance\/buyPage\?id=\d+$/);
    await page.waitForFunction(() => /1,000\.0000/.test(document.querySelector('[data-testid="trust-available"]')?.textContent ?? ''));
    // The spec's prompts, in order, before anything is sent.
    await page.getByTestId('wealth-confirm').click();
    expect(await page.getByTestId('buy-error').textContent()).toBe('Amount cannot be empty');
    await page.getByLabel('Custody amount').fill('100');
    await page.getByTestId('wealth-confirm').click();
    expect(await page.getByTestId('buy-error').textContent()).toBe('The amount cannot be less than the minimum custody amount of 500.00 USDT');
    await page.getByLabel('Custody amount').fill('1000');
    expect(await page.getByTestId('est-daily').textContent()).toBe('4.0000 USDT');
    expect(await page.getByTestId('est-total').textContent()).toBe('60.0000 USDT');
    await page.getByTestId('wealth-confirm').click();
    expect(await page.getByTestId('buy-error').textContent()).toBe('You have not agreed to the agreement');
    await page.getByTestId('wealth-agree').check();
    await page.getByTestId('wealth-confirm').click();
    await page.waitForURL(/finance\/ordersPage$/);
    const order = page.getByTestId('wealth-order').first();
    await order.waitFor();
    expect(await order.getByTestId('order-amount').textContent()).toBe('1,000.00 USDT');
    // The maturity countdown is live.
    const first = await order.getByTestId('matures-in').textContent();
    await page.waitForFunction((before) => document.querySelector('[data-testid="matures-in"]')?.textContent !== before, first);
    expect(await trust()).toMatchObject({ trust_available: '0', trust_frozen: '1000', held: '1000' });

    await order.getByTestId('wealth-redeem').click();
    const popup = page.getByTestId('redeem-popup');
    await popup.getByTestId('redeem-penalty').waitFor();
    expect(await popup.getByTestId('redeem-penalty').textContent()).toBe('60.00000000 USDT');
    expect(await popup.getByTestId('redeem-refund').textContent()).toBe('940.00000000 USDT');
    await popup.getByTestId('redeem-confirm').click();
    await page.waitForURL(/finance\/ordersPage\?status=redeemed$/);
    const redeemed = page.locator('[data-testid="wealth-order"][data-status="redeemed"]').first();
    await redeemed.waitFor();
    expect(await redeemed.getByTestId('order-penalty').textContent()).toBe('60.00000000 USDT');
    expect(await trust()).toMatchObject({ trust_available: '940', trust_frozen: '0', held: '0' });
  });

  it('every wealth screen in both themes at 390×844 (axe: no serious finding), and in Chinese', async () => {
    const findings = [
      ...(await shoot(page, 'template', '/pages/template/index', '[data-testid="wealth-product"]')),
      ...(await shoot(page, 'finance', '/pages/finance/index?type=2', '[data-testid="wealth-product"][data-code="mining-30d"]')),
      ...(await shoot(page, 'flexible', '/pages/finance/index_lc', '[data-testid="wealth-product"][data-code="flexible"]')),
      ...(await shoot(page, 'orders', '/pages/finance/ordersPage?status=redeemed', '[data-testid="wealth-order"]')),
      ...(await shoot(page, 'rules', '/pages/finance/rulePage', '[data-testid="wealth-rules"]')),
      ...(await shoot(page, 'rules-lc', '/pages/finance/rulePage_lc', '[data-testid="wealth-rules"]')),
    ];
    const products = await api<Array<{ id: number; code: string }>>('GET', 'lh/deposit/config', { type: 1 });
    findings.push(...(await shoot(page, 'buy', `/pages/finance/buyPage?id=${products.find((p) => p.code === 'hosting-30d')!.id}`, '[data-testid="wealth-confirm"]')));
    expect(findings).toEqual([]);
    await page.evaluate(() => localStorage.setItem('lang', 'zh'));
    await go(page, '/pages/finance/ordersPage');
    await page.getByTestId('orders-tab-redeemed').waitFor();
    expect(await page.getByTestId('orders-tab-redeemed').textContent()).toBe('已赎回');
    await page.evaluate(() => localStorage.setItem('lang', 'en'));
  });
});
