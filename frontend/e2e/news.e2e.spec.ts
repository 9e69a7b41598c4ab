import { join } from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import { ARTIFACTS, go as goTo, launchBrowser, shootThemes, phonePage } from './screens';
import { ADMIN, apiOf, latestCode, startStack, uploadImage, type Stack, registerByEmail, approvedDeposit, approveReviews } from './stack';

/**
 * News, notices and the map picker on the real stack as `npm start` runs it (simulator on, so the
 * demo announcements, FAQ and banners are seeded through the operator's path): the home banner
 * and notice strip show CMS content; an operator's withdrawal rejection reaches the user's bell
 * live as an unread badge and the message tab shows it; the notices page at 390×844 in both
 * themes with axe; the map picker's offline form (this machine has no internet, so no tiles)
 * fills the verification form's contact address.
 */
const USDT = 3;
const TRON = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';

jest.setTimeout(180_000);

let stack: Stack;
let browser: Browser;
let api: ReturnType<typeof apiOf>;
let adminToken: string;
const tag = `${process.pid}${Date.now().toString(36)}`;

/** Verified, with a fund password, `usdt` in the trade account and a TRC20 withdrawal address. */
async function readyUser(name: string, usdt: string) {
  const email = `${name}.${tag}@kestrel.test`;
  const s = await registerByEmail(stack.url, email);
  await api('POST', 'sms_mail', { purpose: 'fund_password' }, s.token);
  await api(
    'POST',
    'user/e_pwd',
    { password: '135790', re_password: '135790', code: await latestCode(stack.url, email, 'fund_password'), channel: 'email' },
    s.token,
  );
  const [f, b, h] = [await uploadImage(stack.url, s.token, 30), await uploadImage(stack.url, s.token, 60), await uploadImage(stack.url, s.token, 120)];
  await api(
    'POST',
    'user/real_name',
    { country: 'Portugal', name: 'Nora Notice', id_number: 'NN123456', address: 'Rua Augusta 10, Lisboa', front_image: f, back_image: b, hand_image: h },
    s.token,
  );
  await approveReviews(stack.url, adminToken, 'real_name');
  await approvedDeposit(stack.url, adminToken, s.token, usdt, `dep-${name}-${tag}`);
  await api('POST', 'sms_mail', { purpose: 'address' }, s.token);
  const address = await api<{ id: number }>(
    'POST',
    'wallet/addaddress',
    { currency_id: USDT, chain: 'TRC20', address: TRON, password: '135790', code: await latestCode(stack.url, email, 'address') },
    s.token,
  );
  return { ...s, addressId: address.id };
}

async function signedIn(token: string, user: unknown, lang = 'en') {
  const page = await phonePage(browser, stack.url, { token, user }, { lang });
  return { context: page.context(), page };
}

const go = (p: Page, path: string) => goTo(p, stack.url, path);

beforeAll(async () => {
  stack = await startStack();
  api = apiOf(stack.url);
  browser = await launchBrowser();
  adminToken = (await api<{ token: string }>('POST', 'admin/login', ADMIN)).token;
  await api('POST', 'admin/chains/1', { deposit_address: 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7', reason: 'e2e' }, adminToken); // USDT TRC20
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

describe('news, notices and the map picker on the real stack', () => {
  it('the home banner and notice strip show CMS content; a withdrawal rejection arrives as an unread message live; the notices page in both themes', async () => {
    // The demo content is seeded at start (through the operator's path).
    let banners: Array<{ title: string; image: string }> = [];
    for (let i = 0; i < 40 && banners.length < 3; i++) {
      banners = await api('GET', 'news/banner');
      if (banners.length < 3) await new Promise((r) => setTimeout(r, 250));
    }
    expect(banners.map((b) => b.title)).toEqual(['Kestrel Exchange is live', 'Invite friends, earn rebates', 'Up/down options: settle in minutes']);
    // An operator publishes a pinned announcement now: it leads the strip.
    const title = `Trading competition ${tag}`;
    const category = (await api<{ categories: Array<{ id: number; code: string }> }>('GET', 'news/list')).categories.find((c) => c.code === 'announcement')!.id;
    const created = await api<{ id: number }>(
      'POST',
      'admin/news/articles',
      {
        category_id: category,
        lang: 'en',
        title,
        summary: 'Win a share of 10,000 USDT',
        body: 'Trade **spot** this week.\n\n<script>window.pwned = 1</script>',
        pinned: 1,
        reason: 'campaign',
      },
      adminToken,
    );

    const user = await readyUser('notice', '100');
    const { context, page } = await signedIn(user.token, user.user);
    // Earlier messages (verification, deposit) read, so the badge counts only what comes now.
    await api('POST', 'notice/read_all', {}, user.token);
    await go(page, '/');
    const banner = page.getByTestId('home-banner');
    await banner.waitFor();
    expect(await banner.locator('h2').textContent()).toBe('Kestrel Exchange is live');
    await page.waitForFunction(() => {
      const im = document.querySelector<HTMLImageElement>('[data-testid="home-banner"] img');
      return !!im && im.complete && im.naturalWidth > 0;
    });
    await page.waitForFunction((t) => document.querySelector('[data-testid="notice-strip"]')?.textContent?.includes(t), title);
    expect(await page.getByTestId('notice-badge').count()).toBe(0);
    await page.screenshot({ path: join(ARTIFACTS, 'news-home-light.png') });

    // The operator rejects a withdrawal while the home screen is open: the bell shows 1 unread.
    const w = await api<{ withdrawal_id: number }>('POST', 'wallet/out', { address_id: user.addressId, amount: '20', password: '135790' }, user.token);
    await page.waitForTimeout(500); // the socket is connected by now
    await api('POST', `admin/withdrawals/${w.withdrawal_id}/reject`, { reason: 'Address under review' }, adminToken);
    await page.getByTestId('notice-badge').waitFor();
    expect(await page.getByTestId('notice-badge').textContent()).toBe('1');
    await page.getByText('Your withdrawal of 20 USDT was rejected and the funds returned: Address under review').first().waitFor(); // the toast

    // The strip opens the article; its script stayed text.
    await page.getByTestId('notice-strip').click();
    await page.waitForURL(/notice\/index\?article=/);
    const article = page.getByTestId('notice-article').first();
    await article.locator('strong').waitFor();
    expect(await article.textContent()).toContain('<script>window.pwned = 1</script>');
    expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();
    expect(created.id).toBeGreaterThan(0);

    // The message tab: the rejection, unread; opening it marks it read and the badge goes.
    await page.getByTestId('notice-tab-message').click();
    const message = page.locator('[data-testid="message"][data-kind="withdrawal_rejected"]');
    await message.waitFor();
    expect(await message.getAttribute('data-read')).toBe('0');
    expect(await message.textContent()).toContain('Address under review');
    expect(await page.getByTestId('notice-tab-unread').textContent()).toBe('1');

    const findings: string[] = [];
    findings.push(...(await shootThemes(page, stack.url, 'notice-announcements', '/pages/notice/index', { ready: '[data-testid="announcement"]' })));
    findings.push(...(await shootThemes(page, stack.url, 'notice-messages', '/pages/notice/index?tab=message', { ready: '[data-testid="message"]' })));
    await go(page, '/pages/notice/index?tab=message');
    await message.click();
    await page.locator('[data-testid="message"][data-kind="withdrawal_rejected"][data-read="1"]').waitFor();
    expect(await page.getByTestId('notice-tab-unread').count()).toBe(0);
    expect((await api<{ unread: number }>('GET', 'notice/unread', {}, user.token)).unread).toBe(0);

    // In Chinese: the tabs and the message in the reader's language.
    await page.evaluate(() => localStorage.setItem('lang', 'zh'));
    await go(page, '/pages/notice/index?tab=message');
    await message.waitFor();
    expect(await message.textContent()).toContain('充值与提现');
    await page.screenshot({ path: join(ARTIFACTS, 'notice-messages-zh-light.png') });
    await context.close();
    expect(findings).toEqual([]);
  });

  it('the map picker’s offline form fills the verification form’s contact address, and the stored place opens', async () => {
    const email = `map.${tag}@kestrel.test`;
    const s = await registerByEmail(stack.url, email);
    const { context, page } = await signedIn(s.token, s.user);
    await go(page, '/pages/verification/basic');
    await page.locator('input[name="name"]').fill('Mara Map');
    await page.getByTestId('address-map').click();
    await page.waitForURL(/choose-location/);
    await page.getByTestId('location-form').waitFor();
    // Bad input first: clear messages, nothing chosen.
    await page.locator('input[name="lat"]').fill('95');
    await page.getByTestId('location-confirm').click();
    expect(await page.getByText('Latitude is a number from -90 to 90').count()).toBe(1);
    expect(await page.getByText('Longitude is required').count()).toBe(1);
    expect(await page.getByText('Address is required').count()).toBe(1);
    await page.locator('input[name="lat"]').fill('38.7105');
    await page.locator('input[name="lng"]').fill('-9.1366');
    await page.locator('input[name="address"]').fill('Rua Augusta 10, 1100-053 Lisboa');
    // No tiles on an offline machine: the page says so and the form is the way.
    await page.getByTestId('map-offline').waitFor();
    await page.screenshot({ path: join(ARTIFACTS, 'choose-location-light.png') });
    await page.getByTestId('location-confirm').click();
    await page.waitForURL(/verification\/basic/);
    expect(await page.locator('input[name="address"]').inputValue()).toBe('Rua Augusta 10, 1100-053 Lisboa');
    expect(await page.locator('input[name="name"]').inputValue()).toBe('Mara Map');
    await page.getByTestId('address-view-map').click();
    await page.waitForURL(/open-location/);
    const place = page.getByTestId('open-location');
    await place.waitFor();
    expect(await place.textContent()).toContain('Rua Augusta 10, 1100-053 Lisboa');
    expect(await place.textContent()).toContain('38.7105');
    expect(await place.locator('a').getAttribute('href')).toBe('https://www.openstreetmap.org/?mlat=38.7105&mlon=-9.1366#map=16/38.7105/-9.1366');
    const findings = await shootThemes(page, stack.url, 'open-location', '/open-location?lat=38.7105&lng=-9.1366&name=Rua%20Augusta%2010', {
      ready: '[data-testid="open-location"]',
    });
    await context.close();
    expect(findings).toEqual([]);
  });
});
