/* global requestAnimationFrame, PerformanceObserver */
// npm run bench:ui — the spot trade page in Chromium (390×844) while the market simulator trades and
// a load script adds ~10 depth/trade changes a second (two traders crossing small limit orders at the
// last price). Measures long tasks (> 50 ms, PerformanceObserver 'longtask') and the frame rate
// (requestAnimationFrame count) over BENCH_SECONDS. Last line: `ui: <F> fps, <T> long tasks/min`.
// BENCH_UI_PAGE=market measures the Markets tab instead (every market live over `tickers`, the
// simulator trading them all, the same load on BTC/USDT); the default is `trade`.
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { call, log, makeTraders, startStack } from './lib/stack.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'frontend', 'package.json'));
const { chromium } = require('playwright-core');

const SECONDS = Number(process.env.BENCH_SECONDS ?? 30);
const RATE = Number(process.env.BENCH_UI_RATE ?? 10);
const PAGE = process.env.BENCH_UI_PAGE ?? 'trade';
if (PAGE !== 'trade' && PAGE !== 'market') throw new Error(`BENCH_UI_PAGE must be trade or market, not ${PAGE}`);
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

const stack = await startStack({ simulator: true });
let browser;
let loading = true;
try {
  // USDT is currency 3, BTC 1 (seeded).
  const [viewer, maker, taker] = await makeTraders(stack, 3, { 3: '10000000', 1: '100' });
  // Wait for the simulator's first trades so there is a last price.
  let last = null;
  for (let i = 0; i < 120 && !last; i++) {
    const q = await call(stack.apiUrl, 'GET', 'currency/quotation_new');
    last = q.data?.[0]?.markets?.find((m) => m.symbol === 'BTC/USDT')?.last ?? null;
    if (!last) await new Promise((r) => setTimeout(r, 250));
  }
  log(`last price ${last}; load: ${RATE} crossing orders a second`);
  let placed = 0;
  const load = (async () => {
    while (loading) {
      const started = Date.now();
      const price = (await call(stack.apiUrl, 'GET', 'currency/deal', undefined).catch(() => null))?.data?.[0]?.price ?? last;
      const who = placed % 2 === 0 ? maker : taker;
      const side = placed % 4 < 2 ? 'sell' : 'buy';
      await call(stack.apiUrl, 'POST', 'coin/trade', { symbol: 'BTC/USDT', side, type: 'limit', price, quantity: '0.001' }, who.token).catch(() => null);
      placed++;
      await new Promise((r) => setTimeout(r, Math.max(0, 1000 / RATE - (Date.now() - started))));
    }
  })();

  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 1 });
  const page = await context.newPage();
  await page.goto(`${stack.apiUrl}/`);
  await page.evaluate((token) => localStorage.setItem('token', token), viewer.token);
  if (PAGE === 'market') {
    await page.goto(`${stack.apiUrl}/?bench=1#/pages/market/index`);
    await page.locator('[data-testid="markets-list"] li').first().waitFor({ timeout: 30_000 });
  } else {
    await page.goto(`${stack.apiUrl}/?bench=1#/pages/trade/index?symbol=BTC%2FUSDT`);
    await page.getByTestId('order-book').waitFor({ timeout: 30_000 });
  }
  await page.waitForTimeout(3000);
  log(`measuring for ${SECONDS} s`);
  const result = await page.evaluate(
    (seconds) =>
      new Promise((done) => {
        const longTasks = [];
        const obs = new PerformanceObserver((list) => list.getEntries().forEach((e) => longTasks.push(e.duration)));
        obs.observe({ type: 'longtask', buffered: false });
        let frames = 0;
        const start = performance.now();
        const frame = (now) => {
          frames++;
          if (now - start < seconds * 1000) requestAnimationFrame(frame);
          else {
            obs.disconnect();
            done({ frames, ms: now - start, longTasks });
          }
        };
        requestAnimationFrame(frame);
      }),
    SECONDS,
  );
  const tradesSeen = await page.locator(PAGE === 'market' ? '[data-testid="markets-list"] li' : '[data-testid="latest-trades"] tbody tr').count();
  loading = false;
  await load;
  const fps = (result.frames * 1000) / result.ms;
  const perMinute = (result.longTasks.length * 60000) / result.ms;
  log(
    `orders placed by the load script: ${placed}; ${PAGE === 'market' ? 'markets' : 'trades'} on screen: ${tradesSeen}; long tasks: ${result.longTasks.map((d) => d.toFixed(0)).join(', ') || 'none'}`,
  );
  console.log(`ui: ${fps.toFixed(1)} fps, ${perMinute.toFixed(1)} long tasks/min`);
} finally {
  loading = false;
  await browser?.close();
  await stack.stop();
}
