import type { DepthData } from '@kestrel/contracts';
import { join } from 'node:path';
import { type Browser, type Page, type WebSocketRoute } from 'playwright-core';
import { ARTIFACTS, go as goTo, launchBrowser, shootThemes } from './screens';
import { ADMIN, apiOf, approvedDeposit, registerByEmail, setFundPassword, startStack, type Stack } from './stack';

/**
 * Issue 27 on the spot trade screen, real stack with the market simulator ON: the order book's
 * cumulative depth bars and spread, a tap on a book price fills the order form's price; the socket
 * is dropped (every Socket.IO connection of the page is closed and refused through
 * `page.routeWebSocket`, polling aborted), the stale badge shows and the book on screen freezes
 * while the market moves on the server; the socket comes back and the screen shows the server's
 * new state (the badge goes). Screens at 390×844 in both themes and in Chinese, axe clean.
 * When the simulator's requotes do not move the top of book soon enough (a loaded machine slows its
 * ticks), a second trader moves it: a limit buy one tick above the best bid.
 */
const SYMBOL = 'BTC/USDT';

jest.setTimeout(120_000);

let stack: Stack;
let browser: Browser;
let api: ReturnType<typeof apiOf>;
let page: Page;
/** A second trader with USDT in the trade account, who moves the market when the simulator is slow to. */
let mover: { token: string };
const tag = `${process.pid}${Date.now().toString(36)}`;
let offline = false;
const open: WebSocketRoute[] = [];
/** Sockets whose Socket.IO connection the server has accepted (its `40` connect packet went through). */
const connected = new Set<WebSocketRoute>();

const go = (path: string) => goTo(page, stack.url, path);
/** The book on screen and on the server, as its best bid and best ask (raw price strings). */
const shownBook = async () =>
  `${await page.locator('.book__row--bid').first().getAttribute('data-price')}/${await page.locator('.book__row--ask').last().getAttribute('data-price')}`;
const serverBook = async () => {
  const d = await api<DepthData>('GET', 'currency/depth', { symbol: SYMBOL, levels: 1 });
  return `${d.bids[0]?.[0]}/${d.asks[0]?.[0]}`;
};

beforeAll(async () => {
  stack = await startStack({ simulator: true });
  api = apiOf(stack.url);
  browser = await launchBrowser();
  const email = `trader.${tag}@kestrel.test`;
  const user = await registerByEmail(stack.url, email);
  const adminToken = (await api<{ token: string }>('POST', 'admin/login', ADMIN)).token;
  await api('POST', 'admin/chains/1', { deposit_address: 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7', reason: 'e2e' }, adminToken); // USDT TRC20
  const moverEmail = `mover.${tag}@kestrel.test`;
  mover = await registerByEmail(stack.url, moverEmail);
  await setFundPassword(stack.url, moverEmail, mover.token);
  await approvedDeposit(stack.url, adminToken, mover.token, '1000', `dep-${tag}`);
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, colorScheme: 'light' });
  page = await context.newPage();
  page.setDefaultTimeout(20_000);
  // Every Socket.IO websocket goes through here: proxied to the server while online, closed (and
  // new ones refused) while "offline"; the polling fallback is aborted the same way.
  await page.routeWebSocket(/\/socket\.io\//, (ws) => {
    if (offline) {
      // Refused: the page sees the connection open and close at once (a close before that leaves it hanging until its 20 s timeout).
      ws.onMessage(() => undefined);
      setTimeout(() => void ws.close({ code: 4000, reason: 'offline' }), 50);
      return;
    }
    const server = ws.connectToServer();
    // Forwarded by hand (a handler on the server side stops the automatic forwarding), to see the connect packet.
    server.onMessage((m) => {
      if (typeof m === 'string' && m.startsWith('40')) connected.add(ws);
      ws.send(m);
    });
    open.push(ws);
  });
  await page.route(/\/socket\.io\//, (route) => (offline ? route.abort() : route.continue()));
  await page.goto(`${stack.url}/`);
  await page.evaluate(
    ([t, u, s]) => {
      localStorage.setItem('token', t as string);
      localStorage.setItem('user', JSON.stringify(u));
      localStorage.setItem('theme', 'light');
      localStorage.setItem('lang', 'en');
      localStorage.setItem('symbol', s as string);
    },
    [user.token, user.user, SYMBOL],
  );
});

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

describe('spot trade screen: depth, spread, offline and resync', () => {
  it('shows cumulative depth bars and the spread; a tap on a book price fills the order form', async () => {
    await go('/pages/trade/index');
    const asks = page.locator('.book__row--ask');
    const bids = page.locator('.book__row--bid');
    await bids.nth(1).waitFor();
    await asks.nth(1).waitFor();
    // Cumulative: the bar grows from the best price outwards (asks are listed best last). All bars
    // are read in one step inside the page: the live book re-renders between separate reads.
    const depths = await page.evaluate(() => {
      const of = (selector: string) =>
        [...document.querySelectorAll<HTMLElement>(selector)].map((e) => Number(e.style.getPropertyValue('--depth').replace('%', '')));
      return { bids: of('.book__row--bid'), asks: of('.book__row--ask') };
    });
    // A level's bar can be 0.00 % when the running total is tiny beside the deeper side's total (a
    // partly filled best order), so the checks are on the running totals: they never shrink
    // outwards, and the deeper side's outermost row is the full width.
    const asksOutwards = [...depths.asks].reverse();
    for (const side of [depths.bids, asksOutwards]) for (let i = 1; i < side.length; i++) expect(side[i]).toBeGreaterThanOrEqual(side[i - 1]);
    expect(Math.max(depths.bids[depths.bids.length - 1], depths.asks[0])).toBe(100);
    await expect(page.locator('[data-testid="book-spread"]').innerText()).resolves.toMatch(/Spread \d[\d,.]* \(\d+\.\d{2}%\)/);

    // Find, read and tap in one step inside the page: the live book (the simulator's trades and
    // requotes) can re-render between a separate read and tap, and the tap then fills another
    // row's price; and a row found by a locator can be replaced before a function on it runs, so
    // its tap lands on a detached button that React no longer listens to.
    const price = await page.evaluate(() => {
      const row = document.querySelectorAll<HTMLElement>('.book__row--bid')[1];
      row.click();
      return row.getAttribute('data-price')!;
    });
    expect(await page.locator('input[name="price"]').inputValue()).toBe(price);
  });

  it('drops the socket: stale badge, the book freezes while the market moves; back online the screen shows the new state', async () => {
    const before = open.length;
    await go('/pages/trade/index');
    await page.locator('.book__row--ask').first().waitFor();
    // The book can be drawn from its HTTP snapshot before the socket is up; a socket dropped while
    // still opening would be noticed only at its 20 s connect timeout, so drop a connected one.
    const accepted = () => open.slice(before).some((ws) => connected.has(ws));
    for (let i = 0; i < 200 && !accepted(); i++) await page.waitForTimeout(100);
    expect(accepted()).toBe(true);
    await expect(page.locator('[data-testid="stale-badge"]').count()).resolves.toBe(0);

    offline = true;
    for (const ws of open.splice(0)) await ws.close();
    await page.locator('[data-testid="stale-badge"]').waitFor();
    const frozen = await shownBook();
    // The market moves on the server while the screen cannot hear it: the simulator requotes its
    // book every 5 s, but on a loaded CI machine its ticks can fall behind (twice no new top of book
    // came for 20 and 45 s), so after 10 s the second trader bids one tick above the best bid.
    const deadline = Date.now() + 45_000;
    const nudgeAt = Date.now() + 10_000;
    let nudged = false;
    let nudgeError = '';
    let moved: string | null = null;
    while (Date.now() < deadline) {
      const now = await serverBook();
      if (now !== frozen) {
        moved = now;
        break;
      }
      if (!nudged && Date.now() >= nudgeAt) {
        nudged = true;
        const price = (Number(frozen.split('/')[0]) + 0.01).toFixed(2);
        // Refused or unanswered (a stalled sequencer stalls it too): said in the failure below.
        await api(
          'POST',
          'coin/trade',
          { symbol: SYMBOL, side: 'buy', type: 'limit', price, quantity: '0.001', client_order_id: `nudge-${tag}` },
          mover.token,
        ).catch((err: Error) => (nudgeError = `: ${err.message}`));
      }
      await page.waitForTimeout(250);
    }
    if (moved === null)
      throw stack.failure(`the server's top of book did not move in 45 s${nudged ? ` (a bid one tick above the best was sent after 10 s${nudgeError})` : ''}`);
    expect(await shownBook()).toBe(frozen);
    await page.screenshot({ path: join(ARTIFACTS, 'trader-offline.png') });

    offline = false;
    await page.locator('[data-testid="stale-badge"]').waitFor({ state: 'detached', timeout: 30_000 });
    // Resynced: the screen catches up with the server's book (which may requote meanwhile, so
    // compare both at the same moment until they agree).
    const until = Date.now() + 15_000;
    let agreed = false;
    while (!agreed && Date.now() < until) {
      const [screen, server] = [await shownBook(), await serverBook()];
      agreed = screen === server && screen !== frozen;
      if (!agreed) await page.waitForTimeout(200);
    }
    expect(agreed).toBe(true);
  }, 150_000);

  it('is axe clean with readable screenshots in both themes and in Chinese', async () => {
    const findings = await shootThemes(page, stack.url, 'trader-trade', '/pages/trade/index', { ready: '.book__row--bid', settleMs: 500 });
    await page.evaluate(() => localStorage.setItem('lang', 'zh'));
    findings.push(...(await shootThemes(page, stack.url, 'trader-trade-zh', '/pages/trade/index', { ready: '.book__row--bid', settleMs: 500 })));
    await expect(page.locator('[data-testid="book-spread"]').innerText()).resolves.toContain('价差');
    await page.evaluate(() => localStorage.setItem('lang', 'en'));
    expect(findings).toEqual([]);
  });
});
