import { PNG } from 'pngjs';
import Decimal from 'decimal.js';
import { createHash, randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { BusinessError } from '../src/infra/http/business-error';
import { ErrorCode } from '../src/infra/http/error-codes';
import { SEQUENCER_ACCOUNT_TYPES } from '../src/modules/engine/sequencer/balances';
import { coinLeg, Posting, TradeAccountCommands } from '../src/modules/engine/trade-account-commands';
import { LedgerCode } from '../src/modules/ledger/ledger-codes';
import { TrialBalanceService } from '../src/modules/ledger/trial-balance.service';
import { adminToken, registerByEmail } from './support/accounts';
import { coinBalance, deposit } from './support/funding';
import { ADMIN, startTestApp, TestApp } from './support/test-app';

const ETH = 2;
const USDT = 3;
const TRON2 = 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7';

/**
 * The sequencer refuses what the projector could never store (regressions: it applied them, the
 * projector's write failed on them, and since the journal replays the same way every time the
 * projection stopped for good and every later command answered 2105): a posting reference longer
 * than ledger_entries.ref_id, and a balance at 10^18 whole units (numeric(36,18) holds less).
 */
describe('postings the ledger cannot hold are refused, and the projection goes on (real PostgreSQL + Redis)', () => {
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

  it('a credit that would take a currency to 10^18 whole units is refused with "The amount is too large" and changes nothing', async () => {
    const [a, b] = [await registerByEmail(t), await registerByEmail(t)];
    await deposit(t, a.user.id, ETH, '600000000000000000');
    for (const userId of [a.user.id, b.user.id]) {
      const err = await deposit(t, userId, ETH, '600000000000000000').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BusinessError);
      expect(err).toMatchObject({ code: ErrorCode.VALIDATION, messageKey: 'error.amount_too_large' });
    }
    await deposit(t, b.user.id, ETH, '1');
    expect(await coinBalance(t, a.user.id, ETH)).toEqual({ available: '600000000000000000', frozen: '0' });
    expect(await coinBalance(t, b.user.id, ETH)).toEqual({ available: '1', frozen: '0' });
  });

  it('a deposit report past 15 integer digits is refused; an approval that would take the coin to 10^18 is refused clearly, no credit, and the projection goes on', async () => {
    const chains = (await t.http().get('/api/admin/coins').set('Authorization', admin)).body.data.find(
      (c: { currency_id: number }) => c.currency_id === USDT,
    ).chains;
    const trc = chains.find((c: { chain: string }) => c.chain === 'TRC20');
    expect((await post(admin, `admin/chains/${trc.id}`, { deposit_address: TRON2, reason: 'hot wallet' })).body.code).toBe(1);
    const u = await registerByEmail(t);
    // The USDT in the sequencer's accounts (all projected: `deposit` waits) made up to 999,999,999,999,999,000 by this user's: 10^15 more reach 10^18.
    const held = (
      await t.app
        .get(DataSource)
        .query(`SELECT COALESCE(sum(available + frozen), 0)::text AS s FROM balances WHERE currency_id = $1 AND account_type = ANY($2)`, [
          USDT,
          [...SEQUENCER_ACCOUNT_TYPES],
        ])
    )[0].s as string;
    await deposit(t, u.user.id, USDT, new Decimal('999999999999999000').minus(held).toFixed());
    const start = await coinBalance(t, u.user.id, USDT);
    const png = new PNG({ width: 4, height: 4 });
    png.data.fill(200);
    const image = (
      await t
        .http()
        .post('/api/upload/image')
        .set('Authorization', u.token)
        .attach('file', PNG.sync.write(png), { filename: 'proof.png', contentType: 'image/png' })
    ).body.data.id;
    const tooLong = await post(u.token, 'wallet/charge_req', { currency_id: USDT, chain: 'TRC20', amount: '1000000000000000', image_id: image });
    expect(tooLong.body).toMatchObject({ type: 'error', code: 1000 });
    const req = await post(u.token, 'wallet/charge_req', { currency_id: USDT, chain: 'TRC20', amount: '999999999999999', image_id: image });
    expect(req.body.code).toBe(1);

    const r = await post(admin, `admin/deposits/${req.body.data.deposit_id}/approve`, { reason: 'tx seen on chain' });
    expect(r.body).toMatchObject({ type: 'error', code: 1000, message: 'The amount is too large' });
    expect(await coinBalance(t, u.user.id, USDT)).toEqual(start);
    await deposit(t, u.user.id, USDT, '2');
    expect(await coinBalance(t, u.user.id, USDT)).toEqual({ available: new Decimal(start.available).plus(2).toFixed(), frozen: '0' });
  });
});
