import { uniquePng } from './support/images';
import { createHash, randomUUID } from 'node:crypto';
import { BusinessError } from '../src/infra/http/business-error';
import { ErrorCode } from '../src/infra/http/error-codes';
import { money } from '../src/infra/money';
import { EngineHost } from '../src/modules/engine/engine-host.service';
import { coinLeg, Posting, systemLeg, TradeAccountCommands } from '../src/modules/engine/trade-account-commands';
import { LedgerCode } from '../src/modules/ledger/ledger-codes';
import { TrialBalanceService } from '../src/modules/ledger/trial-balance.service';
import { adminToken, registerByEmail, setFundPassword } from './support/accounts';
import { coinBalance, deposit } from './support/funding';
import { brokenLedgerChains } from './support/ledger-chain';
import { ADMIN, startTestApp, TestApp } from './support/test-app';

const BTC = 1;
const USDT = 3;
const TRON2 = 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7';

/**
 * The sequencer refuses what the projector could never store, a posting reference longer than
 * ledger_entries.ref_id (regression: it applied it, the projector's write failed on it, and since
 * the journal replays the same way every time the projection stopped for good and every later
 * command answered 2105); and balances of 10^18 whole units or more, which numeric(36,18) could not
 * hold, are stored (the balance columns are unbounded) and the projection goes on.
 */
describe('postings the ledger cannot hold are refused, balances past 10^18 are held, and the projection goes on (real PostgreSQL + Redis)', () => {
  let t: TestApp;
  let admin: string;
  let trading: TradeAccountCommands;
  beforeAll(async () => {
    t = await startTestApp();
    trading = t.app.get(TradeAccountCommands);
    admin = await adminToken(t, ADMIN.email, ADMIN.password);
  });
  afterAll(() => t.close());
  afterEach(async () => {
    expect((await t.app.get(TrialBalanceService).compute()).ok).toBe(true);
    expect(await brokenLedgerChains(t.ds)).toEqual([]);
  });

  const post = (token: string, path: string, body: Record<string, unknown> = {}) =>
    t.http().post(`/api/${path}`).set('Authorization', token).type('form').send(body);
  /** A trade account → contract account transfer as wallet/change builds it, under this reference. */
  const toLever = (userId: number, refId: string): Posting => ({
    commandId: `test-transfer:${randomUUID()}`,
    refType: 'transfer',
    refId,
    actor: `user:${userId}`,
    memo: 'coin>lever',
    legs: [coinLeg(userId, USDT, LedgerCode.TransferDeduction, '-1'), { ...coinLeg(userId, USDT, LedgerCode.TransferIncrease, '1'), accountType: 'lever' }],
  });

  it('a reference longer than ledger_entries.ref_id (64) is refused with 1000 and moves nothing; one of 64 goes through', async () => {
    const u = await registerByEmail(t);
    await deposit(t, u.user.id, USDT, '10');
    const long = toLever(u.user.id, `${u.user.id}-${'x'.repeat(64)}`);
    expect((await trading.post(long)).code).toBe('UNSTORABLE');
    const err = await trading.postOrFail({ ...long, commandId: `${long.commandId}-2` }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BusinessError);
    expect(err).toMatchObject({ code: ErrorCode.VALIDATION });
    expect((await trading.post(toLever(u.user.id, 'y'.repeat(64)))).code).toBe('OK');
    // The projection goes on: a later credit is in the read tables.
    await deposit(t, u.user.id, USDT, '5');
    expect(await coinBalance(t, u.user.id, USDT)).toEqual({ available: '14', frozen: '0' });
  });

  it('wallet/change with a 64-character client id: done once under a reference that fits (a digest), a retry answers it, and the projection goes on', async () => {
    const u = await registerByEmail(t);
    await deposit(t, u.user.id, USDT, '10');
    const body = { from: 'coin', to: 'lever', currency_id: USDT, amount: '1', client_id: 'x'.repeat(64) };
    const r = await post(u.token, 'wallet/change', body);
    expect(r.body).toMatchObject({
      code: 1,
      data: { transfer_id: `${u.user.id}:${createHash('sha256').update('x'.repeat(64)).digest('base64url')}`, duplicate: false },
    });
    expect((await post(u.token, 'wallet/change', body)).body).toMatchObject({ code: 1, data: { transfer_id: r.body.data.transfer_id, duplicate: true } });
    await deposit(t, u.user.id, USDT, '5');
    expect(await coinBalance(t, u.user.id, USDT)).toEqual({ available: '14', frozen: '0' });
  });

  /** The operator CLI's funding (backend/src/cli/fund.ts): system funding (900) against the external account. */
  const fund = async (userId: number, currencyId: number, amount: string) => {
    const id = randomUUID();
    await trading.postOrFail({
      commandId: `cli-funding:${id}`,
      refType: 'system-funding',
      refId: id,
      actor: 'operator-cli:test',
      reason: 'float',
      legs: [coinLeg(userId, currencyId, LedgerCode.SystemFunding, amount), systemLeg('external', currencyId, LedgerCode.SystemFunding, `-${amount}`)],
    });
    await t.app.get(EngineHost).settledFor(userId);
  };
  /** An account's balance in the balance table, once everything submitted so far is projected. */
  const balance = async (ownerType: string, ownerId: number, account: string, currencyId: number) => {
    await t.app.get(EngineHost).idle();
    const [row] = await t.ds.query(
      `SELECT trim_scale(available)::text AS available, trim_scale(frozen)::text AS frozen FROM balances WHERE owner_type = $1 AND owner_id = $2 AND account_type = $3 AND currency_id = $4`,
      [ownerType, ownerId, account, currencyId],
    );
    return row as { available: string; frozen: string } | undefined;
  };
  /** A user's lines of the ledger (the view: entries, trade legs, order postings) in one currency, newest first, as wallet/log shows them. */
  const log = async (token: string, currencyId: number) =>
    (
      (await t.http().get('/api/wallet/log').set('Authorization', token).query({ currency_id: currencyId, limit: 20 })).body.data.items as Array<{
        code: number;
        account: string;
        balance_after: string;
      }>
    ).map((i) => [i.account, i.code, i.balance_after]);

  // Regression: a balance of 10^18 whole units or more could not be written to numeric(36,18) (balances, the ledger's
  // balances after), the projector failed on it at every replay and the projection stopped for good; a ceiling in the
  // sequencer (BALANCE_LIMIT) refused such credits instead, which stranded a credit from transit and left the
  // database's own accounts (external, lever, …) unprotected. The balance columns are unbounded now.
  it('a trade account past 10^18 whole units (two large credits) is projected, trades and rests an order from there, and reads back exactly; a later deposit is projected', async () => {
    const [a, b] = [await registerByEmail(t), await registerByEmail(t)];
    for (const u of [a, b]) await setFundPassword(t, u);
    await deposit(t, a.user.id, USDT, '600000000000000000');
    await deposit(t, a.user.id, USDT, '600000000000000000.25');
    expect(await coinBalance(t, a.user.id, USDT)).toEqual({ available: '1200000000000000000.25', frozen: '0' });
    // A trade (its row keeps each side's balances after) and a resting order (its row keeps the freeze's).
    await deposit(t, b.user.id, BTC, '1');
    const order = (token: string, body: Record<string, string>) => post(token, 'coin/trade', { symbol: 'BTC/USDT', type: 'limit', ...body });
    expect((await order(b.token, { side: 'sell', price: '60000', quantity: '0.5' })).body.code).toBe(1);
    expect((await order(a.token, { side: 'buy', price: '60000', quantity: '0.5' })).body.data).toMatchObject({ status: 'completed' });
    expect((await order(a.token, { side: 'buy', price: '50000', quantity: '0.1' })).body.data).toMatchObject({ status: 'waiting' });
    expect(await coinBalance(t, a.user.id, USDT)).toEqual({ available: '1199999999999965000.25', frozen: '5000' });
    expect(await coinBalance(t, b.user.id, USDT)).toEqual({ available: '29970', frozen: '0' });
    expect(await balance('system', 0, 'external', USDT)).toMatchObject({ available: expect.stringMatching(/^-1200000000000/) });
    await deposit(t, a.user.id, USDT, '1');
    expect(await coinBalance(t, a.user.id, USDT)).toEqual({ available: '1199999999999965001.25', frozen: '5000' });
    // Newest first, each with the account's total after it: the deposit, the resting order's freeze, the trade's 600
    // (from frozen), the buy's freeze, the deposits.
    expect(await log(a.token, USDT)).toEqual([
      ['coin', 200, '1199999999999970001.25'],
      ['coin', 901, '1199999999999970000.25'],
      ['coin', 600, '1199999999999970000.25'],
      ['coin', 901, '1200000000000000000.25'],
      ['coin', 200, '1200000000000000000.25'],
      ['coin', 200, '600000000000000000'],
    ]);
    // The freezes' and the trade's balances after, kept in the orders' and the trade's rows.
    const after = await t.ds.query(
      `SELECT code, trim_scale(available_after)::text AS a, trim_scale(frozen_after)::text AS f FROM ledger
       WHERE owner_id = $1 AND currency_id = $2 AND code IN (600, 901) ORDER BY id`,
      [a.user.id, USDT],
    );
    expect(after).toEqual([
      { code: 901, a: '1199999999999970000.25', f: '30000' },
      { code: 600, a: '1199999999999970000.25', f: '0' },
      { code: 901, a: '1199999999999965000.25', f: '5000' },
    ]);
  });

  it('9e17 funded (as the operator CLI does), moved to the contract account and funded again, taking external to −1.8e18 (no check of the sequencer’s saw it), is projected; a move back through transit into a trade account past 10^18 is applied; a later deposit is projected', async () => {
    const u = await registerByEmail(t);
    const nine = '900000000000000000';
    // The contract account holds USDT only.
    await fund(u.user.id, USDT, '1');
    const external = money((await balance('system', 0, 'external', USDT))!.available);
    const transit = (await balance('system', 0, 'transit', USDT)) ?? { available: '0', frozen: '0' };
    await fund(u.user.id, USDT, nine);
    expect((await post(u.token, 'wallet/change', { from: 'coin', to: 'lever', currency_id: USDT, amount: nine })).body.code).toBe(1);
    await fund(u.user.id, USDT, nine);
    expect(await balance('system', 0, 'external', USDT)).toEqual({ available: external.minus('1800000000000000000').toFixed(), frozen: '0' });
    expect(await balance('user', u.user.id, 'lever', USDT)).toEqual({ available: nine, frozen: '0' });
    expect(await coinBalance(t, u.user.id, USDT)).toEqual({ available: '900000000000000001', frozen: '0' });
    // Into the trade account from lever: lever → transit in the database, then transit → coin by the sequencer, which
    // never refuses such a credit (a refusal left it in transit: nothing sends it back).
    expect((await post(u.token, 'wallet/change', { from: 'lever', to: 'coin', currency_id: USDT, amount: nine })).body.code).toBe(1);
    expect(await coinBalance(t, u.user.id, USDT)).toEqual({ available: '1800000000000000001', frozen: '0' });
    expect(await balance('user', u.user.id, 'lever', USDT)).toEqual({ available: '0', frozen: '0' });
    expect(await balance('system', 0, 'transit', USDT)).toEqual(transit);
    await fund(u.user.id, USDT, '2');
    expect(await coinBalance(t, u.user.id, USDT)).toEqual({ available: '1800000000000000003', frozen: '0' });
    expect(await balance('system', 0, 'external', USDT)).toEqual({ available: external.minus('1800000000000000002').toFixed(), frozen: '0' });
    expect((await log(u.token, USDT)).slice(0, 5)).toEqual([
      ['coin', 900, '1800000000000000003'],
      ['coin', 503, '1800000000000000001'],
      ['lever', 502, '0'],
      ['coin', 900, '900000000000000001'],
      ['lever', 503, nine],
    ]);
  });

  it('a deposit report past 15 integer digits is refused; an approval taking the trade account past 10^18 is credited, and the projection goes on', async () => {
    const chains = (await t.http().get('/api/admin/coins').set('Authorization', admin)).body.data.find(
      (c: { currency_id: number }) => c.currency_id === USDT,
    ).chains;
    const trc = chains.find((c: { chain: string }) => c.chain === 'TRC20');
    expect((await post(admin, `admin/chains/${trc.id}`, { deposit_address: TRON2, reason: 'hot wallet' })).body.code).toBe(1);
    const u = await registerByEmail(t);
    await deposit(t, u.user.id, USDT, '999999999999999999');
    const image = (
      await t
        .http()
        .post('/api/upload/image')
        .set('Authorization', u.token)
        .attach('file', uniquePng(4, 4), { filename: 'proof.png', contentType: 'image/png' })
    ).body.data.id;
    const tooLong = await post(u.token, 'wallet/charge_req', { currency_id: USDT, chain: 'TRC20', amount: '1000000000000000', image_id: image });
    expect(tooLong.body).toMatchObject({ type: 'error', code: 1000 });
    const req = await post(u.token, 'wallet/charge_req', { currency_id: USDT, chain: 'TRC20', amount: '999999999999999.5', image_id: image });
    expect(req.body.code).toBe(1);

    const r = await post(admin, `admin/deposits/${req.body.data.deposit_id}/approve`, { reason: 'tx seen on chain' });
    expect(r.body).toMatchObject({ type: 'ok', code: 1 });
    expect(await coinBalance(t, u.user.id, USDT)).toEqual({ available: '1000999999999999998.5', frozen: '0' });
    await deposit(t, u.user.id, USDT, '2');
    expect(await coinBalance(t, u.user.id, USDT)).toEqual({ available: '1001000000000000000.5', frozen: '0' });
  });

  // Regression: after an outage longer than the sequencer's dedup window (24 h of batch time), its first new batch
  // forgets the ids it recovered, and a posting's projected result may not be there yet while the projector catches
  // up: a retry then applied again. Postings wait for the catch-up (2105, try again); their callers retry by id.
  it('while the sequencer catches up with what it recovered, a posting is refused with 2105 and moves nothing', async () => {
    const host = t.app.get(EngineHost) as unknown as { catchingUp: boolean; serveRequest(req: object): Promise<unknown> };
    const u = await registerByEmail(t);
    const posting: Posting = {
      commandId: `catch-up-${randomUUID()}`,
      refType: 'deposit',
      refId: 'catch-up',
      actor: 'test',
      legs: [coinLeg(u.user.id, USDT, LedgerCode.DepositIncrease, '5'), systemLeg('external', USDT, LedgerCode.DepositIncrease, '-5')],
    };
    host.catchingUp = true;
    try {
      await expect(trading.post(posting)).rejects.toMatchObject({ code: ErrorCode.MARKET_BUSY });
      // Forwarded by another process (split roles) the same.
      await expect(host.serveRequest({ id: 'r', reply: '', cmd: { t: 'post', ...posting } })).rejects.toMatchObject({ code: ErrorCode.MARKET_BUSY });
    } finally {
      host.catchingUp = false;
    }
    expect(await coinBalance(t, u.user.id, USDT)).toEqual({ available: '0', frozen: '0' });
    expect((await trading.post(posting)).code).toBe('OK');
    await trading.settled(u.user.id);
    expect(await coinBalance(t, u.user.id, USDT)).toEqual({ available: '5', frozen: '0' });
  });
});
