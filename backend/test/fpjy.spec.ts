import { EngineHost } from '../src/modules/engine/engine-host.service';
import type { Redis } from 'ioredis';
import { REDIS } from '../src/infra/redis/redis.module';
import { TradeAccountCommands } from '../src/modules/engine/trade-account-commands';
import { FlashExchangeService } from '../src/modules/fpjy/fpjy.service';
import { TrialBalanceService } from '../src/modules/ledger/trial-balance.service';
import { registerByEmail, setFundPassword } from './support/accounts';
import { coinBalance, deposit } from './support/funding';
import { startTestApp, TestApp } from './support/test-app';

const BTC = 1;
const ETH = 2;
const USDT = 3;

describe('flash exchange (real PostgreSQL + Redis)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ flashExchange: { feeRate: '0.002', quoteTtlSeconds: 2, float: { USDT: '1000000', BTC: '10', ETH: '300' } } });
    // One BTC/USDT trade at 60,000 gives BTC its price (the venue's own last trade).
    const seller = await registerByEmail(t);
    const buyer = await registerByEmail(t);
    for (const u of [seller, buyer]) await setFundPassword(t, u);
    await deposit(t, seller.user.id, BTC, '1');
    await deposit(t, buyer.user.id, USDT, '70000');
    const order = (token: string, side: string) =>
      t
        .http()
        .post('/api/coin/trade')
        .set('Authorization', token)
        .type('form')
        .send({ symbol: 'BTC/USDT', side, type: 'limit', price: '60000', quantity: '0.01' });
    expect((await order(seller.token, 'sell')).body.code).toBe(1);
    expect((await order(buyer.token, 'buy')).body.data.status).toBe('completed');
  });
  afterAll(() => t.close());
  afterEach(async () => expect((await t.app.get(TrialBalanceService).compute()).ok).toBe(true));

  /** A user who may trade: a fund password set (spec §6). */
  const trader = async () => {
    const u = await registerByEmail(t);
    await setFundPassword(t, u);
    return u;
  };
  const post = (token: string, path: string, body: Record<string, unknown>) =>
    t.http().post(`/api/fpjy/${path}`).set('Authorization', token).type('form').send(body);

  it('quotes at the last trade price minus the documented fee and converts once (500/501)', async () => {
    const u = await trader();
    await deposit(t, u.user.id, BTC, '0.5');
    const q = (await post(u.token, 'quote', { from_currency_id: BTC, to_currency_id: USDT, amount: '0.1' })).body.data;
    // 0.1 × 60000 = 6000; fee 0.2% = 12; receive 5988.
    expect(q).toMatchObject({ rate: '60000', amount: '0.1', fee: '12', receive: '5988', from_symbol: 'BTC', to_symbol: 'USDT' });
    // Its lifetime as well as its end: the app counts down from the answer's arrival, not by its own clock against the server's.
    expect(q.expires_in).toBe(2); // this app's FLASH_QUOTE_TTL_SECONDS
    expect(Math.abs(Date.parse(q.expires_at) - Date.now() - 2_000)).toBeLessThan(2_000);
    const [a, b] = await Promise.all([1, 2].map(() => post(u.token, 'convert', { quote_id: q.quote_id })));
    expect([a.body.code, b.body.code]).toEqual([1, 1]);
    expect([a.body.data.duplicate, b.body.data.duplicate].sort()).toEqual([false, true]);
    expect(await coinBalance(t, u.user.id, BTC)).toEqual({ available: '0.4', frozen: '0' });
    expect(await coinBalance(t, u.user.id, USDT)).toEqual({ available: '5988', frozen: '0' });
    const codes = await t.ds.query(`SELECT code, COUNT(*)::int AS n FROM ledger_entries WHERE ref_type = 'flash' GROUP BY code ORDER BY code`);
    expect(codes).toEqual([
      { code: 500, n: 2 },
      { code: 501, n: 2 },
    ]);
    expect((await t.http().get('/api/fpjy/list').set('Authorization', u.token)).body.data.items[0]).toMatchObject({ quote_id: q.quote_id, receive: '5988' });
  });

  it('a convert that looked before a concurrent one committed answers with that one and writes nothing', async () => {
    const u = await trader();
    await deposit(t, u.user.id, BTC, '0.5');
    const q = (await post(u.token, 'quote', { from_currency_id: BTC, to_currency_id: USDT, amount: '0.1' })).body.data;
    const flash = t.app.get(FlashExchangeService);
    const quoteKey = `fpjy:quote:${q.quote_id}`;
    const saved = await t.app.get<Redis>(REDIS).get(quoteKey);
    expect((await flash.convert(u.user.id, q.quote_id)).duplicate).toBe(false);
    // The late one read "not converted" and the quote before the first committed and deleted it.
    await t.app.get<Redis>(REDIS).set(quoteKey, saved!);
    jest.spyOn(flash as unknown as { converted: () => Promise<undefined> }, 'converted').mockResolvedValueOnce(undefined);
    expect(await flash.convert(u.user.id, q.quote_id)).toMatchObject({ duplicate: true, receive: '5988' });
    expect(await coinBalance(t, u.user.id, USDT)).toEqual({ available: '5988', frozen: '0' });
    // Its request and one record (the money is the sequencer's journaled command, projected as ledger entries).
    expect(await streamOf(q.quote_id)).toEqual(['FlashRequested', 'FlashExchanged']);
    const [{ legs }] = await t.ds.query(`SELECT COUNT(*)::int AS legs FROM ledger_entries WHERE ref_type = 'flash' AND ref_id = $1`, [q.quote_id]);
    expect(legs).toBe(4);
  });

  // Regression: the late one looked before the first's record committed, and read the quote after the first had
  // deleted it: it answered 2213 "quote expired" for a conversion that went through.
  it('a convert that looked before a concurrent one committed, and found its quote used up, answers with that one', async () => {
    const u = await trader();
    await deposit(t, u.user.id, BTC, '0.5');
    const q = (await post(u.token, 'quote', { from_currency_id: BTC, to_currency_id: USDT, amount: '0.1' })).body.data;
    const flash = t.app.get(FlashExchangeService);
    expect((await flash.convert(u.user.id, q.quote_id)).duplicate).toBe(false);
    expect(await t.app.get<Redis>(REDIS).get(`fpjy:quote:${q.quote_id}`)).toBeNull();
    jest.spyOn(flash as unknown as { converted: () => Promise<undefined> }, 'converted').mockResolvedValueOnce(undefined);
    expect(await flash.convert(u.user.id, q.quote_id)).toMatchObject({ duplicate: true, quote_id: q.quote_id, receive: '5988' });
    expect(await coinBalance(t, u.user.id, USDT)).toEqual({ available: '5988', frozen: '0' });
    expect(await streamOf(q.quote_id)).toEqual(['FlashRequested', 'FlashExchanged']);
  });

  /** The event types of a conversion's stream, in order. */
  const streamOf = async (quoteId: string): Promise<string[]> =>
    ((await t.ds.query(`SELECT type FROM events WHERE stream_id = $1 ORDER BY stream_version`, [`flash:${quoteId}`])) as Array<{ type: string }>).map(
      (r) => r.type,
    );

  /** A user whose conversion of 0.1 BTC went through but whose process "stopped" before the record was written. */
  async function unrecordedConversion() {
    const u = await trader();
    await deposit(t, u.user.id, BTC, '0.5');
    const q = (await post(u.token, 'quote', { from_currency_id: BTC, to_currency_id: USDT, amount: '0.1' })).body.data;
    const flash = t.app.get(FlashExchangeService);
    jest.spyOn(flash as unknown as { record: () => Promise<void> }, 'record').mockRejectedValueOnce(new Error('process stopped'));
    await expect(flash.convert(u.user.id, q.quote_id)).rejects.toThrow('process stopped');
    return { u, q };
  }

  it('a retry after the process stopped between the conversion and its record converts nothing more and records it once', async () => {
    const { u, q } = await unrecordedConversion();
    const again = await post(u.token, 'convert', { quote_id: q.quote_id });
    expect(again.body).toMatchObject({ code: 1, data: { quote_id: q.quote_id, receive: '5988', duplicate: true } });
    expect(await coinBalance(t, u.user.id, USDT)).toEqual({ available: '5988', frozen: '0' });
    expect(await streamOf(q.quote_id)).toEqual(['FlashRequested', 'FlashExchanged']);
    expect((await t.http().get('/api/fpjy/list').set('Authorization', u.token)).body.data.items).toEqual([expect.objectContaining({ quote_id: q.quote_id })]);
  });

  it('a conversion left unrecorded that nobody retries is recorded by the sweep, once, also beside a late retry', async () => {
    const flash = t.app.get(FlashExchangeService);
    const { u, q } = await unrecordedConversion();
    expect(await streamOf(q.quote_id)).toEqual(['FlashRequested']);
    // Younger than the sweep's age: the request's own to record.
    expect(await flash.recordLeftovers()).toBe(0);
    // The sweep and a late retry at the same moment: one record.
    const [swept, retry] = await Promise.all([flash.recordLeftovers(0), post(u.token, 'convert', { quote_id: q.quote_id })]);
    expect(swept).toBeLessThanOrEqual(1); // 0 when the retry recorded it first
    expect(retry.body).toMatchObject({ code: 1, data: { duplicate: true } });
    expect(await streamOf(q.quote_id)).toEqual(['FlashRequested', 'FlashExchanged']);

    // No retry at all: the sweep records it from the request's quote.
    const other = await unrecordedConversion();
    await t.app.get<Redis>(REDIS).del(`fpjy:quote:${other.q.quote_id}`); // past the hour the quote is kept
    expect(await flash.recordLeftovers(0)).toBe(1);
    expect(await flash.recordLeftovers(0)).toBe(0);
    expect((await t.http().get('/api/fpjy/list').set('Authorization', other.u.token)).body.data.items).toEqual([
      expect.objectContaining({ quote_id: other.q.quote_id, amount: '0.1', receive: '5988', fee: '12', rate: '60000' }),
    ]);
    expect(await coinBalance(t, other.u.user.id, USDT)).toEqual({ available: '5988', frozen: '0' });
  });

  it('a refused conversion ends with its refusal, and one whose command was never applied is not recorded', async () => {
    const flash = t.app.get(FlashExchangeService);
    const u = await trader();
    await deposit(t, u.user.id, USDT, '100');
    const tooMuch = (await post(u.token, 'quote', { from_currency_id: USDT, to_currency_id: BTC, amount: '1000' })).body.data;
    expect((await post(u.token, 'convert', { quote_id: tooMuch.quote_id })).body.code).toBe(2000);
    expect(await streamOf(tooMuch.quote_id)).toEqual(['FlashRequested', 'FlashRefused']);
    // A request whose command never reached the sequencer (the process stopped in between).
    const q = (await post(u.token, 'quote', { from_currency_id: USDT, to_currency_id: BTC, amount: '60' })).body.data;
    jest.spyOn(t.app.get(TradeAccountCommands), 'post').mockRejectedValueOnce(new Error('process stopped'));
    await expect(flash.convert(u.user.id, q.quote_id)).rejects.toThrow('process stopped');
    expect(await flash.recordLeftovers(0)).toBe(0);
    expect(await streamOf(q.quote_id)).toEqual(['FlashRequested']);
    expect((await t.http().get('/api/fpjy/list').set('Authorization', u.token)).body.data.items).toEqual([]);
    expect(await coinBalance(t, u.user.id, USDT)).toEqual({ available: '100', frozen: '0' });
  });

  // Regression: the quote's end was checked only before the command left; one that reached the sequencer
  // later (a forward past its timeout answered 2107, a stalled journal write) converted at the old price.
  it('a conversion whose command reaches the sequencer after its quote ended converts nothing and ends refused (2213)', async () => {
    const u = await trader();
    await deposit(t, u.user.id, BTC, '0.5');
    const q = (await post(u.token, 'quote', { from_currency_id: BTC, to_currency_id: USDT, amount: '0.1' })).body.data;
    const host = t.app.get(EngineHost);
    const submit = host.submit.bind(host);
    jest.spyOn(host, 'submit').mockImplementationOnce(async (cmd) => {
      await new Promise((r) => setTimeout(r, 2200)); // on its way past the quote's 2 s
      return submit(cmd);
    });
    expect((await post(u.token, 'convert', { quote_id: q.quote_id })).body).toMatchObject({ code: 2213 });
    expect(await streamOf(q.quote_id)).toEqual(['FlashRequested', 'FlashRefused']);
    expect(await coinBalance(t, u.user.id, BTC)).toEqual({ available: '0.5', frozen: '0' });
    expect(await coinBalance(t, u.user.id, USDT)).toEqual({ available: '0', frozen: '0' });
    // Its retry hears the same, and nothing is listed.
    expect((await post(u.token, 'convert', { quote_id: q.quote_id })).body.code).toBe(2213);
    expect((await t.http().get('/api/fpjy/list').set('Authorization', u.token)).body.data.items).toEqual([]);
  });

  it('on a process without the sequencer (ROLE=api) a user short of the amount hears 2000, not the desk’s 2214 (regression: the desk read as empty there)', async () => {
    const u = await trader();
    await deposit(t, u.user.id, USDT, '100');
    const tooMuch = (await post(u.token, 'quote', { from_currency_id: USDT, to_currency_id: BTC, amount: '1000' })).body.data;
    const host = t.app.get(EngineHost);
    const owner = jest.spyOn(host, 'owner', 'get').mockReturnValue(false);
    const balance = jest.spyOn(host, 'balance').mockReturnValue(undefined);
    try {
      expect((await post(u.token, 'convert', { quote_id: tooMuch.quote_id })).body).toMatchObject({ code: 2000, message: 'Insufficient balance' });
    } finally {
      owner.mockRestore();
      balance.mockRestore();
    }
  });

  it('a conversion left unrecorded is recorded by its retry after the quote expired; an expired quote never converted stays refused', async () => {
    const { u, q } = await unrecordedConversion();
    const never = (await post(u.token, 'quote', { from_currency_id: BTC, to_currency_id: USDT, amount: '0.1' })).body.data;
    await new Promise((r) => setTimeout(r, 2200)); // both quotes expire (2 s here)
    expect((await post(u.token, 'convert', { quote_id: q.quote_id })).body).toMatchObject({
      code: 1,
      data: { quote_id: q.quote_id, receive: '5988', duplicate: true },
    });
    expect((await post(u.token, 'convert', { quote_id: never.quote_id })).body.code).toBe(2213);
    expect(await coinBalance(t, u.user.id, USDT)).toEqual({ available: '5988', frozen: '0' });
    expect(await coinBalance(t, u.user.id, BTC)).toEqual({ available: '0.4', frozen: '0' });
    expect((await t.http().get('/api/fpjy/list').set('Authorization', u.token)).body.data.items).toEqual([expect.objectContaining({ quote_id: q.quote_id })]);
  });

  it('converts only between the desk’s coins: a coin whose price two accounts print cannot be flashed against the float (regression: sold at their price)', async () => {
    // A coin listed later (no desk float), and two colluding accounts printing one tiny trade at an absurd price.
    const [{ id: PUMP }] = await t.ds.query(
      `INSERT INTO coins (id, symbol, name, display_decimals, sort) SELECT MAX(id) + 1, 'PUMP', 'Pump', 8, 99 FROM coins RETURNING id`,
    );
    await t.ds.query(
      `INSERT INTO markets (symbol, base_currency_id, quote_currency_id, tick_size, lot_size, min_qty, maker_fee, taker_fee, sort)
       VALUES ('PUMP/USDT', $1, $2, '0.01', '0.01', '0.01', '0', '0', 99)`,
      [PUMP, USDT],
    );
    await t.app.get(EngineHost).marketsChanged();
    const [a, b] = [await trader(), await trader()];
    await deposit(t, a.user.id, PUMP, '10');
    await deposit(t, b.user.id, USDT, '10000');
    const order = (token: string, side: string) =>
      t
        .http()
        .post('/api/coin/trade')
        .set('Authorization', token)
        .type('form')
        .send({ symbol: 'PUMP/USDT', side, type: 'limit', price: '1000000', quantity: '0.01' });
    expect((await order(a.token, 'sell')).body.code).toBe(1);
    expect((await order(b.token, 'buy')).body.data.status).toBe('completed');
    await t.app.get(EngineHost).idle();
    // 1 PUMP would have been 998,000 USDT from the desk: refused both ways, nothing kept.
    expect((await post(a.token, 'quote', { from_currency_id: PUMP, to_currency_id: USDT, amount: '1' })).body.code).toBe(2214);
    expect((await post(b.token, 'quote', { from_currency_id: USDT, to_currency_id: PUMP, amount: '10' })).body.code).toBe(2214);
    expect((await post(a.token, 'quote', { from_currency_id: PUMP, to_currency_id: BTC, amount: '1' })).body.code).toBe(2214);
    expect(await coinBalance(t, a.user.id, USDT)).toEqual({ available: '10000', frozen: '0' });
    // The flash page offers the desk's coins only (fpjy/coins): not PUMP.
    const listed = (await t.http().get('/api/fpjy/coins').set('Authorization', a.token)).body.data as Array<{ currency_id: number; symbol: string }>;
    expect(listed.map((c) => c.symbol).sort()).toEqual(['BTC', 'ETH', 'USDT']);
    expect(listed.find((c) => c.symbol === 'BTC')?.currency_id).toBe(BTC);
  });

  it('quotes only at an enabled market’s last trade of at most FLASH_MAX_PRICE_AGE_SECONDS; a fresh one quotes as before', async () => {
    const u = await trader();
    const quote = () => post(u.token, 'quote', { from_currency_id: BTC, to_currency_id: USDT, amount: '0.1' });
    // A disabled market's last trade is no price (regression: quoted for ever).
    await t.ds.query(`UPDATE markets SET enabled = false WHERE symbol = 'BTC/USDT'`);
    try {
      expect((await quote()).body).toMatchObject({ code: 2211, message: 'BTC has no market price yet. Please try again later' });
    } finally {
      await t.ds.query(`UPDATE markets SET enabled = true WHERE symbol = 'BTC/USDT'`);
    }
    // A last trade older than the limit is no price either.
    const maxAge = t.config.flashMaxPriceAgeSeconds;
    t.config.flashMaxPriceAgeSeconds = 1;
    try {
      await new Promise((r) => setTimeout(r, 1100));
      expect((await quote()).body.code).toBe(2211);
      expect((await post(u.token, 'quote', { from_currency_id: USDT, to_currency_id: BTC, amount: '60' })).body.code).toBe(2211);
    } finally {
      t.config.flashMaxPriceAgeSeconds = maxAge;
    }
    expect((await quote()).body).toMatchObject({ code: 1, data: { rate: '60000', fee: '12', receive: '5988' } });
  });

  it('refuses with 1000 an amount whose conversion the sequencer could not post (more than 18 integer digits), and records nothing (regression: 9000)', async () => {
    const u = await trader();
    await deposit(t, u.user.id, BTC, '1');
    // 10^18 − 1 BTC at 60,000: what it receives has 23 integer digits.
    const huge = (await post(u.token, 'quote', { from_currency_id: BTC, to_currency_id: USDT, amount: '999999999999999999' })).body;
    expect(huge.code).toBe(1000);
    // An amount past 18 integer digits reaching the service directly: the same refusal.
    await expect(t.app.get(FlashExchangeService).quote(u.user.id, USDT, BTC, '1'.padEnd(20, '0'))).rejects.toMatchObject({
      code: 1000,
      messageKey: 'error.amount_invalid',
    });
    const [{ n }] = await t.ds.query(`SELECT COUNT(*)::int AS n FROM events WHERE type LIKE 'Flash%' AND (payload->>'user_id')::int = $1`, [u.user.id]);
    expect(n).toBe(0);
    expect(await coinBalance(t, u.user.id, BTC)).toEqual({ available: '1', frozen: '0' });
  });

  it('refuses what it cannot honestly price or pay, and expired or foreign quotes', async () => {
    // No fund password yet: 2100 (spec §6: a fund password before trading).
    const newcomer = await registerByEmail(t);
    await deposit(t, newcomer.user.id, USDT, '100');
    expect((await post(newcomer.token, 'quote', { from_currency_id: USDT, to_currency_id: BTC, amount: '60' })).body).toMatchObject({
      code: 2100,
      message: 'Set the fund password first for fund safety',
    });
    const u = await trader();
    await deposit(t, u.user.id, USDT, '100');
    expect((await post(u.token, 'quote', { from_currency_id: USDT, to_currency_id: ETH, amount: '10' })).body).toMatchObject({
      code: 2211,
      message: 'ETH has no market price yet. Please try again later',
    });
    expect((await post(u.token, 'quote', { from_currency_id: USDT, to_currency_id: USDT, amount: '10' })).body.message).toBe('Choose two different coins');
    expect((await post(u.token, 'quote', { from_currency_id: USDT, to_currency_id: BTC })).body.message).toBe('Amount cannot be empty');

    const tooMuch = (await post(u.token, 'quote', { from_currency_id: USDT, to_currency_id: BTC, amount: '1000' })).body.data;
    expect((await post(u.token, 'convert', { quote_id: tooMuch.quote_id })).body).toMatchObject({ code: 2000, message: 'Insufficient balance' });
    // Its retry hears the same refusal (regression: the sequencer's "already done" answered it as converted).
    expect((await post(u.token, 'convert', { quote_id: tooMuch.quote_id })).body).toMatchObject({ code: 2000, message: 'Insufficient balance' });

    const q = (await post(u.token, 'quote', { from_currency_id: USDT, to_currency_id: BTC, amount: '60' })).body.data;
    expect(q.receive).toBe('0.000998'); // 60 / 60000 = 0.001, less 0.2% (truncated to 8 places)
    const other = await trader();
    expect((await post(other.token, 'convert', { quote_id: q.quote_id })).body).toMatchObject({
      code: 2213,
      message: 'The quote has expired. Please get a new one',
    });
    const late = (await post(u.token, 'quote', { from_currency_id: USDT, to_currency_id: BTC, amount: '60' })).body.data;
    await new Promise((r) => setTimeout(r, 2200));
    expect((await post(u.token, 'convert', { quote_id: late.quote_id })).body.code).toBe(2213);
    expect(await coinBalance(t, u.user.id, USDT)).toEqual({ available: '100', frozen: '0' });

    // The desk cannot pay more than its float: refused, nothing moves.
    const whale = await trader();
    await deposit(t, whale.user.id, USDT, '900000');
    const big = (await post(whale.token, 'quote', { from_currency_id: USDT, to_currency_id: BTC, amount: '900000' })).body.data;
    expect((await post(whale.token, 'convert', { quote_id: big.quote_id })).body.code).toBe(2214);
    expect(await coinBalance(t, whale.user.id, USDT)).toEqual({ available: '900000', frozen: '0' });
  });

  // Last in the file: it prints BTC trades away from 60,000 (and back), which the tests before read as BTC's only price.
  it('a trade printed away from where the market stood never prices the float in the user’s favour: the worse of the last trade and the reference; far from it, no quote (regression: the desk paid its float at any last trade)', async () => {
    const [a, b] = [await trader(), await trader()];
    await deposit(t, a.user.id, USDT, '1000');
    await deposit(t, b.user.id, BTC, '1');
    const print = async (price: string) => {
      const order = (token: string, side: string) =>
        t.http().post('/api/coin/trade').set('Authorization', token).type('form').send({ symbol: 'BTC/USDT', side, type: 'limit', price, quantity: '0.001' });
      expect((await order(a.token, 'buy')).body.code).toBe(1);
      expect((await order(b.token, 'sell')).body.data.status).toBe('completed');
      await t.app.get(TradeAccountCommands).settled(b.user.id);
    };
    const quote = (from: number, to: number, amount: string) => post(a.token, 'quote', { from_currency_id: from, to_currency_id: to, amount });
    // 60,000 stood until now; the two accounts print 59,000 (within FLASH_MAX_DEVIATION, 2%).
    await new Promise((r) => setTimeout(r, 1000));
    await print('59000');
    // Buying BTC from the desk: at the higher of 59,000 and 60,000 (at the print, 60 USDT would have bought 0.00101694 less the fee).
    expect((await quote(USDT, BTC, '60')).body).toMatchObject({ code: 1, data: { receive: '0.000998' } });
    // Selling BTC to the desk: at the lower, the print's.
    expect((await quote(BTC, USDT, '0.1')).body).toMatchObject({ code: 1, data: { rate: '59000', receive: '5888.2' } });
    // A window the print has filled since (the price standing at its start counts from there): the print is the reference too.
    const window = t.config.flashReferenceSeconds;
    t.config.flashReferenceSeconds = 1;
    try {
      await new Promise((r) => setTimeout(r, 1100));
      expect((await quote(USDT, BTC, '59')).body).toMatchObject({ code: 1, data: { receive: '0.000998' } }); // at 60,000: 0.00098137
    } finally {
      t.config.flashReferenceSeconds = window;
    }
    // Half off: no quote either way until the market settles.
    await print('30000');
    for (const [from, to, amount] of [
      [USDT, BTC, '60'],
      [BTC, USDT, '0.1'],
    ] as const)
      expect((await quote(from, to, amount)).body).toMatchObject({ code: 2211, message: "BTC's price is moving too fast to quote. Please try again shortly" });
    // Back where it stood: quoted as before.
    await print('60000');
    expect((await quote(BTC, USDT, '0.1')).body).toMatchObject({ code: 1, data: { rate: '60000', receive: '5988' } });
  });
});
