import { join } from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import { ARTIFACTS, go as goTo, launchBrowser, shootThemes, phonePage } from './screens';
import { ADMIN, apiOf, startStack, type Stack, registerByEmail, approvedDeposit } from './stack';

/**
 * The NFT market on the real stack as `npm start` runs it (simulator on, so the demo collection
 * "Kestrel Genesis" with its generated images is on sale on a fresh database): a user with 100 USDT
 * in the trade account opens the market grid, opens "Dawn Kestrel" (10 USDT), buys it on the screen,
 * sees it as theirs with the provenance, and lists it for sale at 25 (the fee preview shown first);
 * the orders screen shows the purchase and the listing. Screens at 390×844 in both themes with axe;
 * the market in Chinese too.
 */

jest.setTimeout(180_000);

let stack: Stack;
let browser: Browser;
let api: ReturnType<typeof apiOf>;
let adminToken: string;
const tag = `${process.pid}${Date.now().toString(36)}`;

interface Item {
  id: number;
  name: string;
  price: string | null;
  on_sale: boolean;
  owner: { type: string; is_me: boolean };
  image: string;
}

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

describe('NFT market screens on the real stack', () => {
  it('buys an NFT on the screen and lists it for sale', async () => {
    const user = await fundedUser('nft', '100');
    // The demo collection, seeded at start through the operator's path (images generated locally).
    let market: { collections: Array<{ name: string }>; items: Item[] } = { collections: [], items: [] };
    for (let i = 0; i < 40 && market.items.length < 6; i++) {
      market = await api('GET', 'nft/list', { limit: 50 });
      if (market.items.length < 6) await new Promise((r) => setTimeout(r, 250));
    }
    expect(market.collections.map((c) => c.name)).toContain('Kestrel Genesis');
    const dawn = market.items.find((i) => i.name === 'Dawn Kestrel')!;
    expect(dawn).toMatchObject({ price: '10', on_sale: true, owner: { type: 'house' } });
    const img = await fetch(`${stack.url}${dawn.image}`);
    expect(img.headers.get('content-type')).toBe('image/png');

    const page = await phonePage(browser, stack.url, user, { lang: 'en' });
    const findings: string[] = [];
    findings.push(...(await shoot(page, 'nft-index', '/pages/nft/index', '[data-testid="nft-item"]')));

    // The grid: images loaded, prices shown; open Dawn Kestrel.
    await go(page, '/pages/nft/index');
    const tile = page.locator(`[data-testid="nft-item"][data-id="${dawn.id}"]`);
    await tile.waitFor();
    expect(await tile.getByTestId('nft-item-price').textContent()).toBe('10 USDT');
    await page.waitForFunction((id) => {
      const im = document.querySelector<HTMLImageElement>(`[data-id="${id}"] img`);
      return !!im && im.complete && im.naturalWidth > 0;
    }, dawn.id);
    await tile.locator('a').click();
    await page.waitForURL(/nft\/detail\?id=/);
    await page.getByTestId('nft-buy').waitFor();
    expect(await page.getByTestId('nft-price').textContent()).toBe('10 USDT');
    expect(await page.getByTestId('nft-owner').textContent()).toBe('Kestrel (issuer)');
    await page.waitForFunction(() => /100/.test(document.querySelector('[data-testid="nft-available"]')?.textContent ?? ''));
    findings.push(...(await shoot(page, 'nft-detail-buy', `/pages/nft/detail?id=${dawn.id}`, '[data-testid="nft-buy"]')));

    // Buy: a confirmation first, then the purchase.
    await page.getByTestId('nft-buy').click();
    expect(await page.getByTestId('nft-confirm-text').textContent()).toBe('Pay 10 USDT from your trade account for Dawn Kestrel?');
    await page.getByTestId('nft-buy-confirm').click();
    await page.getByText('Purchase successful').first().waitFor();
    await page.getByTestId('nft-sell').waitFor();
    expect(await page.getByTestId('nft-owner').textContent()).toBe('You');
    expect(await page.getByTestId('nft-price').textContent()).toBe('Not for sale');
    const provenance = page.getByTestId('nft-provenance').locator('li');
    expect(await provenance.count()).toBe(2);
    expect(await provenance.nth(1).getAttribute('data-event')).toBe('sale');
    expect(await provenance.nth(1).textContent()).toContain('10 USDT');

    // List it for sale: the screen checks the price, previews the proceeds after the 2.5 % fee, then lists.
    await page.getByTestId('nft-sell').click();
    expect(await page.getByText('Enter a price').count()).toBe(1);
    await page.getByTestId('nft-sell-price').fill('0');
    await page.getByTestId('nft-sell').click();
    expect(await page.getByText('Enter a valid price above 0 (at most 8 decimal places)').count()).toBe(1);
    await page.getByTestId('nft-sell-price').fill('25');
    expect(await page.getByTestId('nft-proceeds').textContent()).toBe('You receive 24.375 USDT after the market fee');
    await page.getByTestId('nft-sell').click();
    await page.getByText('Listed for sale').first().waitFor();
    await page.getByTestId('nft-withdraw').waitFor();
    expect(await page.getByTestId('nft-price').textContent()).toBe('25 USDT');
    findings.push(...(await shoot(page, 'nft-detail-mine', `/pages/nft/detail?id=${dawn.id}`, '[data-testid="nft-withdraw"]')));

    // The server agrees: listed at 25 by the user, 90 USDT left in the trade account.
    const after = await api<{ item: Item }>('GET', 'nft/list', { id: dawn.id }, user.token);
    expect(after.item).toMatchObject({ on_sale: true, price: '25', owner: { type: 'user', is_me: true } });
    const coins = await api<Array<{ symbol: string; available: string }>>('GET', 'currency/user_currency_list', {}, user.token);
    expect(coins.find((c) => c.symbol === 'USDT')?.available).toMatch(/^90(\.0+)?$/);

    // Orders: the purchase and the active listing; "mine" in the grid.
    findings.push(...(await shoot(page, 'nft-orders', '/pages/nft/order', '[data-testid="nft-order"]')));
    await go(page, '/pages/nft/order?type=purchase');
    await page.getByTestId('nft-order').first().waitFor();
    expect(await page.getByTestId('nft-order').count()).toBe(1);
    expect(await page.getByTestId('nft-order').getAttribute('data-status')).toBe('completed');
    expect(await page.getByTestId('nft-order-amount').textContent()).toBe('10 USDT');
    await page.getByTestId('nft-orders-tab-listing').click();
    await page.locator('[data-testid="nft-order"][data-kind="listing"]').waitFor();
    expect(await page.locator('[data-testid="nft-order"][data-status="active"] [data-testid="nft-order-amount"]').textContent()).toBe('25 USDT');
    await go(page, '/pages/nft/index?filter=mine');
    await page.locator(`[data-testid="nft-item"][data-id="${dawn.id}"]`).waitFor();
    expect(await page.getByTestId('nft-item').count()).toBe(1);

    // Another language: the market in Chinese.
    await page.evaluate(() => localStorage.setItem('lang', 'zh'));
    await go(page, '/pages/nft/index');
    await page.getByTestId('nft-item').first().waitFor();
    expect(await page.locator('main').textContent()).toContain('全部合集');
    await page.screenshot({ path: join(ARTIFACTS, 'nft-index-zh-light.png') });
    await page.evaluate(() => localStorage.setItem('lang', 'en'));
    await page.context().close();
    expect(findings).toEqual([]);
  });
});
