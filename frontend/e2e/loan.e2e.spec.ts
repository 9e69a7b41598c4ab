import { type Browser, type Page } from 'playwright-core';
import { join } from 'node:path';
import { ARTIFACTS, go as goTo, launchBrowser, navBarOverlap, shootThemes, phonePage } from './screens';
import { ADMIN, apiOf, png, startStack, uploadImage, type Stack, registerByEmail } from './stack';

/**
 * Loans on the real stack: a verified user applies on the loan screen (1,000 USDT for 7 days at
 * 0.1 % a day: the preview shows 7 interest and 1,007 to repay) with the three ID photos; the
 * operator approves through the API; the trade account shows the 1,000 (802); the user repays 500
 * from the balance and the rest (507) by a transfer image the operator approves: the loan is
 * repaid. Every loan screen in both themes at 390×844, with axe, and the filter in Chinese.
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

/** Registered, basic verification approved by the operator (through the API). */
async function borrower() {
  const email = `loan.${tag}@kestrel.test`;
  const s = await registerByEmail(stack.url, email);
  const [f, b, h] = [await uploadImage(stack.url, s.token, 30), await uploadImage(stack.url, s.token, 60), await uploadImage(stack.url, s.token, 120)];
  await api(
    'POST',
    'user/real_name',
    { country: 'Portugal', name: 'Lena Borrower', id_number: 'LB123456', address: 'Rua do Ouro 10', front_image: f, back_image: b, hand_image: h },
    s.token,
  );
  for (const r of (await api<{ items: Array<{ id: string }> }>('GET', 'admin/real_name', { status: 'review', limit: 100 }, adminToken)).items)
    await api('POST', `admin/real_name/${r.id}/approve`, { reason: 'checked' }, adminToken);
  return { token: s.token, user: await api<unknown>('GET', 'user/center', {}, s.token) };
}

const go = (p: Page, path: string) => goTo(p, stack.url, path);

const shoot = (p: Page, name: string, path: string, ready: string) => shootThemes(p, stack.url, `loan-${name}`, path, { ready });

const loans = async () => (await api<{ items: Array<{ id: string; status: string; remaining: string }> }>('GET', 'borrow/order/list', {}, user.token)).items;

beforeAll(async () => {
  stack = await startStack({ simulator: false });
  api = apiOf(stack.url);
  browser = await launchBrowser();
  adminToken = (await api<{ token: string }>('POST', 'admin/login', ADMIN)).token;
  await api('POST', 'admin/loan/pool/fund', { currency_id: USDT, amount: '100000', reason: 'e2e lending pool' }, adminToken);
  await api('POST', 'admin/chains/1', { deposit_address: 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7', reason: 'e2e' }, adminToken); // USDT TRC20
  user = await borrower();
  page = await phonePage(browser, stack.url, user, { lang: 'en' });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

describe('loans on the real stack', () => {
  it('applies with three photos, the operator approves through the API, the balance shows the loan, repays it', async () => {
    await go(page, '/pages/loan/index');
    await page.getByTestId('loan-terms').waitFor();
    expect(await page.getByTestId('loan-terms').textContent()).toContain('Kestrel Lending Pool');
    // The prompts before anything is sent.
    await page.getByTestId('loan-apply').click();
    expect(await page.getByTestId('loan-error').textContent()).toContain('Enter the expected amount');
    await page.getByLabel('Expected amount').fill('50');
    await page.getByTestId('loan-apply').click();
    expect(await page.getByTestId('loan-error').textContent()).toMatch(/between 100(\.0+)? and 50,000(\.0+)? USDT/);
    await page.getByLabel('Expected amount').fill('1000');
    await page.getByTestId('loan-cycle-7').click();
    await page.waitForFunction(() => /^7(\.0+)? USDT$/.test(document.querySelector('[data-testid="loan-preview-interest"]')?.textContent ?? ''));
    expect(await page.getByTestId('loan-preview-repay').textContent()).toMatch(/^1,007(\.0+)? USDT$/);
    await page.getByTestId('loan-apply').click();
    expect(await page.getByTestId('loan-error').textContent()).toContain('Upload the ID front, ID back and passport photos');
    for (const [label, shade] of [
      ['ID card (front)', 40],
      ['ID card (back)', 80],
      ['Passport', 160],
    ] as const)
      await page.getByLabel(label, { exact: true }).setInputFiles({ name: 'id.png', mimeType: 'image/png', buffer: png(shade) });
    await page.waitForFunction(() => document.querySelectorAll('.image-upload__done').length === 3);
    await page.getByTestId('loan-apply').click();
    await page.waitForURL(/loan\/order\?status=approving$/);
    const card = page.getByTestId('loan-order').first();
    await card.waitFor();
    expect(await card.getByTestId('loan-status').getAttribute('data-status')).toBe('approving');

    // The operator: the application with its photos, then the approval.
    const [mine] = await loans();
    const view = await api<{ images: Record<string, string>; status: string }>('GET', `admin/loan/orders/${mine.id}`, {}, adminToken);
    expect(Object.keys(view.images)).toEqual(['front', 'back', 'passport']);
    await api('POST', `admin/loan/orders/${mine.id}/approve`, { reason: 'documents match' }, adminToken);

    // The trade account shows the loan (802).
    await go(page, `/pages/assets/tradeAccount?account=coin&currency_id=${USDT}`);
    await page.waitForFunction(() => /^1,?000/.test(document.querySelector('[data-testid="detail-available"]')?.textContent ?? ''));
    expect(await page.locator('main').textContent()).toContain('Loan received (802)');

    // Repay 500 from the balance.
    await go(page, '/pages/loan/order?status=approved');
    await page.locator('[data-testid="loan-order"][data-status="approved"]').getByTestId('loan-repay-link').click();
    await page.waitForURL(/loan\/back\?id=\d+$/);
    await page.waitForFunction(() => /^1,007/.test(document.querySelector('[data-testid="loan-back-remaining"]')?.textContent ?? ''));
    await page.getByLabel('Repayment amount').fill('2000');
    await page.getByTestId('loan-back-submit').click();
    expect(await page.getByTestId('loan-back-error').textContent()).toMatch(/cannot exceed the remaining amount \(1,007/);
    await page.getByLabel('Repayment amount').fill('500');
    await page.getByTestId('loan-back-submit').click();
    await page.waitForFunction(() => /^507/.test(document.querySelector('[data-testid="loan-back-remaining"]')?.textContent ?? ''));
    expect((await loans())[0]).toMatchObject({ status: 'repaying', remaining: '507' });

    // The rest by a transfer with its image, approved by the operator.
    await page.getByRole('radio', { name: 'Transfer' }).click();
    expect(await page.locator('.loan-address').first().textContent()).toContain('TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7');
    await page.getByLabel('Repayment amount').fill('507');
    await page.getByTestId('loan-back-submit').click();
    expect(await page.getByTestId('loan-back-error').textContent()).toBe('Upload the transfer image');
    await page.getByLabel('Transfer image', { exact: true }).setInputFiles({ name: 'proof.png', mimeType: 'image/png', buffer: png(210) });
    await page.waitForFunction(() => document.querySelectorAll('.image-upload__done').length === 1);
    await page.getByTestId('loan-back-submit').click();
    await page.getByText('In review').first().waitFor();
    const proofs = await api<{ items: Array<{ id: string }> }>('GET', 'admin/loan/repayments', { status: 'review', order_id: mine.id }, adminToken);
    await api('POST', `admin/loan/repayments/${proofs.items[0].id}/approve`, { reason: 'received' }, adminToken);
    expect((await loans())[0]).toMatchObject({ status: 'repaid', remaining: '0' });
    await go(page, '/pages/loan/order?status=repaid');
    await page.locator('[data-testid="loan-order"][data-status="repaid"]').waitFor();
    await go(page, `/pages/loan/back_rec?id=${mine.id}`);
    await page.getByTestId('loan-record').nth(1).waitFor();
    expect(await page.getByTestId('loan-record').evaluateAll((els) => els.map((e) => e.getAttribute('data-status')))).toEqual(['approved', 'done']);
  });

  it('every loan screen in both themes at 390×844 (axe: no serious finding), and in Chinese', async () => {
    // A second loan, approved and owed, for the repay screen.
    const photos = {
      front_image: await uploadImage(stack.url, user.token, 10),
      back_image: await uploadImage(stack.url, user.token, 20),
      passport_image: await uploadImage(stack.url, user.token, 90),
    };
    const products = await api<{ items: Array<{ id: number }> }>('GET', 'borrow/list');
    const o = await api<{ id: string }>('POST', 'borrow/order/apply', { product_id: products.items[0].id, amount: '200', days: 15, ...photos }, user.token);
    await api('POST', `admin/loan/orders/${o.id}/approve`, { reason: 'income documented' }, adminToken);
    const findings = [
      ...(await shoot(page, 'index', '/pages/loan/index', '[data-testid="loan-terms"]')),
      ...(await shoot(page, 'order', '/pages/loan/order', '[data-testid="loan-order"]')),
      ...(await shoot(page, 'back', `/pages/loan/back?id=${o.id}`, '[data-testid="loan-back-submit"]')),
      ...(await shoot(page, 'back-rec', '/pages/loan/back_rec', '[data-testid="loan-record"]')),
    ];
    expect(findings).toEqual([]);
    await page.evaluate(() => localStorage.setItem('lang', 'zh'));
    await go(page, '/pages/loan/order');
    await page.getByTestId('loan-filter-rejected').waitFor();
    expect(await page.getByTestId('loan-filter-rejected').textContent()).toBe('审核失败');
    // The longest labels beside the bar's title (Portuguese): the action stays in its side, the title beside it.
    await page.evaluate(() => localStorage.setItem('lang', 'py'));
    for (const [name, path, ready] of [
      ['index', '/pages/loan/index', 'loan-terms'],
      ['order', '/pages/loan/order', 'loan-order'],
      ['back', `/pages/loan/back?id=${o.id}`, 'loan-back-submit'],
    ]) {
      await go(page, path);
      await page.getByTestId(ready).first().waitFor();
      await page.screenshot({ path: join(ARTIFACTS, `loan-${name}-py-light.png`) });
      expect(await navBarOverlap(page)).toBeUndefined();
    }
    await page.evaluate(() => localStorage.setItem('lang', 'en'));
  });
});
