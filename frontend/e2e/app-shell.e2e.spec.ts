import AxeBuilder from '@axe-core/playwright';
import { join } from 'node:path';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { ARTIFACTS, launchBrowser } from './screens';
import { latestCode, startStack, type Stack } from './stack';

/**
 * Issue 6 end to end, as a user would, on the real stack in the system Chromium at 390×844:
 * register by e-mail, log in, switch language and theme, change the password, log out, and be
 * sent to login (with backpage) from a guarded page. Screenshots of both themes go to
 * frontend/test-artifacts/; axe checks home, login, register and settings in both themes.
 */

jest.setTimeout(120_000);

let stack: Stack;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const email = `e2e.${process.pid}.${Date.now().toString(36)}@kestrel.test`;
let password = 'first-pass-1';

const go = async (path: string) => {
  await page.goto(`${stack.url}/#${path}`);
  await page.locator('.nav-bar__title').first().waitFor();
};
const hashPath = () => page.evaluate(() => window.location.hash.slice(1));
const setTheme = (theme: 'light' | 'dark') => page.evaluate((t) => localStorage.setItem('theme', t), theme);

/** Axe's critical and serious findings on the current screen (none expected). */
async function seriousViolations(): Promise<string[]> {
  const result = await new AxeBuilder({ page }).analyze();
  return result.violations
    .filter((v) => v.impact === 'critical' || v.impact === 'serious')
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** Each theme: screenshot (390×844) and axe. */
async function checkBothThemes(name: string, path: string) {
  for (const theme of ['light', 'dark'] as const) {
    await setTheme(theme);
    await go(path);
    await page.reload(); // the theme is read at launch
    await page.locator('.nav-bar__title').first().waitFor();
    await page.waitForFunction((t) => document.documentElement.dataset.theme === t, theme);
    await page.waitForTimeout(300);
    await page.screenshot({ path: join(ARTIFACTS, `${name}-${theme}.png`) });
    expect([`${name} ${theme}`, await seriousViolations()]).toEqual([`${name} ${theme}`, []]);
  }
  await setTheme('light');
}

beforeAll(async () => {
  stack = await startStack();
  browser = await launchBrowser();
  context = await browser.newContext({ viewport: { width: 390, height: 844 }, colorScheme: 'light' });
  page = await context.newPage();
  page.setDefaultTimeout(15_000);
  await page.goto(`${stack.url}/`);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

describe('the app shell on the real stack', () => {
  it('home shows the login prompt, the entry grid and live tickers from the socket', async () => {
    await go('/');
    await expect(page.getByTestId('login-prompt').isVisible()).resolves.toBe(true);
    await page.getByTestId('market-list').waitFor({ timeout: 30_000 });
    // The simulator trades within seconds: a price appears once the first trade is pushed.
    await page.waitForFunction(() => [...document.querySelectorAll('[data-testid="last-price"]')].some((e) => /\d/.test(e.textContent ?? '')), undefined, {
      timeout: 30_000,
    });
    expect(await page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link').count()).toBe(5);
    await page.getByTestId('open-menu').click();
    await expect(page.getByRole('dialog').getByText('Log in to deposit, trade and manage your account.').isVisible()).resolves.toBe(true);
    await page.keyboard.press('Escape');
  });

  it('home, login and register pass axe in both themes (screenshots written)', async () => {
    await checkBothThemes('home', '/');
    await checkBothThemes('login', '/pages/user/login/login');
    await checkBothThemes('register', '/pages/user/login/register?type=email');
  });

  it('a new user registers by e-mail with the code from the operator outbox', async () => {
    await go('/pages/user/login/choose');
    await page.getByRole('link', { name: /Sign up with e-mail/ }).click();
    await page.getByRole('textbox', { name: 'E-mail' }).fill(email);
    await page.getByRole('button', { name: 'Send code' }).click();
    await page.getByRole('button', { name: /Resend in \d+ s/ }).waitFor();
    await page.getByLabel('Verification code').fill(await latestCode(stack.url, email, 'register'));
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByLabel('Confirm password').fill(password);
    await page.getByRole('checkbox').check();
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.waitForFunction(() => window.location.hash === '#/');
    expect(await page.evaluate(() => localStorage.getItem('token'))).toBeTruthy();
    await expect(page.getByTestId('login-prompt').count()).resolves.toBe(0);
  });

  it('logs out and logs in again', async () => {
    await go('/pages/settings/index');
    await page.getByTestId('account-info').getByText(email).first().waitFor();
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.waitForFunction(() => window.location.hash.startsWith('#/pages/user/login/login'));
    await page.getByRole('textbox', { name: 'E-mail' }).fill(email);
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForFunction(() => window.location.hash === '#/');
    expect(await page.evaluate(() => localStorage.getItem('token'))).toBeTruthy();
  });

  it('logs out offline: forgotten on the device at once, ended on the server once back online', async () => {
    await go('/pages/settings/index');
    await page.getByTestId('account-info').getByText(email).first().waitFor();
    const token = await page.evaluate(() => localStorage.getItem('token'));
    await page.context().setOffline(true);
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('status').getByText('Logged out on this device.', { exact: false }).waitFor();
    await page.screenshot({ path: join(ARTIFACTS, 'logout-offline.png') });
    expect(await page.evaluate(() => [localStorage.getItem('token'), localStorage.getItem('pendingLogout')])).toEqual([null, JSON.stringify([token])]);
    // Back online: the app ends the old session on the server with its own token.
    const revoked = page.waitForRequest((r) => r.url().endsWith('/api/user/logout') && r.headers()['authorization'] === token);
    await page.context().setOffline(false);
    await revoked;
    await page.waitForFunction(() => localStorage.getItem('pendingLogout') === null);
    const center = await fetch(`${stack.url}/api/user/center`, { headers: { Authorization: token! } });
    expect(((await center.json()) as { code: number }).code).toBe(401);
    await page.waitForFunction(() => window.location.hash.startsWith('#/pages/user/login/login'));
    await page.getByRole('textbox', { name: 'E-mail' }).fill(email);
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForFunction(() => window.location.hash === '#/');
  });

  it('switches language (stored, sent as the lang header, set/lang called) and back', async () => {
    await go('/pages/settings/language/language');
    const setLang = page.waitForRequest((r) => r.url().endsWith('/api/set/lang') && r.headers()['lang'] === 'zh');
    await page.getByRole('radio', { name: '简体中文' }).click();
    expect((await setLang).postData()).toBe('lang=zh');
    await page.locator('.nav-bar__title', { hasText: '语言' }).waitFor();
    expect(await page.evaluate(() => [localStorage.getItem('lang'), document.documentElement.lang])).toEqual(['zh', 'zh-CN']);
    await go('/pages/settings/index');
    await page.locator('.nav-bar__title', { hasText: '设置' }).waitFor();
    // The toasts of the steps before (the logout's, in English; the switch's) gone first: the screen as it stays.
    await page.waitForFunction(() => !document.querySelector('.toast'));
    await page.screenshot({ path: join(ARTIFACTS, 'settings-zh.png') });
    await go('/pages/settings/language/language');
    await page.getByRole('radio', { name: 'English' }).click();
    await page.locator('.nav-bar__title', { hasText: 'Language' }).waitFor();
  });

  it('switches theme in settings and keeps it after a reload', async () => {
    await go('/pages/settings/index');
    const toggle = page.getByRole('switch', { name: 'Dark mode' });
    const before = await page.evaluate(() => document.documentElement.dataset.theme);
    await toggle.click();
    const after = before === 'dark' ? 'light' : 'dark';
    await page.waitForFunction((t) => document.documentElement.dataset.theme === t, after);
    await page.reload();
    await page.waitForFunction((t) => document.documentElement.dataset.theme === t, after);
    expect(await page.evaluate(() => localStorage.getItem('theme'))).toBe(after);
    await page.getByRole('radio', { name: /Red up/ }).click();
    expect(await page.evaluate(() => [localStorage.getItem('upColor'), document.documentElement.dataset.up])).toEqual(['red-up', 'red-up']);
  });

  it('settings passes axe in both themes, logged in (screenshots written)', async () => {
    await checkBothThemes('settings', '/pages/settings/index');
    await page.getByTestId('version').getByText('4.2.9').waitFor();
    await checkBothThemes('security', '/pages/settings/security/index');
  });

  it('changes the login password', async () => {
    await go('/pages/settings/security/index');
    await page.getByRole('link', { name: /Login password/ }).click();
    await page.getByLabel('Current password').fill(password);
    await page.getByLabel('New password', { exact: true }).fill('second-pass-2');
    await page.getByLabel('Confirm new password').fill('second-pass-2');
    await page.getByRole('button', { name: 'Submit' }).click();
    await page.getByRole('status').getByText('Password changed').waitFor();
    password = 'second-pass-2';
    expect(await hashPath()).toBe('/pages/settings/security/index');
  });

  it('logs out, and a guarded page sends the visitor to login with backpage, then back after login', async () => {
    await go('/pages/settings/index');
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.waitForFunction(() => window.location.hash.startsWith('#/pages/user/login/login'));
    expect(await page.evaluate(() => [localStorage.getItem('token'), localStorage.getItem('user')])).toEqual([null, null]);

    await page.goto(`${stack.url}/#/pages/assets/index`);
    await page.waitForFunction(() => window.location.hash.startsWith('#/pages/user/login/login?'));
    expect(await hashPath()).toBe(`/pages/user/login/login?backpage=${encodeURIComponent('/pages/assets/index')}&backtype=2`);

    await page.getByRole('textbox', { name: 'E-mail' }).fill(email);
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForFunction(() => window.location.hash === '#/pages/assets/index');
    await page.locator('.nav-bar__title', { hasText: 'Assets' }).waitFor();
  });

  it('a revoked token: the API answers 401, the session is cleared and login opens with backpage', async () => {
    await page.evaluate(() => localStorage.setItem('token', 'revoked-token'));
    await page.goto(`${stack.url}/#/pages/settings/account/index`);
    await page.reload(); // a new launch with that token
    await page.waitForFunction(() => window.location.hash.startsWith('#/pages/user/login/login?'), undefined, { timeout: 10_000 });
    expect(await hashPath()).toBe(`/pages/user/login/login?backpage=${encodeURIComponent('/pages/settings/account/index')}&backtype=1`);
    expect(await page.evaluate(() => localStorage.getItem('token'))).toBeNull();
  });
});
