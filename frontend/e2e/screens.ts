import AxeBuilder from '@axe-core/playwright';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContextOptions, type Page } from 'playwright-core';

/** Where the browser tests leave their screenshots (frontend/test-artifacts). */
export const ARTIFACTS = join(__dirname, '..', 'test-artifacts');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** Headless Chromium as every browser test runs it (the Debian package; `CHROMIUM_PATH` overrides). */
export function launchBrowser(): Promise<Browser> {
  mkdirSync(ARTIFACTS, { recursive: true });
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
}

/**
 * A phone-sized page (390×844, light scheme) on the app at `base`, signed in as `session` (the
 * token and user the app keeps in localStorage) with `settings` stored beside them (theme light
 * unless given). The page has the tests' 20 s default timeout.
 */
export async function phonePage(
  browser: Browser,
  base: string,
  session: { token: string; user: unknown },
  settings: Record<string, string> = {},
  context: BrowserContextOptions = {},
): Promise<Page> {
  const page = await (await browser.newContext({ viewport: { width: 390, height: 844 }, colorScheme: 'light', ...context })).newPage();
  page.setDefaultTimeout(20_000);
  await page.goto(`${base}/`);
  await page.evaluate(
    ([t, u, s]) => {
      localStorage.setItem('token', t as string);
      localStorage.setItem('user', JSON.stringify(u));
      for (const [k, v] of Object.entries({ theme: 'light', ...(s as Record<string, string>) })) localStorage.setItem(k, v);
    },
    [session.token, session.user, settings] as const,
  );
  return page;
}

/** Full navigation (a new document), so the stored session, language and theme are read at launch. */
export async function go(page: Page, base: string, path: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const url = `${base}/?n=${Date.now()}-${attempt}#${path}`;
    try {
      await page.goto(url);
      break;
    } catch (err) {
      // A navigation the page being left still makes (a late history step, say) interrupts this
      // one. Let that navigation finish, then go again with a fresh URL (so the retry cannot be
      // mistaken for the interrupted attempt), up to three times.
      if (attempt === 3 || !/interrupted by another navigation/.test(String(err))) throw err;
      console.warn(`go(${path}), attempt ${attempt}: ${String(err).split('\n')[0]}`);
      await page.waitForLoadState('load').catch(() => undefined);
    }
  }
  await page.locator('.nav-bar__title').first().waitFor();
}

export interface ShotOptions {
  /** A selector that shows the screen has its live data. */
  ready?: string;
  /** Brings the screen to the state to shoot (opens a sheet, scrolls…). */
  then?: (page: Page) => Promise<void>;
  /** Time for transitions and late paints before the shot (ms). */
  settleMs?: number;
}

/**
 * The screen at `path` in the light and the dark theme: a screenshot of each
 * (`test-artifacts/<file>-<theme>.png`), axe's serious or critical findings, a navigation bar whose
 * parts overlap and a page wider than the phone (none expected).
 * Leaves the light theme stored.
 */
export async function shootThemes(page: Page, base: string, file: string, path: string, opts: ShotOptions = {}): Promise<string[]> {
  const findings: string[] = [];
  for (const theme of ['light', 'dark'] as const) {
    await page.evaluate((t) => localStorage.setItem('theme', t), theme);
    await go(page, base, path);
    if (opts.ready) await page.locator(opts.ready).first().waitFor();
    if (opts.then) await opts.then(page);
    await page.waitForTimeout(opts.settleMs ?? 300);
    await page.screenshot({ path: join(ARTIFACTS, `${file}-${theme}.png`) });
    const bar = await navBarOverlap(page);
    if (bar) findings.push(`${file} ${theme} nav-bar: ${bar}`);
    const wide = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    if (wide > 0) findings.push(`${file} ${theme}: the page scrolls sideways by ${wide} px`);
    const axe = await new AxeBuilder({ page }).disableRules(['region']).analyze();
    findings.push(
      ...axe.violations
        .filter((v) => v.impact === 'critical' || v.impact === 'serious')
        .map((v) => `${file} ${theme} ${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
    );
  }
  await page.evaluate(() => localStorage.setItem('theme', 'light'));
  return findings;
}

/**
 * What in the navigation bar runs outside its place, if anything: a side's action wider than its
 * side (it then runs under the title; a long text link once did), or a title overlapping a side.
 */
export function navBarOverlap(page: Page): Promise<string | undefined> {
  return page.evaluate(() => {
    const bar = document.querySelector('.nav-bar');
    const title = bar?.querySelector('.nav-bar__title')?.getBoundingClientRect();
    if (!bar || !title) return undefined;
    for (const side of Array.from(bar.querySelectorAll('.nav-bar__side'))) {
      const box = side.getBoundingClientRect();
      if (box.left < title.right - 0.5 && title.left < box.right - 0.5) return 'the title overlaps a side';
      for (const child of Array.from(side.children)) {
        const r = child.getBoundingClientRect();
        if (r.left < box.left - 0.5 || r.right > box.right + 0.5) return `"${child.textContent ?? ''}" is wider than its side`;
      }
    }
    return undefined;
  });
}
