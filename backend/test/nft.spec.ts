import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { BusinessError } from '../src/infra/http/business-error';
import { ErrorCode } from '../src/infra/http/error-codes';
import { moneyString } from '../src/infra/money';
import { EngineHost } from '../src/modules/engine/engine-host.service';
import { coinLeg, Posting, systemLeg, TradeAccountCommands } from '../src/modules/engine/trade-account-commands';
import { LedgerCode } from '../src/modules/ledger/ledger-codes';
import { NftSale } from '../src/modules/nft/nft-sale.entity';
import { NftSaleService } from '../src/modules/nft/nft-sale.service';
import type { NftBuyDto } from '../src/modules/nft/nft.dto';
import { TrialBalanceService } from '../src/modules/ledger/trial-balance.service';
import { adminToken, registerByEmail } from './support/accounts';
import { coinBalance, deposit } from './support/funding';
import { makePng } from './support/images';
import { call, Envelope, freePort, ServerProcess, sleep, spawnServer, stopServer, waitUntilUp } from './support/server-process';
import { ADMIN, createDatabase, REDIS_URL, startTestApp, TestApp } from './support/test-app';

const USDT = 3;

type Row = Record<string, unknown>;

/** The postings of one sale: code, account and amount per leg (the ledger's own rows). */
const LEGS_SQL = `SELECT code, owner_type, owner_id, account_type, available_delta::text AS amount FROM ledger_entries
                   WHERE ref_type = 'nft-sale' AND ref_id = $1 ORDER BY code, owner_type, owner_id`;

/**
 * The NFT market end to end on real PostgreSQL + Redis: the operator's collections and minting
 * (house-owned items, primary prices), buying through the sequencer (700/701/702, one payment per
 * sale, 20 buyers at once → one owner), the owner's listing, privacy, bad input; the trial
 * balance is exact after each test.
 */
describe('NFT market (real PostgreSQL + Redis)', () => {
  let t: TestApp;
  let admin: string;
  let collectionId: number;
  let nextName = 0;

  beforeAll(async () => {
    t = await startTestApp({ optionWorker: false });
    admin = await adminToken(t, ADMIN.email, ADMIN.password);
    const c = await post(admin, 'admin/nft/collections', { name: 'Test Falcons', description: 'for tests', fee_rate: '0.025', reason: 'test collection' });
    expect(c.body).toMatchObject({ code: 1, data: { name: 'Test Falcons', fee_rate: '0.025', currency: 'USDT', items: 0 } });
    collectionId = c.body.data.id;
  });
  afterAll(() => t.close());
  // Balances held by the sequencer are compared at the projector's watermark.
  afterEach(async () => {
    await t.app.get(EngineHost).idle();
    const tb = await t.app.get(TrialBalanceService).compute();
    expect(tb.currencies.filter((c) => !c.balanced)).toEqual([]);
  });

  let clientIds = 0;
  const post = (token: string | null, path: string, body: Record<string, unknown> = {}) => {
    // nft/buy requires a client id: a fresh one per call, unless the case sends its own (a retry).
    if (path === 'nft/buy' && !('client_id' in body)) body = { ...body, client_id: `buy-${(clientIds += 1)}` };
    const r = t.http().post(`/api/${path}`).type('form');
    return token ? r.set('Authorization', token).send(body) : r.send(body);
  };
  const get = (token: string | null, path: string, query: Record<string, unknown> = {}) => {
    const r = t.http().get(`/api/${path}`).query(query);
    return token ? r.set('Authorization', token) : r;
  };
  const q = <T = Row>(sql: string, params: unknown[] = []): Promise<T[]> => t.ds.query(sql, params);

  async function image(): Promise<string> {
    const res = await t
      .http()
      .post('/api/admin/nft/images')
      .set('Authorization', admin)
      .attach('file', makePng(24, 24), { filename: 'art.png', contentType: 'image/png' });
    expect(res.body).toMatchObject({ code: 1 });
    return res.body.data.id;
  }

  async function mint(price: string | undefined = '100', over: Record<string, unknown> = {}) {
    nextName += 1;
    const body: Record<string, unknown> = {
      name: `Falcon ${nextName}`,
      image_id: await image(),
      attributes: JSON.stringify({ wing: 'gold', eyes: 2 }),
      reason: 'drop 1',
      ...over,
    };
    if (price !== undefined) body.price = price;
    const res = await post(admin, `admin/nft/collections/${collectionId}/items`, body);
    expect(res.body).toMatchObject({ code: 1 });
    return res.body.data as { id: number; token_no: number; price: string | null };
  }

  async function buyer(amount = '1000') {
    const u = await registerByEmail(t);
    if (amount !== '0') await deposit(t, u.user.id, USDT, amount);
    return u;
  }

  const usdt = async (userId: number) => (await coinBalance(t, userId, USDT)).available;
  const item = async (id: number, token: string | null = null) => (await get(token, 'nft/list', { id })).body.data.item;

  it('operators create collections and mint house-owned items with an image, metadata and a primary price: each an event with the operator and reason', async () => {
    const m = await mint('100');
    expect(m).toMatchObject({
      price: '100',
      state: 'listed',
      on_sale: true,
      primary: true,
      owner: { type: 'house', name: 'Kestrel' },
      attributes: { wing: 'gold', eyes: '2' },
    });
    const ev = await q<{ type: string; actor: string; reason: string }>(
      `SELECT type, metadata->>'actor' AS actor, metadata->>'reason' AS reason FROM events WHERE stream_id = $1 ORDER BY seq`,
      [`nft-item:${m.id}`],
    );
    expect(ev).toEqual([
      { type: 'NftMinted', actor: expect.stringMatching(/^admin:\d+$/), reason: 'drop 1' },
      { type: 'NftListed', actor: expect.stringMatching(/^admin:\d+$/), reason: 'drop 1' },
    ]);
    // A new primary price is another listing; withdrawing takes it off sale.
    expect((await post(admin, `admin/nft/items/${m.id}/price`, { price: '120', reason: 'repriced' })).body.data).toMatchObject({ price: '120', on_sale: true });
    expect((await post(admin, `admin/nft/items/${m.id}/withdraw`, { reason: 'paused' })).body.data).toMatchObject({
      price: null,
      on_sale: false,
      state: 'held',
    });
    expect((await post(admin, `admin/nft/items/${m.id}/price`, { price: '100', reason: 'back on sale' })).body.data).toMatchObject({ price: '100' });
    expect((await q(`SELECT status FROM nft_listings WHERE item_id = $1 ORDER BY id`, [m.id])).map((r) => r.status)).toEqual([
      'withdrawn',
      'withdrawn',
      'active',
    ]);

    // Bad operator input: clear answers, nothing stored.
    const before = await q(`SELECT COUNT(*)::int AS n FROM nft_items`);
    const u = await buyer('0');
    const userUpload = (
      await t.http().post('/api/upload/image').set('Authorization', u.token).attach('file', makePng(), { filename: 'x.png', contentType: 'image/png' })
    ).body.data.id;
    const cases: Array<[string, Record<string, unknown>, number, string]> = [
      [`admin/nft/collections/${collectionId}/items`, { name: 'X', image_id: await image() }, 1000, 'A reason is required'],
      [`admin/nft/collections/${collectionId}/items`, { name: 'X', image_id: 'nope', reason: 'r' }, 1000, 'Upload an image first and give its id'],
      [`admin/nft/collections/${collectionId}/items`, { name: 'X', image_id: userUpload, reason: 'r' }, 2301, expect.any(String) as unknown as string],
      [
        `admin/nft/collections/${collectionId}/items`,
        { name: 'X', image_id: await image(), price: '-5', reason: 'r' },
        1000,
        'Enter a valid price above 0 (at most 8 decimal places)',
      ],
      [
        `admin/nft/collections/${collectionId}/items`,
        { name: 'X', image_id: await image(), attributes: '[1,2]', reason: 'r' },
        1000,
        'Attributes must be an object of trait names and values',
      ],
      [`admin/nft/collections/9999/items`, { name: 'X', image_id: await image(), reason: 'r' }, 2800, 'Collection not found'],
      ['admin/nft/collections', { name: 'Test Falcons', reason: 'again' }, 2809, 'A collection with this name already exists'],
      [
        'admin/nft/collections',
        { name: 'Pricey', fee_rate: '0.9', reason: 'r' },
        1000,
        'The fee rate must be a decimal from 0 to 0.5 (at most 8 decimal places)',
      ],
    ];
    for (const [path, body, code, message] of cases) expect((await post(admin, path, body)).body).toMatchObject({ code, message });
    expect(await q(`SELECT COUNT(*)::int AS n FROM nft_items`)).toEqual(before);

    // A user token never opens the operator API.
    for (const [path, body] of [
      ['admin/nft/collections', { name: 'Mine', reason: 'r' }],
      [`admin/nft/collections/${collectionId}/items`, { name: 'X', image_id: userUpload, reason: 'r' }],
      [`admin/nft/items/${m.id}/price`, { price: '1', reason: 'r' }],
      [`admin/nft/items/${m.id}/withdraw`, { reason: 'r' }],
    ] as const)
      expect((await post(u.token, path, body)).body.code).toBe(401);
    expect((await get(u.token, 'admin/nft/collections')).body.code).toBe(401);
    expect(
      (await t.http().post('/api/admin/nft/images').set('Authorization', u.token).attach('file', makePng(), { filename: 'x.png', contentType: 'image/png' }))
        .body.code,
    ).toBe(401);
  });

  it('the market is public: collections, items with filters, the owner masked, the image served to anyone', async () => {
    const m = await mint('55');
    const list = await get(null, 'nft/list', { collection_id: collectionId, on_sale: 1, limit: 100 });
    expect(list.body).toMatchObject({ type: 'ok', code: 1 });
    expect(list.body.data.collections).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: collectionId, name: 'Test Falcons', on_sale: expect.any(Number) })]),
    );
    expect(list.body.data.items.map((i: { id: number }) => i.id)).toContain(m.id);
    expect(list.body.data.items.every((i: { on_sale: boolean }) => i.on_sale)).toBe(true);
    const img = await t.http().get(`/api/nft/image/${m.id}`).buffer(true);
    expect(img.status).toBe(200);
    expect(img.headers['content-type']).toBe('image/png');
    expect(img.body.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect((await t.http().get('/api/nft/image/999999')).body).toMatchObject({ code: 2801, message: 'NFT not found' });
    // Good and bad input answer the envelope.
    expect((await get(null, 'nft/list', { on_sale: 'maybe' })).body).toMatchObject({ code: 1000, message: 'Filters take 1 or 0' });
    expect((await get(null, 'nft/list', { id: 999999 })).body).toMatchObject({ code: 2801, message: 'NFT not found' });
    expect((await get(null, 'nft/list', { collection_id: 999 })).body).toMatchObject({ code: 2800 });
    expect((await get(null, 'nft/list', { mine: 1 })).body.code).toBe(401);
    expect((await get(null, 'nft/list', { mine: 1, colour: 'red' })).body.code).toBe(1001);
  });

  it('on a process without the sequencer (ROLE=api) a buyer who cannot pay is refused before the item is held, from the projected balance (regression: each try reserved the item)', async () => {
    const m = await mint('100');
    const poor = await buyer('50');
    const rich = await buyer('1000');
    const host = t.app.get(EngineHost);
    const owner = jest.spyOn(host, 'owner', 'get').mockReturnValue(false);
    const balance = jest.spyOn(host, 'balance').mockReturnValue(undefined);
    try {
      expect((await post(poor.token, 'nft/buy', { item_id: m.id })).body).toMatchObject({ code: 2000, message: 'Insufficient balance' });
      expect(await q('SELECT id FROM nft_sales WHERE item_id = $1', [m.id])).toEqual([]);
      expect((await item(m.id)).on_sale).toBe(true);
      expect((await post(rich.token, 'nft/buy', { item_id: m.id })).body.code).toBe(1);
    } finally {
      owner.mockRestore();
      balance.mockRestore();
    }
    expect(await usdt(poor.user.id)).toBe('50');
  });

  it('20 buyers of one item at the same instant: one owner, one payment (700/701/702 exact); the others are told "sold" and pay nothing', async () => {
    const m = await mint('100');
    const buyers = await Promise.all(Array.from({ length: 20 }, () => buyer('1000')));
    const answers = await Promise.all(buyers.map((b) => post(b.token, 'nft/buy', { item_id: m.id, price: '100' })));
    const won = answers.filter((a) => a.body.code === 1);
    expect(won).toHaveLength(1);
    const lost = answers.filter((a) => a.body.code !== 1);
    expect(lost.map((a) => a.body)).toEqual(
      lost.map(() => expect.objectContaining({ code: 2802, message: 'Sorry, this NFT has just been sold to another buyer. Nothing was charged' })),
    );
    const winner = buyers[answers.indexOf(won[0])];
    expect(won[0].body).toMatchObject({
      message: 'Purchase successful',
      data: { sale: { price: '100', fee: '2.5', status: 'completed', primary: true }, item: { owner: { type: 'user', is_me: true } } },
    });

    const [row] = await q<{ owner_id: number; state: string }>('SELECT owner_id, state FROM nft_items WHERE id = $1', [m.id]);
    expect(row).toEqual({ owner_id: winner.user.id, state: 'held' });
    const sales = await q<{ id: string; status: string }>('SELECT id::text, status FROM nft_sales WHERE item_id = $1', [m.id]);
    expect(sales).toEqual([{ id: expect.any(String), status: 'completed' }]);
    await t.app.get(EngineHost).idle();
    // One posting: 100 from the buyer (700), 97.5 to the collection's issuer account (702), 2.5 fee (701).
    expect(await q(LEGS_SQL, [sales[0].id])).toEqual([
      { code: 700, owner_type: 'user', owner_id: winner.user.id, account_type: 'coin', amount: '-100.000000000000000000' },
      { code: 701, owner_type: 'system', owner_id: 0, account_type: 'fees', amount: '2.500000000000000000' },
      { code: 702, owner_type: 'system', owner_id: collectionId, account_type: 'nft', amount: '97.500000000000000000' },
    ]);
    expect(
      await q(`SELECT COUNT(*)::int AS n FROM ledger_entries WHERE ref_type = 'nft-sale' AND code = 700 AND owner_id = ANY($1)`, [
        buyers.map((b) => b.user.id),
      ]),
    ).toEqual([{ n: 1 }]);
    const balances = await Promise.all(buyers.map((b) => usdt(b.user.id)));
    expect(balances.filter((b) => b === '900')).toHaveLength(1);
    expect(balances.filter((b) => b === '1000')).toHaveLength(19);
    // Provenance: minted by the house, sold once, the buyer masked.
    const detail = await item(m.id);
    expect(detail.provenance).toEqual([
      { event: 'mint', price: null, from: null, to: { type: 'house', name: 'Kestrel' }, at: expect.any(String) },
      {
        event: 'sale',
        price: '100',
        from: { type: 'house', name: 'Kestrel' },
        to: { type: 'user', name: expect.stringContaining('***') },
        at: expect.any(String),
      },
    ]);
  });

  it('only the owner lists; a resale pays the seller price − fee (702), the fee (701), from the buyer (700); the owner can withdraw', async () => {
    const m = await mint('40');
    const a = await buyer('1000');
    const b = await buyer('1000');
    expect((await post(a.token, 'nft/buy', { item_id: m.id })).body.code).toBe(1);
    // Not the owner: refused, nothing changes.
    for (const body of [
      { item_id: m.id, price: '150' },
      { item_id: m.id, action: 'withdraw' },
    ])
      expect((await post(b.token, 'nft/sell', body)).body).toMatchObject({
        code: 2805,
        message: 'Only the owner of this NFT can list it or withdraw its listing',
      });
    expect((await post(admin, `admin/nft/items/${m.id}/price`, { price: '1', reason: 'house is not the owner now' })).body.code).toBe(2805);
    expect((await post(a.token, 'nft/sell', { item_id: m.id, action: 'withdraw' })).body).toMatchObject({
      code: 2810,
      message: 'This NFT is not listed for sale',
    });
    // Just sold and not listed again: a late buyer is told it was sold.
    expect((await post(b.token, 'nft/buy', { item_id: m.id })).body).toMatchObject({ code: 2802 });

    const listed = await post(a.token, 'nft/sell', { item_id: m.id, price: '150' });
    expect(listed.body).toMatchObject({ code: 1, message: 'Listed for sale', data: { price: '150', on_sale: true, primary: false, owner: { is_me: true } } });
    expect((await post(a.token, 'nft/buy', { item_id: m.id })).body).toMatchObject({ code: 2804, message: 'You already own this NFT' });
    expect((await post(b.token, 'nft/buy', { item_id: m.id, price: '140' })).body).toMatchObject({
      code: 2807,
      message: 'The price has changed to 150. Please check it and try again',
    });
    // Withdraw, then list again; b buys at the new listing.
    expect((await post(a.token, 'nft/sell', { item_id: m.id, action: 'withdraw' })).body).toMatchObject({
      code: 1,
      message: 'Listing withdrawn',
      data: { on_sale: false },
    });
    expect((await post(b.token, 'nft/buy', { item_id: m.id })).body).toMatchObject({ code: 2803, message: 'This NFT is not for sale' });
    expect((await post(a.token, 'nft/sell', { item_id: m.id, price: '150' })).body.code).toBe(1);
    // A double tap: both answers are the one sale (regression: the later tap could hear "sold" or
    // "you already own this NFT" once the first had reserved or paid).
    const [bought, twin] = await Promise.all([1, 2].map(() => post(b.token, 'nft/buy', { item_id: m.id, price: '150', client_id: 'resale-1' })));
    expect(bought.body).toMatchObject({ code: 1, data: { sale: { price: '150', fee: '3.75', primary: false } } });
    expect(twin.body).toMatchObject({ code: 1, data: { sale: { id: bought.body.data.sale.id } } });
    // A retry with the same client id is the same sale, nothing paid twice.
    const retry = await post(b.token, 'nft/buy', { item_id: m.id, price: '150', client_id: 'resale-1' });
    expect(retry.body.data.sale.id).toBe(bought.body.data.sale.id);
    // A twin that looked for its client id just before the first committed: its own checks now see
    // b as the owner, and it answers with the first's sale, not "You already own this NFT".
    jest.spyOn(t.ds.getRepository(NftSale), 'findOne').mockResolvedValueOnce(null);
    const late = await t.app.get(NftSaleService).buy(b.user.id, { item_id: m.id, price: '150', client_id: 'resale-1' } as NftBuyDto);
    expect(late.id).toBe(bought.body.data.sale.id);
    await t.app.get(EngineHost).idle();
    expect(await q(LEGS_SQL, [bought.body.data.sale.id])).toEqual([
      { code: 700, owner_type: 'user', owner_id: b.user.id, account_type: 'coin', amount: '-150.000000000000000000' },
      { code: 701, owner_type: 'system', owner_id: 0, account_type: 'fees', amount: '3.750000000000000000' },
      { code: 702, owner_type: 'user', owner_id: a.user.id, account_type: 'coin', amount: '146.250000000000000000' },
    ]);
    expect(await usdt(a.user.id)).toBe('1106.25');
    expect(await usdt(b.user.id)).toBe('850');

    // My orders: a's purchase and sale, a's listings; b's purchase.
    const mineA = (await get(a.token, 'nft/order/list')).body.data.items;
    expect(mineA.map((o: { kind: string; amount: string; status: string }) => [o.kind, o.amount, o.status])).toEqual([
      ['sale', '146.25', 'completed'],
      ['purchase', '40', 'completed'],
    ]);
    const listings = (await get(a.token, 'nft/order/list', { type: 'listing' })).body.data.items;
    expect(listings.map((l: { price: string; status: string }) => [l.price, l.status])).toEqual([
      ['150', 'sold'],
      ['150', 'withdrawn'],
    ]);
    expect((await get(b.token, 'nft/order/list', { type: 'purchase' })).body.data.items).toEqual([
      expect.objectContaining({ kind: 'purchase', item_id: m.id, price: '150', fee: '3.75', amount: '150', status: 'completed', primary: false }),
    ]);
    expect((await get(b.token, 'nft/order/list', { type: 'sold' })).body).toMatchObject({ code: 1000, message: 'The type must be purchase, sale or listing' });
    const prov = (await item(m.id)).provenance;
    expect(prov.map((p: { event: string; price: string | null }) => [p.event, p.price])).toEqual([
      ['mint', null],
      ['sale', '40'],
      ['sale', '150'],
    ]);
  });

  it('the owner withdrawing while five others buy: either the withdrawal or one purchase wins, never both', async () => {
    const m = await mint('10');
    const owner = await buyer('100');
    expect((await post(owner.token, 'nft/buy', { item_id: m.id })).body.code).toBe(1);
    expect((await post(owner.token, 'nft/sell', { item_id: m.id, price: '20' })).body.code).toBe(1);
    const buyers = await Promise.all(Array.from({ length: 5 }, () => buyer('100')));
    const [withdrawn, ...buys] = await Promise.all([
      post(owner.token, 'nft/sell', { item_id: m.id, action: 'withdraw' }),
      ...buyers.map((b) => post(b.token, 'nft/buy', { item_id: m.id })),
    ]);
    const won = buys.filter((b) => b.body.code === 1);
    const [row] = await q<{ owner_id: number; state: string }>('SELECT owner_id, state FROM nft_items WHERE id = $1', [m.id]);
    const paid = await Promise.all(buyers.map((b) => usdt(b.user.id)));
    if (withdrawn.body.code === 1) {
      expect(won).toHaveLength(0);
      expect(row).toEqual({ owner_id: owner.user.id, state: 'held' });
      expect(paid).toEqual(buyers.map(() => '100'));
    } else {
      expect([2805, 2806]).toContain(withdrawn.body.code);
      expect(won).toHaveLength(1);
      expect(row).toEqual({ owner_id: buyers[buys.indexOf(won[0])].user.id, state: 'held' });
      expect(paid.filter((p) => p === '80')).toHaveLength(1);
      expect(paid.filter((p) => p === '100')).toHaveLength(4);
    }
    expect(buys.filter((b) => b.body.code !== 1).every((b) => [2802, 2803].includes(b.body.code))).toBe(true);
  });

  it('a buyer who cannot pay is refused with nothing written; bad input is refused with its message', async () => {
    const m = await mint('100');
    const poor = await buyer('5');
    const before = await q('SELECT COUNT(*)::int AS n FROM nft_sales');
    expect((await post(poor.token, 'nft/buy', { item_id: m.id })).body).toMatchObject({ code: 2000, message: 'Insufficient balance' });
    expect(await q('SELECT COUNT(*)::int AS n FROM nft_sales')).toEqual(before);
    expect((await item(m.id)).on_sale).toBe(true);
    expect(await usdt(poor.user.id)).toBe('5');
    const cases: Array<[string, Record<string, unknown>, number, string]> = [
      ['nft/buy', {}, 1000, 'Choose an NFT'],
      ['nft/buy', { item_id: 'abc' }, 1000, 'Choose an NFT'],
      ['nft/buy', { item_id: 999999 }, 2801, 'NFT not found'],
      ['nft/buy', { item_id: m.id, price: '1e3' }, 1000, 'Enter a valid price above 0 (at most 8 decimal places)'],
      ['nft/buy', { item_id: m.id, colour: 'red' }, 1001, 'Unknown field: colour'],
      ['nft/sell', { item_id: m.id }, 1000, 'Enter a valid price above 0 (at most 8 decimal places)'],
      ['nft/sell', { item_id: m.id, price: '0' }, 1000, 'Enter a valid price above 0 (at most 8 decimal places)'],
      ['nft/sell', { item_id: m.id, price: '1.123456789' }, 1000, 'Enter a valid price above 0 (at most 8 decimal places)'],
      ['nft/sell', { item_id: m.id, action: 'burn' }, 1000, 'Choose to list or to withdraw the listing'],
    ];
    for (const [path, body, code, message] of cases) expect((await post(poor.token, path, body)).body).toMatchObject({ code, message });
    // A purchase without a client id (a retry of it could not be told from a new one): refused by the form, nothing written.
    const rich = await buyer('1000');
    for (const body of [
      { item_id: m.id, price: '100' },
      { item_id: m.id, price: '100', client_id: '' },
    ])
      expect((await t.http().post('/api/nft/buy').set('Authorization', rich.token).type('form').send(body)).body).toMatchObject({ code: 1000 });
    expect((await item(m.id)).on_sale).toBe(true);
    expect(await usdt(rich.user.id)).toBe('1000');
    // Not logged in: 401 for money and listings.
    expect((await post(null, 'nft/buy', { item_id: m.id })).body).toMatchObject({ type: '999', code: 401 });
    expect((await post(null, 'nft/sell', { item_id: m.id, price: '1' })).body.code).toBe(401);
    expect((await get(null, 'nft/order/list')).body.code).toBe(401);
    // Localized.
    const zh = await post(poor.token, 'nft/buy', { item_id: 999999 }).set('lang', 'zh');
    expect(zh.body.message).toBe('NFT 不存在');
    expect(await q('SELECT COUNT(*)::int AS n FROM nft_sales')).toEqual(before);
  });

  it('a buyer\'s own purchase still going through (2107) is their answer to buying again, never 2802 "sold to another buyer" (regression: 2802, then the sweep charged them)', async () => {
    const sales = t.app.get(NftSaleService);
    const trading = t.app.get(TradeAccountCommands);
    // The app's own sweep is paused for this test (it would finish the sale after 2 s, whenever the test is slow): each step is this test's.
    clearInterval((sales as unknown as { sweeper: NodeJS.Timeout }).sweeper);
    try {
      const m = await mint('25');
      const b = await buyer('100');
      const other = await buyer('100');
      // The sequencer's answer is lost: the sale stays pending, the item reserved for it.
      const lost = jest.spyOn(trading, 'post').mockRejectedValue(new BusinessError(ErrorCode.ENGINE_UNKNOWN));
      try {
        expect((await post(b.token, 'nft/buy', { item_id: m.id, price: '25', client_id: 'lost-1' })).body.code).toBe(2107);
        const [pending] = await q<{ id: string; status: string }>('SELECT id::text, status FROM nft_sales WHERE item_id = $1', [m.id]);
        expect(pending.status).toBe('pending');
        expect((await item(m.id)).state).toBe('reserved');
        // Another buyer is told it is sold; the buyer, again under another client id while the answer is still unknown: 2107 again.
        expect((await post(other.token, 'nft/buy', { item_id: m.id })).body.code).toBe(2802);
        expect((await post(b.token, 'nft/buy', { item_id: m.id, price: '25', client_id: 'lost-2' })).body.code).toBe(2107);
      } finally {
        lost.mockRestore();
      }
      // Once the sequencer answers: the one purchase, completed, paid once.
      const again = await post(b.token, 'nft/buy', { item_id: m.id, price: '25', client_id: 'lost-3' });
      const sales1 = await q<{ id: string; status: string; client_id: string }>('SELECT id::text, status, client_id FROM nft_sales WHERE item_id = $1', [m.id]);
      expect(sales1).toEqual([{ id: expect.any(String), status: 'completed', client_id: 'lost-1' }]);
      expect(again.body).toMatchObject({ code: 1, data: { sale: { id: sales1[0].id, status: 'completed' }, item: { owner: { is_me: true } } } });
      expect(await usdt(b.user.id)).toBe('75');
      await t.app.get(EngineHost).idle();
      expect(await q(`SELECT COUNT(*)::int AS n FROM ledger_entries WHERE ref_type = 'nft-sale' AND ref_id = $1 AND code = 700`, [sales1[0].id])).toEqual([
        { n: 1 },
      ]);

      // The same when the buyer's other request reserves the item between this one's checks and its reservation.
      const m2 = await mint('10');
      const real = trading.shortBeforeHolding.bind(trading);
      let otherSale = '';
      jest.spyOn(trading, 'shortBeforeHolding').mockImplementationOnce(async (...args) => {
        const [{ listing_id }] = await q<{ listing_id: string }>('SELECT listing_id::text FROM nft_items WHERE id = $1', [m2.id]);
        [{ id: otherSale }] = await q<{ id: string }>(
          `INSERT INTO nft_sales (item_id, collection_id, listing_id, seller_id, buyer_id, currency_id, price, fee, proceeds, status, client_id)
           VALUES ($1, $2, $3, 0, $4, $5, 10, 0.25, 9.75, 'pending', 'other-tab') RETURNING id::text`,
          [m2.id, collectionId, listing_id, b.user.id, USDT],
        );
        await q(`UPDATE nft_items SET state = 'reserved', sale_id = $2 WHERE id = $1`, [m2.id, otherSale]);
        return real(...args);
      });
      const raced = await post(b.token, 'nft/buy', { item_id: m2.id, price: '10', client_id: 'this-tab' });
      expect(raced.body).toMatchObject({ code: 1, data: { sale: { id: otherSale, status: 'completed' } } });
      expect(await q('SELECT client_id FROM nft_sales WHERE item_id = $1', [m2.id])).toEqual([{ client_id: 'other-tab' }]);
      expect(await usdt(b.user.id)).toBe('65');
    } finally {
      jest.restoreAllMocks();
      sales.onApplicationBootstrap();
    }
  });

  /** A purchase at `price` with `meanwhile` run between its checks and its reservation (the buyer's balance check). */
  async function buyMeanwhile(token: string, itemId: number, price: string, meanwhile: () => Promise<void>) {
    const trading = t.app.get(TradeAccountCommands);
    const real = trading.shortBeforeHolding.bind(trading);
    const hook = jest.spyOn(trading, 'shortBeforeHolding').mockImplementationOnce(async (...args) => {
      await meanwhile();
      return real(...args);
    });
    try {
      return (await post(token, 'nft/buy', { item_id: itemId, price })).body;
    } finally {
      hook.mockRestore();
    }
  }

  it('listing again at the same price keeps the listing: a purchase checked against it goes through (regression: 2807 "the price has changed to 100")', async () => {
    const m = await mint('20');
    const owner = await buyer('100');
    const b = await buyer('500');
    expect((await post(owner.token, 'nft/buy', { item_id: m.id })).body.code).toBe(1);
    const listed = await post(owner.token, 'nft/sell', { item_id: m.id, price: '100' });
    expect(listed.body).toMatchObject({ code: 1, data: { price: '100', on_sale: true } });
    const listings = async () =>
      q<{ id: string; status: string }>('SELECT id::text, status FROM nft_listings WHERE item_id = $1 AND seller_id = $2 ORDER BY id', [m.id, owner.user.id]);
    const [first] = await listings();
    // The same price again (a double tap, "100.00"): the same listing, no new event.
    const events = async () => (await q<{ n: number }>(`SELECT COUNT(*)::int AS n FROM events WHERE stream_id = $1`, [`nft-item:${m.id}`]))[0].n;
    const seen = await events();
    for (const price of ['100', '100.00'])
      expect((await post(owner.token, 'nft/sell', { item_id: m.id, price })).body).toMatchObject({ code: 1, data: { price: '100', on_sale: true } });
    expect(await listings()).toEqual([first]);
    expect(await events()).toBe(seen);
    // The owner re-lists at the same price while b's purchase is between its checks and its reservation: b buys.
    const bought = await buyMeanwhile(b.token, m.id, '100', async () => {
      expect((await post(owner.token, 'nft/sell', { item_id: m.id, price: '100' })).body.code).toBe(1);
    });
    expect(bought).toMatchObject({ code: 1, data: { sale: { price: '100', status: 'completed' } } });
    expect(await listings()).toEqual([{ id: first.id, status: 'sold' }]);
    // Another price is a new listing, as before.
    expect((await post(b.token, 'nft/sell', { item_id: m.id, price: '120' })).body.code).toBe(1);
    expect((await post(b.token, 'nft/sell', { item_id: m.id, price: '130' })).body.code).toBe(1);
    expect(
      (
        await q<{ price: string; status: string }>('SELECT price::text, status FROM nft_listings WHERE item_id = $1 AND seller_id = $2 ORDER BY id', [
          m.id,
          b.user.id,
        ])
      ).map((l) => [moneyString(l.price), l.status]),
    ).toEqual([
      ['120', 'withdrawn'],
      ['130', 'active'],
    ]);
  });

  it('withdrawn and listed again at the same price while a purchase is between its checks and its reservation: the purchase goes through at that price (regression: 2807 "the price has changed to 100")', async () => {
    const m = await mint('20');
    const owner = await buyer('100');
    const b = await buyer('500');
    expect((await post(owner.token, 'nft/buy', { item_id: m.id })).body.code).toBe(1);
    expect((await post(owner.token, 'nft/sell', { item_id: m.id, price: '100' })).body.code).toBe(1);
    const bought = await buyMeanwhile(b.token, m.id, '100', async () => {
      expect((await post(owner.token, 'nft/sell', { item_id: m.id, action: 'withdraw' })).body.code).toBe(1);
      expect((await post(owner.token, 'nft/sell', { item_id: m.id, price: '100' })).body.code).toBe(1);
    });
    expect(bought).toMatchObject({ code: 1, data: { sale: { price: '100', status: 'completed' } } });
    const listings = await q<{ status: string }>('SELECT status FROM nft_listings WHERE item_id = $1 AND seller_id = $2 ORDER BY id', [m.id, owner.user.id]);
    expect(listings.map((l) => l.status)).toEqual(['withdrawn', 'sold']);
    expect(await usdt(b.user.id)).toBe('400');
  });

  it('a reservation left by a crash is resolved by the sweep: paid → completed once; refused → released to the old owner with no payment', async () => {
    const sweep = t.app.get(NftSaleService);
    // As a process that died right after reserving would leave them: a sale pending, its item reserved
    // (created now: the app's own sweep leaves them alone for 2 s, the explicit sweeps below take them).
    async function reserved(price: string, buyerId: number) {
      const m = await mint(price);
      const [{ listing_id }] = await q<{ listing_id: string }>('SELECT listing_id::text FROM nft_items WHERE id = $1', [m.id]);
      const [sale] = await q<{ id: string }>(
        `INSERT INTO nft_sales (item_id, collection_id, listing_id, seller_id, buyer_id, currency_id, price, fee, proceeds, status, created_at)
         VALUES ($1, $2, $3, 0, $4, $5, $6, $6::numeric * 0.025, $6::numeric * 0.975, 'pending', now()) RETURNING id::text`,
        [m.id, collectionId, listing_id, buyerId, USDT, price],
      );
      await q(`UPDATE nft_items SET state = 'reserved', sale_id = $2 WHERE id = $1`, [m.id, sale.id]);
      return { itemId: m.id, saleId: sale.id };
    }
    const rich = await buyer('100');
    const poor = await buyer('3');
    const paid = await reserved('20', rich.user.id);
    const refused = await reserved('20', poor.user.id);
    // Operators see purchases in flight (a user token does not).
    const inFlight = (await get(admin, 'admin/nft/sales', { status: 'pending' })).body.data;
    expect(inFlight.items.map((x: { id: string }) => x.id).sort()).toEqual([paid.saleId, refused.saleId].sort());
    expect(inFlight.items[0]).toMatchObject({ status: 'pending', result: null, command_id: `nft-sale:${inFlight.items[0].id}` });
    expect((await get(rich.token, 'admin/nft/sales')).body.code).toBe(401);
    // Meanwhile other buyers are told it is sold.
    expect((await post((await buyer('100')).token, 'nft/buy', { item_id: paid.itemId })).body.code).toBe(2802);
    // The app's own periodic sweep may be running too: either resolves them, once.
    for (let i = 0; i < 50; i++) {
      await sweep.sweep(0);
      const [{ n }] = await q<{ n: number }>(`SELECT COUNT(*)::int AS n FROM nft_sales WHERE status = 'pending'`);
      if (n === 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    await t.app.get(EngineHost).idle();
    const state = async (s: { itemId: number; saleId: string }) => ({
      sale: (await q<{ status: string; result: string }>('SELECT status, result FROM nft_sales WHERE id = $1', [s.saleId]))[0],
      item: (await q<{ owner_id: number; state: string }>('SELECT owner_id, state FROM nft_items WHERE id = $1', [s.itemId]))[0],
      payments: (await q<{ n: number }>(`SELECT COUNT(*)::int AS n FROM ledger_entries WHERE ref_type = 'nft-sale' AND ref_id = $1`, [s.saleId]))[0].n,
    });
    expect(await state(paid)).toEqual({ sale: { status: 'completed', result: 'OK' }, item: { owner_id: rich.user.id, state: 'held' }, payments: 3 });
    expect(await state(refused)).toEqual({ sale: { status: 'released', result: 'INSUFFICIENT_BALANCE' }, item: { owner_id: 0, state: 'listed' }, payments: 0 });
    expect((await get(admin, 'admin/nft/sales', { user_id: poor.user.id })).body.data.items).toEqual([
      expect.objectContaining({ id: refused.saleId, buyer_id: poor.user.id, status: 'released', result: 'INSUFFICIENT_BALANCE' }),
    ]);
    expect(await usdt(rich.user.id)).toBe('80');
    expect(await usdt(poor.user.id)).toBe('3');
    const orders = (await get(poor.token, 'nft/order/list')).body.data.items;
    expect(orders).toEqual([expect.objectContaining({ kind: 'purchase', status: 'failed' })]);
  });

  it("user B never sees A's private data: A's orders and listings stay A's; the public list masks A", async () => {
    const m = await mint('30');
    const a = await buyer('100');
    const b = await buyer('100');
    expect((await post(a.token, 'nft/buy', { item_id: m.id })).body.code).toBe(1);
    expect((await post(a.token, 'nft/sell', { item_id: m.id, price: '45' })).body.code).toBe(1);
    const ofB = await get(b.token, 'nft/order/list');
    expect(ofB.body.data).toMatchObject({ items: [], total: 0 });
    expect((await get(b.token, 'nft/order/list', { type: 'listing' })).body.data.items).toEqual([]);
    expect((await get(b.token, 'nft/list', { mine: 1 })).body.data.items).toEqual([]);
    expect((await get(a.token, 'nft/list', { mine: 1 })).body.data.items.map((i: { id: number }) => i.id)).toEqual([m.id]);
    // What B (or anyone) sees of A's item: a masked name, never A's account, nickname or id.
    const seen = await get(b.token, 'nft/list', { id: m.id });
    const [me] = await q<{ nickname: string; account: string }>('SELECT nickname, account FROM users WHERE id = $1', [a.user.id]);
    expect(seen.body.data.item.owner).toEqual({ type: 'user', name: expect.stringContaining('***'), is_me: false });
    const text = JSON.stringify(seen.body.data);
    expect(text).not.toContain(me.nickname);
    expect(text).not.toContain(me.account);
    expect(text).not.toMatch(new RegExp(`"(owner_id|seller_id|buyer_id|user_id)"`));
  });
});

/**
 * kill -9 between the steps of a purchase: the BUILT server (backend/dist) runs as a child process
 * and, at a named fault point (FAULT_POINTS), kills itself with SIGKILL — once right after the item
 * is reserved (before the payment command is sent), once right after the sequencer applied the
 * payment (before the sale row is finished). Restarted on the same database, each sale ends
 * completed (new owner, exactly one payment) or released (old owner, no payment), never both.
 */
describe('NFT purchase: kill -9 between reserving the item and the payment, then a restart (built server)', () => {
  let db: Awaited<ReturnType<typeof createDatabase>>;
  let ds: DataSource;
  let uploadDir: string;
  let server: ServerProcess | undefined;
  const q = <T = Row>(sql: string, params: unknown[] = []): Promise<T[]> => ds.query(sql, params);

  const env = (faults: string): Record<string, string> => ({
    DATABASE_URL: db.url,
    REDIS_URL,
    REDIS_PREFIX: `nftcrash:${db.name}:`,
    MARKET_SIMULATOR: 'off',
    OPTION_WORKER: 'off',
    LOG_LEVEL: 'warn',
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    FLASH_FLOAT: '',
    UPLOAD_DIR: uploadDir,
    FAULT_POINTS: faults,
  });

  async function start(faults: string): Promise<ServerProcess> {
    server = spawnServer(await freePort(), env(faults));
    await waitUntilUp(server, 90_000);
    return server;
  }

  async function ok(p: Promise<Envelope>, what: string): Promise<Envelope['data']> {
    const r = await p;
    if (r.code !== 1) throw new Error(`${what}: ${JSON.stringify(r)}`);
    return r.data;
  }

  async function waitFor<T>(what: string, f: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
    const until = Date.now() + timeoutMs;
    while (Date.now() < until) {
      const v = await f();
      if (v !== undefined) return v;
      await sleep(200);
    }
    throw new Error(`timed out waiting for ${what}:\n${server?.output().slice(-3000) ?? ''}`);
  }

  /**
   * Every sale is one of the two consistent ends; returns each sale's state. The payments are
   * ledger entries, a projection: with a live server they are counted once the projector has
   * caught up with what was journaled before the sales were read (a sale is completed only after
   * its payment is journaled, so it may be read before its payment is projected).
   */
  async function consistent(live = true): Promise<Array<{ id: string; status: string }>> {
    const payments = `(SELECT COUNT(*)::int FROM ledger_entries e WHERE e.ref_type = 'nft-sale' AND e.ref_id = s.id::text AND e.code = 700) AS payments`;
    const rows = await q<{
      id: string;
      status: string;
      item_owner: number;
      buyer_id: number;
      seller_id: number;
      state: string;
      sale_id: string | null;
      payments: number;
    }>(
      `SELECT s.id::text, s.status, i.owner_id AS item_owner, s.buyer_id, s.seller_id, i.state, i.sale_id::text,
              ${payments}
         FROM nft_sales s JOIN nft_items i ON i.id = s.item_id ORDER BY s.id`,
    );
    if (live) {
      await caughtUp();
      const paid = new Map((await q<{ id: string; payments: number }>(`SELECT s.id::text, ${payments} FROM nft_sales s`)).map((r) => [r.id, r.payments]));
      for (const r of rows) r.payments = paid.get(r.id)!;
    }
    for (const r of rows) {
      if (r.status === 'completed') expect({ owner: r.item_owner, payments: r.payments }).toEqual({ owner: r.buyer_id, payments: 1 });
      else if (r.status === 'released') expect({ owner: r.item_owner, payments: r.payments }).toEqual({ owner: r.seller_id, payments: 0 });
      else expect({ state: r.state, sale: r.sale_id }).toEqual({ state: 'reserved', sale: r.id });
    }
    return rows.map((r) => ({ id: r.id, status: r.status }));
  }

  async function caughtUp(): Promise<void> {
    await waitFor('the projector to catch up', async () => {
      const [r] = await q<{ p: string | null; j: string; pending: number }>(
        `SELECT (SELECT seq FROM sequencer_projection WHERE id = 1)::text AS p, (SELECT COALESCE(MAX(seq), 0) FROM sequencer_journal)::text AS j,
                (SELECT COUNT(*) FROM sequencer_outbox WHERE applied_seq IS NULL)::int AS pending`,
      );
      return r.p === r.j && r.pending === 0 ? true : undefined;
    });
  }

  beforeAll(async () => {
    db = await createDatabase();
    uploadDir = mkdtempSync(join(tmpdir(), 'kestrel-nft-crash-'));
  });
  afterAll(async () => {
    await stopServer(server);
    await ds?.destroy();
    await db?.drop();
    rmSync(uploadDir, { recursive: true, force: true });
  });

  it('each purchase cut by kill -9 completes once or is released, never both; the trial balance stays exact', async () => {
    // First run: dies right after the reservation of the first purchase.
    let s = await start('nft:after-reserve');
    ds = new DataSource({ type: 'postgres', url: db.url, logging: false, poolSize: 3 });
    await ds.initialize();
    const adminTok = (await ok(call(s.base, 'POST', 'admin/login', { email: ADMIN.email, password: ADMIN.password }), 'admin login')).token as string;
    const form = new FormData();
    form.append('file', new Blob([makePng(20, 20)], { type: 'image/png' }), 'art.png');
    const img = (await (await fetch(`${s.base}/admin/nft/images`, { method: 'POST', headers: { Authorization: adminTok }, body: form })).json()) as Envelope;
    expect(img.code).toBe(1);
    const col = await ok(call(s.base, 'POST', 'admin/nft/collections', { name: 'Crash', fee_rate: '0.02', reason: 'crash test' }, adminTok), 'collection');
    const items: number[] = [];
    for (const n of [1, 2])
      items.push(
        (
          await ok(
            call(
              s.base,
              'POST',
              `admin/nft/collections/${col.id}/items`,
              { name: `C${n}`, image_id: img.data.id, price: '100', reason: 'crash test' },
              adminTok,
            ),
            'mint',
          )
        ).id,
      );

    const email = `nftcrash.${process.pid}@kestrel.test`;
    await ok(call(s.base, 'POST', 'sms_mail', { email, purpose: 'register' }), 'sms_mail');
    const code = await waitFor(
      'the code',
      async () =>
        /\b(\d{6})\b/.exec((await q<{ body: string }>('SELECT body FROM outbox WHERE recipient = $1 ORDER BY id DESC LIMIT 1', [email]))[0]?.body ?? '')?.[1],
    );
    const reg = await ok(
      call(s.base, 'POST', 'user/register', { type: 'email', email, code, password: 'secret-pass', re_password: 'secret-pass', agreement: '1' }),
      'register',
    );
    const token = reg.token as string;
    const userId = reg.user.id as number;
    // Funding the way the operator CLI does it: a 900 posting through the sequencer outbox.
    const funding: Posting = {
      commandId: `nft-crash-funding:${db.name}`,
      refType: 'system-funding',
      refId: db.name,
      actor: 'operator-cli:nft-crash-test',
      reason: 'crash test float',
      legs: [coinLeg(userId, USDT, LedgerCode.SystemFunding, '1000'), systemLeg('external', USDT, LedgerCode.SystemFunding, '-1000')],
    };
    await q('INSERT INTO sequencer_outbox (command_id, command) VALUES ($1, $2)', [funding.commandId, JSON.stringify(funding)]);
    await waitFor('the funding', async () =>
      (await q<{ result: string | null }>('SELECT result FROM sequencer_outbox WHERE command_id = $1', [funding.commandId]))[0]?.result === 'OK'
        ? true
        : undefined,
    );

    // The purchase: the process dies between the reservation and the payment command.
    await expect(call(s.base, 'POST', 'nft/buy', { item_id: items[0], client_id: 'crash-1' }, token, 10_000)).rejects.toThrow();
    expect((await s.exited).signal).toBe('SIGKILL');
    expect(await consistent(false)).toEqual([{ id: expect.any(String), status: 'pending' }]);
    expect(await q(`SELECT COUNT(*)::int AS n FROM ledger_entries WHERE ref_type = 'nft-sale'`)).toEqual([{ n: 0 }]);

    // Second run: the pending sale is resolved on restart (the same command id: the sequencer's answer decides);
    // then a second purchase dies right after the sequencer applied its payment, before the sale row is finished.
    s = await start('nft:after-payment');
    const first = await waitFor('the first sale to be resolved', async () => {
      const rows = await consistent();
      return rows[0].status !== 'pending' ? rows[0] : undefined;
    });
    expect(first.status).toBe('completed');
    await expect(call(s.base, 'POST', 'nft/buy', { item_id: items[1], client_id: 'crash-2' }, token, 10_000)).rejects.toThrow();
    expect((await s.exited).signal).toBe('SIGKILL');
    expect((await consistent(false)).map((r) => r.status)).toEqual(['completed', 'pending']);

    // Third run, no faults: the paid sale is finished from the ledger (or the same command's answer), not paid again.
    s = await start('');
    await waitFor('the second sale to be resolved', async () => ((await consistent())[1].status !== 'pending' ? true : undefined));
    expect((await consistent()).map((r) => r.status)).toEqual(['completed', 'completed']);
    await caughtUp();
    expect(await q(`SELECT owner_id FROM nft_items WHERE id = ANY($1) ORDER BY id`, [items])).toEqual([{ owner_id: userId }, { owner_id: userId }]);
    expect(
      await q(
        `SELECT code, COUNT(*)::int AS n, SUM(available_delta)::text AS total FROM ledger_entries WHERE ref_type = 'nft-sale' GROUP BY code ORDER BY code`,
      ),
    ).toEqual([
      { code: 700, n: 2, total: '-200.000000000000000000' },
      { code: 701, n: 2, total: '4.000000000000000000' },
      { code: 702, n: 2, total: '196.000000000000000000' },
    ]);
    const balance = await ok(call(s.base, 'GET', 'nft/order/list', {}, token), 'orders');
    expect(balance.items.map((o: { status: string }) => o.status)).toEqual(['completed', 'completed']);
    const tb = await new TrialBalanceService(ds).compute();
    expect(tb.currencies.filter((c) => !c.balanced)).toEqual([]);
  }, 240_000);
});
