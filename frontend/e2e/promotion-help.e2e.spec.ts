import { type Browser, type Page } from 'playwright-core';
import { go as goTo, launchBrowser, shootThemes } from './screens';
import { ADMIN, apiOf, latestCode, startStack, type Stack } from './stack';

/**
 * Promotion and the help centre on the real stack: the promotion page shows the user's poster
 * (a PNG with the link's QR code) and copies the invite link; a chat message sent on the chat page
 * reaches the operator API and the operator's reply appears live. Every screen in both themes at
 * 390×844, with axe.
 */

jest.setTimeout(120_000);

let stack: Stack;
let browser: Browser;
let api: ReturnType<typeof apiOf>;
let adminToken: string;
let page: Page;
let user: { token: string; user: { invite_code: string } };
const tag = `${process.pid}${Date.now().toString(36)}`;

async function register(email: string, extra: Record<string, string> = {}) {
  await api('POST', 'sms_mail', { email, purpose: 'register' });
  return api<{ token: string; user: { invite_code: string } }>('POST', 'user/register', {
    type: 'email',
    email,
    code: await latestCode(stack.url, email, 'register'),
    password: 'pass-1234',
    re_password: 'pass-1234',
    agreement: 1,
    ...extra,
  });
}

const go = (p: Page, path: string) => goTo(p, stack.url, path);

const shoot = (p: Page, name: string, path: string, ready: string) => shootThemes(p, stack.url, `promotion-help-${name}`, path, { ready });

beforeAll(async () => {
  stack = await startStack({ simulator: false });
  api = apiOf(stack.url);
  browser = await launchBrowser();
  adminToken = (await api<{ token: string }>('POST', 'admin/login', ADMIN)).token;
  user = await register(`promo.${tag}@kestrel.test`);
  await register(`friend.${tag}@kestrel.test`, { invite_code: user.user.invite_code });
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, colorScheme: 'light' });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: stack.url });
  page = await context.newPage();
  page.setDefaultTimeout(20_000);
  await page.goto(`${stack.url}/`);
  await page.evaluate(
    ([t, u]) => {
      localStorage.setItem('token', t as string);
      localStorage.setItem('user', JSON.stringify(u));
      localStorage.setItem('theme', 'light');
      localStorage.setItem('lang', 'en');
    },
    [user.token, user.user],
  );
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

describe('promotion and help centre on the real stack', () => {
  it('the promotion page shows the poster (PNG with the link) and copies the invite link', async () => {
    await go(page, '/pages/promotion/index');
    await page.getByTestId('invite-code').waitFor();
    expect(await page.getByTestId('invite-code').textContent()).toBe(user.user.invite_code);
    const link = (await page.getByTestId('invite-link').textContent())!;
    expect(link).toBe(`${stack.url}/#/pages/user/login/register?code=${user.user.invite_code}`);
    const poster = page.getByTestId('poster');
    await poster.waitFor();
    expect(await poster.getAttribute('src')).toMatch(/^data:image\/png;base64,/);
    expect(await poster.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(540);
    expect(await page.getByRole('link', { name: 'Save image' }).getAttribute('download')).toBe(`kestrel-invite-${user.user.invite_code}.png`);
    await page.getByTestId('copy-link').click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(link);
    expect(await page.getByText('Friends invited').locator('..').locator('strong').textContent()).toBe('1');
  });

  it('a chat message reaches the operator API and the reply appears live; the navigation bar is dark blue', async () => {
    await go(page, '/pages/help/center/chat');
    await page.getByTestId('chat-messages').waitFor();
    expect(await page.locator('.nav-bar').evaluate((el) => [getComputedStyle(el).backgroundColor, getComputedStyle(el).color])).toEqual([
      'rgb(11, 42, 111)',
      'rgb(255, 255, 255)',
    ]);
    await page.getByLabel('Type a message').fill('Where is my deposit?');
    await page.getByTestId('chat-send').click();
    await page.getByText('Where is my deposit?').waitFor();

    type Conv = { conversation_id: string; account: string; last_message: { text: string } | null };
    const open = await api<{ items: Conv[] }>('GET', 'admin/help/conversations', {}, adminToken);
    const conv = open.items.find((c) => c.account === `promo.${tag}@kestrel.test`)!;
    expect(conv.last_message?.text).toBe('Where is my deposit?');
    await api('POST', `admin/help/conversations/${conv.conversation_id}/reply`, { text: 'It is on its way, 2 confirmations left' }, adminToken);
    await page.getByText('It is on its way, 2 confirmations left').waitFor({ timeout: 10_000 });
    // The operator read it: the user's message shows the receipt.
    await api('GET', `admin/help/conversations/${conv.conversation_id}`, {}, adminToken);
    await page.locator('.chat__message--user .chat__meta', { hasText: 'Read' }).waitFor({ timeout: 10_000 });
  });

  it('the help centre lists the FAQ of the news CMS and opens an answer', async () => {
    const { categories } = await api<{ categories: Array<{ id: number; code: string }> }>('GET', 'news/list', {});
    const faq = categories.find((c) => c.code === 'faq')!;
    await api(
      'POST',
      'admin/news/articles',
      { category_id: faq.id, lang: 'en', title: 'How are rebates paid?', summary: 'Every hour, into your trade account.', body: 'Rebates are **paid on the hour**.', reason: 'e2e' },
      adminToken,
    );
    await go(page, '/pages/help/center/center');
    await page.getByRole('button', { name: 'How are rebates paid?' }).click();
    await page.getByText('Every hour, into your trade account.').waitFor();
    await page.getByRole('link', { name: 'Read more' }).click();
    await page.locator('.help__article strong', { hasText: 'paid on the hour' }).waitFor();
  });

  it('promotion, help centre and chat in both themes at 390×844 (axe)', async () => {
    const findings = [
      ...(await shoot(page, 'promotion', '/pages/promotion/index', '[data-testid="poster"]')),
      ...(await shoot(page, 'center', '/pages/help/center/center', '[data-testid="open-chat"]')),
      ...(await shoot(page, 'center-alt', '/pages/help-center/center', '[data-testid="open-chat"]')),
      ...(await shoot(page, 'chat', '/pages/help/center/chat', '[data-testid="chat-messages"]')),
    ];
    expect(findings).toEqual([]);
  });
});
