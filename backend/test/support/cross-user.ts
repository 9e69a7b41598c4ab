import { EngineHost } from '../../src/modules/engine/engine-host.service';
import { TrialBalanceService } from '../../src/modules/ledger/trial-balance.service';
import { adminToken, lastCode, registerByEmail, setFundPassword, verifyBasic } from './accounts';
import { deposit } from './funding';
import { makePng, uniquePng } from './images';
import { Route } from './routes';
import { ADMIN, TestApp } from './test-app';

/**
 * Cross-user cases of the authorization matrix (issue: reliability and security suite, item 3):
 * user A creates a resource through the API, user B names it by its id, and the answer must be a
 * refusal while A's row, every balance of A and B and the trial balance stay as they were.
 *
 * Every user route whose request carries an id-like field (a path parameter, or a body/query field
 * named `id`, `*_id`, `image` or `*_image`, the last two naming uploads) needs a decision: a case
 * in CROSS_USER_CASES or a reason in NO_RESOURCE. A new route without one fails the test.
 */

const USDT = 3;
const BTC = 1;
const TRON = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const TRON2 = 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7';
const FUND_PASSWORD = '135790';

export const ID_FIELD = /^(:.+|id|.+_id|image|.+_image|\*)$/; // '*': the handler reads fields no DTO lists

/** The id-like request fields of a route (what needs a cross-user decision). */
export const idFields = (r: Route): string[] => (r.fields ?? []).filter((f) => ID_FIELD.test(f));

const REFERENCE = 'operator-configured reference data (currencies, chains, products, projects, periods, collections), the same for every user';
const CLIENT_KEY = "the caller's own idempotency key: unique per (user, client id), checked against the schema below";

/** Id-like fields that name no user's resource, with the reason. Keyed by route, then field. */
export const NO_RESOURCE: Record<string, Record<string, string>> = {
  'POST /api/wallet/detail': { currency_id: REFERENCE },
  'GET /api/wallet/log': { currency_id: REFERENCE },
  'POST /api/wallet/curChange': { currency_id: REFERENCE },
  'POST /api/wallet/change': { currency_id: REFERENCE, client_id: CLIENT_KEY },
  'POST /api/wallet/get_in_address': { currency_id: REFERENCE },
  'POST /api/wallet/charge_req': { currency_id: REFERENCE, client_id: CLIENT_KEY },
  'POST /api/wallet/get_info': { currency_id: REFERENCE },
  'POST /api/wallet/out': { client_id: CLIENT_KEY },
  'POST /api/wallet/get_address': { currency_id: REFERENCE },
  'POST /api/wallet/addaddress': { currency_id: REFERENCE },
  'POST /api/fpjy/quote': { from_currency_id: REFERENCE, to_currency_id: REFERENCE },
  'POST /api/microtrade/submit': { period_id: REFERENCE, client_id: CLIENT_KEY },
  'GET /api/lh/newcoin/order/info': { project_id: REFERENCE + " (the answer lists the caller's own subscriptions to it)" },
  'POST /api/lh/newcoin/order/submit': { project_id: REFERENCE, client_id: CLIENT_KEY },
  'POST /api/nft/buy': { client_id: CLIENT_KEY },
  'POST /api/lever/submit': { client_id: CLIENT_KEY },
  'POST /api/lh/deposit': { product_id: REFERENCE, client_id: CLIENT_KEY },
  'POST /api/borrow/order/apply': { product_id: REFERENCE, client_id: CLIENT_KEY },
  'POST /api/borrow/order/back': { client_id: CLIENT_KEY },
  'POST /api/borrow/back/apply': { client_id: CLIENT_KEY },
  'POST /api/coin/trade': { client_order_id: CLIENT_KEY },
  'POST /api/help/feedback': { client_id: CLIENT_KEY },
  'POST /api/help/chat/send': { client_id: CLIENT_KEY },
  // Handlers that read the raw request ('*'): what they read, and why it names no one's resource.
  'GET /api/user/invite': { '*': "the Origin/Host headers, to build the caller's own invite link" },
  'GET /api/user/my_poster': { '*': "the Origin/Host headers, to build the caller's own invite link" },
  'GET /api/user/my_share': { '*': "the Origin/Host headers, to build the caller's own invite link" },
  'POST /api/upload/image': { '*': 'the multipart file: it creates a new upload of the caller' },
};

export interface Actor {
  email: string;
  password: string;
  token: string;
  user: { id: number };
}

/** The users and tools the cases share. */
export interface World {
  t: TestApp;
  admin: string;
  /** A: owns the resources. */
  a: Actor;
  /** B: verified, fund password, USDT in every account, an approved loan and a chat of its own: able to do what it asks, so a refusal is about the id. */
  b: Actor;
  /** C: verified, funded, no loan and no advanced verification (loan applications and the advanced form). */
  c: Actor;
  /** D: registered only (the basic identity form). */
  d: Actor;
  bLoan: string;
  nftCollection: number;
  /** A's address-book entry (made once: a code per recipient and purpose has a cooldown). */
  aAddress?: Promise<number>;
  /** A's approved loan with a repayment proof (made once, on first use). */
  aLoan?: Promise<string>;
  post: (who: Actor | string, path: string, body?: Record<string, unknown>) => Promise<Envelope>;
  get: (who: Actor | string, path: string, query?: Record<string, unknown>) => Promise<Envelope>;
  upload: (who: Actor) => Promise<string>;
  tick: (price: string) => Promise<void>;
}

export interface Envelope {
  code?: number;
  type?: string;
  message?: string;
  data?: unknown;
}

/** What A's setup hands to the case: the id B will send and how to read A's resource. */
export interface Target {
  value: string | number;
  /** A's resource as stored (compared before and after B's request). */
  row: () => Promise<unknown>;
}

export interface CrossCase {
  route: string;
  field: string;
  /** What "refused" means for this route. */
  refused: 'error' | 'error-or-empty' | 'own-scope';
  label?: string;
  setup: (w: World) => Promise<Target>;
  call: (w: World, value: string | number) => Promise<Envelope>;
  /** For 'own-scope': the answer must concern the caller only (checked on the answer). */
  ownScope?: (w: World, answer: Envelope, value: string | number) => Promise<boolean>;
}

const row = (w: World, table: string, id: string | number) => async () => w.t.ds.query(`SELECT * FROM ${table} WHERE id = $1`, [id]);
const rowsWhere = (w: World, sql: string, params: unknown[]) => async () => w.t.ds.query(sql, params);

export async function buildWorld(t: TestApp): Promise<World> {
  const admin = await adminToken(t, ADMIN.email, ADMIN.password);
  const send = (method: 'post' | 'get', who: Actor | string, path: string, body: Record<string, unknown> = {}) => {
    const token = typeof who === 'string' ? who : who.token;
    const req = t.http()[method](`/api/${path}`).set('Authorization', token).set('lang', 'en');
    return method === 'get' ? req.query(body) : req.type('form').send(body);
  };
  const post = async (who: Actor | string, path: string, body: Record<string, unknown> = {}) => (await send('post', who, path, body)).body as Envelope;
  const get = async (who: Actor | string, path: string, query: Record<string, unknown> = {}) => (await send('get', who, path, query)).body as Envelope;
  const upload = async (who: Actor) =>
    (await t.http().post('/api/upload/image').set('Authorization', who.token).attach('file', uniquePng(), { filename: 'id.png', contentType: 'image/png' })).body.data
      .id as string;
  let clock = Date.now() - 3000;
  const tick = async (price: string) => {
    clock = Math.max(clock + 1, Date.now());
    await t.ds.query('INSERT INTO mark_prices (market_id, price, ts) VALUES ($1, $2, $3)', [BTC, price, new Date(clock)]);
  };
  const ok = (what: string, e: Envelope) => {
    if (e.code !== 1) throw new Error(`${what}: ${JSON.stringify(e)}`);
    return e.data;
  };

  // The venue: a TRC20 deposit address, a lending pool, a mark price.
  const coins = (await get(admin, 'admin/coins')).data as Array<{ currency_id: number; chains: Array<{ id: number; chain: string }> }>;
  const trc = coins.find((c) => c.currency_id === USDT)!.chains.find((c) => c.chain === 'TRC20')!;
  ok('chain', await post(admin, `admin/chains/${trc.id}`, { deposit_address: TRON2, reason: 'hot wallet' }));
  ok('pool', await post(admin, 'admin/loan/pool/fund', { currency_id: USDT, amount: '100000', reason: 'lending pool' }));
  await tick('60000');

  const able = async (verified: boolean) => {
    const u = await registerByEmail(t);
    if (!verified) return u;
    await setFundPassword(t, u, FUND_PASSWORD);
    await verifyBasic(t, u, admin);
    await deposit(t, u.user.id, USDT, '100000');
    for (const to of ['lever', 'trust']) ok('transfer', await post(u, 'wallet/change', { from: 'coin', to, currency_id: USDT, amount: '5000' }));
    return u;
  };
  const [a, b, c, d] = await Promise.all([able(true), able(true), able(true), able(false)]);
  const collection = await post(admin, 'admin/nft/collections', { name: 'Authz Falcons', description: 'authz', fee_rate: '0.025', reason: 'authz collection' });
  const w: World = { t, admin, a, b, c, d, bLoan: '', nftCollection: (ok('collection', collection) as { id: number }).id, post, get, upload, tick };
  // B's own loan and chat conversation: B's requests fail on the id, not on having none.
  w.bLoan = (await approvedLoan(w, b)).id;
  ok('b chat', await post(b, 'help/chat/send', { text: 'hello from B' }));
  // One BTC/USDT trade at 60,000 gives BTC its price (flash exchange quotes).
  await deposit(t, c.user.id, BTC, '1');
  const trade = (u: Actor, side: string) => post(u, 'coin/trade', { symbol: 'BTC/USDT', side, type: 'limit', price: '60000', quantity: '0.01' });
  ok('sell', await trade(c, 'sell'));
  ok('buy', await trade(b, 'buy'));
  return w;
}

async function approvedLoan(w: World, u: Actor): Promise<{ id: string }> {
  const product = ((await w.get(u, 'borrow/list')).data as { items: Array<{ id: number }> }).items[0];
  const photos = { front_image: await w.upload(u), back_image: await w.upload(u), passport_image: await w.upload(u) };
  const applied = await w.post(u, 'borrow/order/apply', { product_id: product.id, amount: '1000', days: 7, ...photos });
  const id = (applied.data as { id: string }).id;
  const approved = await w.post(w.admin, `admin/loan/orders/${id}/approve`, { reason: 'documents match' });
  if (approved.code !== 1) throw new Error(`loan approve: ${JSON.stringify(approved)}`);
  return { id };
}

async function address(w: World, u: Actor): Promise<number> {
  await w.post(u, 'sms_mail', { purpose: 'address' });
  const r = await w.post(u, 'wallet/addaddress', { currency_id: USDT, chain: 'TRC20', address: TRON, password: FUND_PASSWORD, code: await lastCode(w.t.ds, u.email) });
  if (r.code !== 1) throw new Error(`addaddress: ${JSON.stringify(r)}`);
  return (r.data as { id: number }).id;
}

async function leverPosition(w: World, limit: boolean): Promise<Target> {
  await w.tick('60000');
  const body = limit ? { type: 'limit', price: '59000' } : { type: 'market' };
  const r = await w.post(w.a, 'lever/submit', { symbol: 'BTC/USDT', side: 'long', lots: '1', multiple: 10, take_profit: '66000', stop_loss: '55000', ...body });
  if (r.code !== 1) throw new Error(`lever/submit: ${JSON.stringify(r)}`);
  const id = (r.data as { id: string }).id;
  return { value: id, row: row(w, 'lever_positions', id) };
}

let nftCount = 0;
/** An NFT owned by A (bought from the house), optionally listed by A for resale. */
async function nftOfA(w: World, listed: boolean): Promise<Target> {
  const admin = w.admin;
  const image = (await w.t.http().post('/api/admin/nft/images').set('Authorization', admin).attach('file', makePng(24, 24), { filename: 'art.png', contentType: 'image/png' }))
    .body.data.id as string;
  const minted = await w.post(admin, `admin/nft/collections/${w.nftCollection}/items`, { name: `Falcon ${(nftCount += 1)}`, image_id: image, price: '10', reason: 'drop' });
  const id = (minted.data as { id: number }).id;
  const bought = await w.post(w.a, 'nft/buy', { item_id: id, client_id: `nft-of-a-${id}` });
  if (bought.code !== 1) throw new Error(`nft/buy: ${JSON.stringify(bought)}`);
  if (listed && (await w.post(w.a, 'nft/sell', { item_id: id, price: '50' })).code !== 1) throw new Error('nft/sell');
  return { value: id, row: row(w, 'nft_items', id) };
}

async function wealthOrderOfA(w: World): Promise<Target> {
  const products = (await w.get(w.a, 'lh/deposit/config', { type: 1 })).data as Array<{ id: number; code: string }>;
  const p = products.find((x) => x.code === 'hosting-7d') ?? products[0];
  const r = await w.post(w.a, 'lh/deposit', { product_id: p.id, amount: '100', agree: '1' });
  if (r.code !== 1) throw new Error(`lh/deposit: ${JSON.stringify(r)}`);
  const id = (r.data as { order_id: string }).order_id;
  return { value: id, row: row(w, 'wealth_orders', id) };
}

/** A's approved loan with one repayment proof under review (so reads have something to leak). */
async function aLoan(w: World): Promise<Target> {
  w.aLoan ??= (async () => {
    const { id } = await approvedLoan(w, w.a);
    const proof = await w.post(w.a, 'borrow/back/apply', { order_id: id, image_id: await w.upload(w.a), amount: '10' });
    if (proof.code !== 1) throw new Error(`back/apply: ${JSON.stringify(proof)}`);
    return id;
  })();
  const id = await w.aLoan;
  return {
    value: id,
    row: async () => ({
      order: await w.t.ds.query('SELECT * FROM loan_orders WHERE id = $1', [id]),
      repayments: await w.t.ds.query('SELECT * FROM loan_repayments WHERE order_id = $1 ORDER BY id', [id]),
    }),
  };
}

/** An upload of A's, with what B might have made of it (rows in `table` of B's referencing it). */
const uploadOfA =
  (extra?: (w: World) => Promise<unknown>) =>
  async (w: World): Promise<Target> => {
    const id = await w.upload(w.a);
    return { value: id, row: async () => ({ upload: await w.t.ds.query('SELECT * FROM uploads WHERE id = $1', [id]), extra: await extra?.(w) }) };
  };
const countOf = (table: string, owner = 'user_id') => (w: World) => w.t.ds.query(`SELECT COUNT(*)::int AS n FROM ${table} WHERE ${owner} = ANY($1)`, [[w.b.user.id, w.c.user.id, w.d.user.id]]);

const basicForm = async (w: World, u: Actor) => ({
  country: 'Portugal',
  name: 'Ana Lima',
  id_number: `AZ${100000 + u.user.id}`,
  address: 'Rua Augusta 1, Lisboa',
  front_image: await w.upload(u),
  back_image: await w.upload(u),
  hand_image: await w.upload(u),
});
const advancedForm = async (w: World, u: Actor) => ({
  id_type: 'id_card',
  id_number: `AY${100000 + u.user.id}`,
  front_image: await w.upload(u),
  back_image: await w.upload(u),
  hand_image: await w.upload(u),
});

export const CROSS_USER_CASES: CrossCase[] = [
  // Spot orders: B cancels A's resting order.
  {
    route: 'PUT /api/coin/trade',
    field: 'order_id',
    refused: 'error',
    setup: async (w) => {
      const r = await w.post(w.a, 'coin/trade', { symbol: 'BTC/USDT', side: 'buy', type: 'limit', price: '100', quantity: '0.01' });
      if (r.code !== 1) throw new Error(`coin/trade: ${JSON.stringify(r)}`);
      const id = (r.data as { order_id: string }).order_id;
      return { value: id, row: row(w, 'orders', id) };
    },
    call: async (w, v) => (await w.t.http().put('/api/coin/trade').set('Authorization', w.b.token).type('form').send({ order_id: v })).body,
  },
  // Contract positions: close, TP/SL edit, cancel of a pending limit.
  { route: 'POST /api/lever/close', field: 'id', refused: 'error', setup: (w) => leverPosition(w, false), call: (w, v) => w.post(w.b, 'lever/close', { id: v }) },
  {
    route: 'POST /api/lever/tpsl',
    field: 'id',
    refused: 'error',
    setup: (w) => leverPosition(w, false),
    call: (w, v) => w.post(w.b, 'lever/tpsl', { id: v, take_profit: '70000', stop_loss: '50000' }),
  },
  { route: 'POST /api/lever/cancel', field: 'id', refused: 'error', setup: (w) => leverPosition(w, true), call: (w, v) => w.post(w.b, 'lever/cancel', { id: v }) },
  // Address book and withdrawals.
  {
    route: 'POST /api/wallet/deladdress',
    field: 'id',
    refused: 'error',
    setup: async (w) => {
      const id = await (w.aAddress ??= address(w, w.a));
      return { value: id, row: row(w, 'withdraw_addresses', id) };
    },
    call: (w, v) => w.post(w.b, 'wallet/deladdress', { id: v }),
  },
  {
    route: 'POST /api/wallet/out',
    field: 'address_id',
    refused: 'error',
    setup: async (w) => {
      const id = await (w.aAddress ??= address(w, w.a));
      return { value: id, row: async () => ({ address: await row(w, 'withdraw_addresses', id)(), withdrawals: await countOf('withdrawals')(w) }) };
    },
    call: (w, v) => w.post(w.b, 'wallet/out', { address_id: v, amount: '50', password: FUND_PASSWORD }),
  },
  // A's withdrawal and deposit records, asked for by id: B's list has none of them.
  {
    route: 'GET /api/charge_mention/log3',
    field: 'id',
    refused: 'error-or-empty',
    setup: async (w) => {
      const address_id = await (w.aAddress ??= address(w, w.a));
      const r = await w.post(w.a, 'wallet/out', { address_id, amount: '20', password: FUND_PASSWORD });
      if (r.code !== 1) throw new Error(`wallet/out: ${JSON.stringify(r)}`);
      const id = (r.data as { withdrawal_id: number }).withdrawal_id;
      return { value: id, row: row(w, 'withdrawals', id) };
    },
    call: (w, v) => w.get(w.b, 'charge_mention/log3', { id: v }),
  },
  {
    route: 'GET /api/charge_mention/log2',
    field: 'id',
    refused: 'error-or-empty',
    setup: async (w) => {
      const r = await w.post(w.a, 'wallet/charge_req', { currency_id: USDT, chain: 'TRC20', amount: '100', image_id: await w.upload(w.a) });
      if (r.code !== 1) throw new Error(`wallet/charge_req: ${JSON.stringify(r)}`);
      const id = (r.data as { deposit_id: number }).deposit_id;
      return { value: id, row: row(w, 'deposits', id) };
    },
    call: (w, v) => w.get(w.b, 'charge_mention/log2', { id: v }),
  },
  // Deposits: B's deposit request with A's proof image.
  {
    route: 'POST /api/wallet/charge_req',
    field: 'image_id',
    refused: 'error',
    setup: uploadOfA(countOf('deposits')),
    call: (w, v) => w.post(w.b, 'wallet/charge_req', { currency_id: USDT, chain: 'TRC20', amount: '100', image_id: v }),
  },
  // Flash exchange: B converts A's quote.
  {
    route: 'POST /api/fpjy/convert',
    field: 'quote_id',
    refused: 'error',
    setup: async (w) => {
      const r = await w.post(w.a, 'fpjy/quote', { from_currency_id: USDT, to_currency_id: BTC, amount: '100' });
      if (r.code !== 1) throw new Error(`fpjy/quote: ${JSON.stringify(r)}`);
      const id = (r.data as { quote_id: string }).quote_id;
      return { value: id, row: rowsWhere(w, 'SELECT type, payload FROM events WHERE stream_id = $1', [`flash:${id}`]) };
    },
    call: (w, v) => w.post(w.b, 'fpjy/convert', { quote_id: v }),
  },
  // NFT: B lists A's item, withdraws A's listing, buys A's item that is not for sale (buying a listed item is the market's purpose).
  { route: 'POST /api/nft/sell', field: 'item_id', label: 'list', refused: 'error', setup: (w) => nftOfA(w, false), call: (w, v) => w.post(w.b, 'nft/sell', { item_id: v, price: '1' }) },
  {
    route: 'POST /api/nft/sell',
    field: 'item_id',
    label: 'withdraw',
    refused: 'error',
    setup: (w) => nftOfA(w, true),
    call: (w, v) => w.post(w.b, 'nft/sell', { item_id: v, action: 'withdraw' }),
  },
  { route: 'POST /api/nft/buy', field: 'item_id', label: 'not for sale', refused: 'error', setup: (w) => nftOfA(w, false), call: (w, v) => w.post(w.b, 'nft/buy', { item_id: v, client_id: `b-buys-${String(v)}` }) },
  // Wealth: B redeems A's order, or previews the redemption.
  { route: 'POST /api/lh/deposit/cancel', field: 'order_id', refused: 'error', setup: wealthOrderOfA, call: (w, v) => w.post(w.b, 'lh/deposit/cancel', { order_id: v }) },
  {
    route: 'POST /api/lh/deposit/cancel',
    field: 'order_id',
    label: 'preview',
    refused: 'error',
    setup: wealthOrderOfA,
    call: (w, v) => w.post(w.b, 'lh/deposit/cancel', { order_id: v, preview: '1' }),
  },
  // Loans and repayments.
  { route: 'POST /api/borrow/order/back', field: 'order_id', refused: 'error', setup: aLoan, call: (w, v) => w.post(w.b, 'borrow/order/back', { order_id: v, amount: '10' }) },
  {
    route: 'POST /api/borrow/back/apply',
    field: 'order_id',
    refused: 'error',
    setup: aLoan,
    call: async (w, v) => w.post(w.b, 'borrow/back/apply', { order_id: v, image_id: await w.upload(w.b), amount: '10' }),
  },
  {
    route: 'POST /api/borrow/back/apply',
    field: 'image_id',
    refused: 'error',
    setup: uploadOfA(countOf('loan_repayments')),
    call: (w, v) => w.post(w.b, 'borrow/back/apply', { order_id: w.bLoan, image_id: v, amount: '10' }),
  },
  { route: 'GET /api/borrow/back/list', field: 'order_id', refused: 'error-or-empty', setup: aLoan, call: (w, v) => w.get(w.b, 'borrow/back/list', { order_id: v }) },
  { route: 'POST /api/borrow/back/detail', field: 'order_id', refused: 'error', setup: aLoan, call: (w, v) => w.post(w.b, 'borrow/back/detail', { order_id: v }) },
  { route: 'GET /api/borrow/repay_in_address', field: 'order_id', refused: 'error', setup: aLoan, call: (w, v) => w.get(w.b, 'borrow/repay_in_address', { order_id: v }) },
  ...(['front_image', 'back_image', 'passport_image'] as const).map(
    (field): CrossCase => ({
      route: 'POST /api/borrow/order/apply',
      field,
      refused: 'error',
      setup: uploadOfA(countOf('loan_orders')),
      call: async (w, v) => {
        const product = ((await w.get(w.c, 'borrow/list')).data as { items: Array<{ id: number }> }).items[0];
        const photos = { front_image: await w.upload(w.c), back_image: await w.upload(w.c), passport_image: await w.upload(w.c) };
        return w.post(w.c, 'borrow/order/apply', { product_id: product.id, amount: '1000', days: 7, ...photos, [field]: v });
      },
    }),
  ),
  // Identity forms with one of A's images.
  ...(['front_image', 'back_image', 'hand_image'] as const).flatMap((field): CrossCase[] => [
    {
      route: 'POST /api/user/real_name',
      field,
      refused: 'error',
      setup: uploadOfA(countOf('identity_verifications')),
      call: async (w, v) => w.post(w.d, 'user/real_name', { ...(await basicForm(w, w.d)), [field]: v }),
    },
    {
      route: 'POST /api/user/real_name2',
      field,
      refused: 'error',
      setup: uploadOfA(countOf('identity_verifications')),
      call: async (w, v) => w.post(w.c, 'user/real_name2', { ...(await advancedForm(w, w.c)), [field]: v }),
    },
  ]),
  // Help: feedback and chat with A's image; B marks A's chat message read.
  {
    route: 'POST /api/help/feedback',
    field: 'image',
    refused: 'error',
    setup: uploadOfA(countOf('help_feedback')),
    call: (w, v) => w.post(w.b, 'help/feedback', { category: 'trade', content: 'The chart does not load', image: v }),
  },
  {
    route: 'POST /api/help/chat/send',
    field: 'image',
    refused: 'error',
    setup: uploadOfA(async (w) => w.t.ds.query('SELECT COUNT(*)::int AS n FROM chat_messages WHERE sender = $1 AND sender_id = $2', ['user', w.b.user.id])),
    call: (w, v) => w.post(w.b, 'help/chat/send', { image: v }),
  },
  {
    route: 'POST /api/help/chat/read',
    field: 'message_id',
    // The route marks the caller's own conversation read up to at most its own last message: with A's
    // id it can only move B's pointer within B's conversation; A's conversation must not change.
    refused: 'own-scope',
    setup: async (w) => {
      await w.post(w.a, 'help/chat/send', { text: 'My deposit has not arrived' });
      const conv = ((await w.get(w.a, 'help/chat')).data as { conversation_id: string }).conversation_id;
      const reply = await w.post(w.admin, `admin/help/conversations/${conv}/reply`, { text: 'Please send the transaction hash' });
      if (reply.code !== 1) throw new Error(`reply: ${JSON.stringify(reply)}`);
      return { value: (reply.data as { id: string }).id, row: row(w, 'chat_conversations', conv) };
    },
    call: (w, v) => w.post(w.b, 'help/chat/read', { message_id: v }),
    ownScope: async (w, answer) => {
      const mine = ((await w.get(w.b, 'help/chat')).data as { conversation_id: string }).conversation_id;
      return answer.code !== 1 || (answer.data as { conversation_id: string }).conversation_id === mine;
    },
  },
  // Messages (notices): B marks A's message read.
  {
    route: 'POST /api/notice/read',
    field: 'id',
    refused: 'error',
    setup: async (w) => {
      const list = (await w.get(w.a, 'notice/list')).data as { items: Array<{ id: string; read: boolean }> };
      const id = list.items.find((m) => !m.read)!.id;
      return { value: id, row: row(w, 'user_messages', id) };
    },
    call: (w, v) => w.post(w.b, 'notice/read', { id: v }),
  },
  // Uploads: B reads A's image.
  {
    route: 'GET /api/upload/:id',
    field: ':id',
    refused: 'error',
    setup: uploadOfA(),
    call: async (w, v) => {
      const res = await w.t.http().get(`/api/upload/${v}`).set('Authorization', w.b.token);
      return res.type === 'application/json' ? (res.body as Envelope) : { code: 1, data: `${res.type}, ${res.body?.length ?? 0} bytes` };
    },
  },
];

/**
 * The refusal each case expects (its "not found" / "not the owner" code): a refusal with another
 * code means B was refused for something else (balance, state, input), so the case proved nothing.
 */
export const REFUSAL_CODE: Record<string, number> = {
  'PUT /api/coin/trade order_id': 2103,
  'POST /api/lever/close id': 2413,
  'POST /api/lever/tpsl id': 2413,
  'POST /api/lever/cancel id': 2413,
  'POST /api/wallet/deladdress id': 2216,
  'POST /api/wallet/out address_id': 2203, // "Set the withdrawal address first": no such address of B's
  'POST /api/wallet/charge_req image_id': 2301,
  'POST /api/fpjy/convert quote_id': 2213, // "The quote has expired": no such quote of B's
  'POST /api/nft/sell item_id': 2805,
  'POST /api/nft/buy item_id': 2802, // sold (to A) and not listed again
  'POST /api/lh/deposit/cancel order_id': 2505,
  'POST /api/borrow/order/back order_id': 2705,
  'POST /api/borrow/back/apply order_id': 2705,
  'POST /api/borrow/back/apply image_id': 2301,
  'POST /api/borrow/back/detail order_id': 2705,
  'GET /api/borrow/repay_in_address order_id': 2705,
  'POST /api/borrow/order/apply front_image': 2301,
  'POST /api/borrow/order/apply back_image': 2301,
  'POST /api/borrow/order/apply passport_image': 2301,
  'POST /api/user/real_name front_image': 2301,
  'POST /api/user/real_name back_image': 2301,
  'POST /api/user/real_name hand_image': 2301,
  'POST /api/user/real_name2 front_image': 2301,
  'POST /api/user/real_name2 back_image': 2301,
  'POST /api/user/real_name2 hand_image': 2301,
  'POST /api/help/feedback image': 2301,
  'POST /api/help/chat/send image': 2301,
  'POST /api/notice/read id': 2910,
  'GET /api/upload/:id :id': 2301,
};

/** Every balance of A and B (all accounts, as the API shows them) and the trial balance. */
export async function balances(w: World): Promise<unknown> {
  const host = w.t.app.get(EngineHost);
  for (const u of [w.a, w.b, w.c, w.d]) await host.settledFor(u.user.id);
  await host.idle();
  const rows = await w.t.ds.query(
    `SELECT owner_id, account_type, currency_id, available::text, frozen::text FROM balances
      WHERE owner_type = 'user' AND owner_id = ANY($1) ORDER BY owner_id, account_type, currency_id`,
    [[w.a.user.id, w.b.user.id, w.c.user.id, w.d.user.id]],
  );
  const tb = await w.t.app.get(TrialBalanceService).compute();
  return { rows, trial: tb };
}

/** Whether B's answer is a refusal in the case's sense. */
export function isRefusal(c: CrossCase, answer: Envelope): boolean {
  if (typeof answer?.code !== 'number' || answer.code === 401) return false; // 401 would mean B's own token failed, not a decision on the id
  if (answer.code !== 1) return true;
  if (c.refused !== 'error-or-empty') return c.refused === 'own-scope';
  const d = answer.data as { items?: unknown[]; total?: number } | unknown[] | null;
  return d == null || (Array.isArray(d) ? d.length === 0 : (d.items ?? []).length === 0 && !d.total);
}
