import { randomUUID } from 'node:crypto';
import { EngineHost } from '../src/modules/engine/engine-host.service';
import { OutboxRelay } from '../src/modules/engine/outbox-relay.service';
import { LedgerCode, SYSTEM_OWNER_ID } from '../src/modules/ledger/ledger-codes';
import { LedgerService, type Posting } from '../src/modules/ledger/ledger.service';
import { TrialBalanceService } from '../src/modules/ledger/trial-balance.service';
import { RebateService } from '../src/modules/promotion/rebate.service';
import { adminToken, registerByEmail, setFundPassword, uniqueEmail } from './support/accounts';
import { coinBalance, deposit } from './support/funding';
import { inOpenTransaction } from './support/open-transaction';
import { ADMIN, startTestApp, TestApp } from './support/test-app';

const BTC = 1;
const USDT = 3;

/**
 * Referral promotion on real PostgreSQL + Redis: invite codes, rebates from invitees' fees as
 * ledger events (905) paid exactly once by the settlement (the BullMQ worker is off: each run is
 * the test's own), partners, ranking, masking and bad input.
 */
describe('referral promotion and rebates (real PostgreSQL + Redis)', () => {
  let t: TestApp;
  let admin: string;
  let rebates: RebateService;
  beforeAll(async () => {
    t = await startTestApp({ optionWorker: false });
    admin = await adminToken(t, ADMIN.email, ADMIN.password);
    rebates = t.app.get(RebateService);
  });
  afterAll(() => t.close());
  afterEach(async () => {
    await t.app.get(EngineHost).idle();
    const tb = await t.app.get(TrialBalanceService).compute();
    expect(tb.currencies.filter((c) => !c.balanced)).toEqual([]);
  });

  const get = (path: string, token: string, query: Record<string, unknown> = {}) => t.http().get(`/api/${path}`).set('Authorization', token).query(query);
  /** The spec's POST calls (user/invite_list, user/myInvite, user/my_account_return): the fields form-encoded. */
  const post = (path: string, token: string, body: Record<string, unknown> = {}) =>
    t.http().post(`/api/${path}`).set('Authorization', token).type('form').send(body);
  const order = (token: string, body: Record<string, string>) =>
    t
      .http()
      .post('/api/coin/trade')
      .set('Authorization', token)
      .type('form')
      .send({ symbol: 'BTC/USDT', type: 'limit', ...body });
  const run = async () => {
    await rebates.accrue();
    await rebates.settle(new Date(Date.now() + 1000));
  };
  /** The invitee sells 0.5 BTC at 60000 to a stranger: the invitee pays 30 USDT of fees (0.1 %). */
  async function inviteeSells(invitee: { token: string; user: { id: number } }) {
    const buyer = await registerByEmail(t);
    await setFundPassword(t, buyer);
    await deposit(t, buyer.user.id, USDT, '30000');
    await deposit(t, invitee.user.id, BTC, '0.5');
    expect((await order(invitee.token, { side: 'sell', price: '60000', quantity: '0.5' })).body.code).toBe(1);
    expect((await order(buyer.token, { side: 'buy', price: '60000', quantity: '0.5' })).body.data.status).toBe('completed');
    await t.app.get(EngineHost).idle();
    const [fee] = await t.ds.query(
      `SELECT trim_scale(-available_delta)::text AS fee FROM ledger WHERE owner_type = 'user' AND owner_id = $1 AND code = 601 ORDER BY id DESC LIMIT 1`,
      [invitee.user.id],
    );
    return fee.fee as string;
  }
  /** A contract fee exactly as the contract service writes it: the user's lever account → fees, code 21. */
  const contractFee = (userId: number, id: string, fee: string): Posting => ({
    commandId: `lever-open:${id}`,
    refType: 'lever',
    refId: id,
    actor: `user:${userId}`,
    movements: [
      { ownerType: 'user', ownerId: userId, accountType: 'lever', currencyId: USDT, code: LedgerCode.LeverageFee, available: `-${fee}` },
      { ownerType: 'system', ownerId: SYSTEM_OWNER_ID, accountType: 'fees', currencyId: USDT, code: LedgerCode.LeverageFee, available: fee },
    ],
  });
  /** Moves USDT from the trade account to another of the user's accounts (`wallet/change`); the answer's code. */
  const fromTradeAccount = async (token: string, to: string, amount: string) =>
    (await t.http().post('/api/wallet/change').set('Authorization', token).type('form').send({ from: 'coin', to, currency_id: USDT, amount })).body
      .code as number;
  /** An inviter (`inviterEmail`: its masked account tells it apart in the ranking) and an invitee. */
  async function pair(inviterEmail = uniqueEmail()) {
    const inviter = await registerByEmail(t, inviterEmail);
    const invitee = await registerByEmail(t, uniqueEmail('friend'), 'secret-pass', { invite_code: inviter.user.invite_code });
    await setFundPassword(t, invitee);
    return { inviter, invitee };
  }

  it('a spot trade by an invitee credits the inviter exactly ratio × fee (905, from spot-fee), once, with the job run twice', async () => {
    const { inviter, invitee } = await pair();
    const before = await get('user/invite', inviter.token);
    expect(before.body).toMatchObject({
      code: 1,
      data: { invite_code: inviter.user.invite_code, ratio: '0.2', promoted_count: 1, total_rebate: '0', pending_rebate: '0', partner: false },
    });
    expect(before.body.data.link).toMatch(new RegExp(`/#/pages/user/login/register\\?code=${inviter.user.invite_code}$`));

    const fee = await inviteeSells(invitee);
    expect(fee).toBe('30');
    const houseBefore = await t.ds.query(
      `SELECT trim_scale(available)::text AS available FROM balances WHERE owner_type = 'system' AND account_type = 'spot-fee' AND currency_id = $1`,
      [USDT],
    );

    // Accrued: pending, not yet paid.
    await rebates.accrue();
    await rebates.accrue();
    const pending = (await get('user/invite', inviter.token)).body.data;
    expect(pending).toMatchObject({ total_rebate: '6', pending_rebate: '6' });
    expect(await coinBalance(t, inviter.user.id, USDT)).toEqual({ available: '0', frozen: '0' });

    // Two settlements at once, then two more runs: each rebate is paid once.
    await Promise.all([rebates.settle(new Date(Date.now() + 1000)), rebates.settle(new Date(Date.now() + 1000))]);
    await run();
    await t.app.get(EngineHost).idle();
    expect(await coinBalance(t, inviter.user.id, USDT)).toEqual({ available: '6', frozen: '0' });
    const entries = await t.ds.query(
      `SELECT owner_type, account_type, trim_scale(available_delta)::text AS d FROM ledger_entries WHERE code = 905 AND currency_id = $1 ORDER BY id`,
      [USDT],
    );
    expect(entries.filter((e: { owner_type: string }) => e.owner_type === 'user')).toEqual([{ owner_type: 'user', account_type: 'coin', d: '6' }]);
    const houseAfter = await t.ds.query(
      `SELECT trim_scale(available)::text AS available FROM balances WHERE owner_type = 'system' AND account_type = 'spot-fee' AND currency_id = $1`,
      [USDT],
    );
    expect(Number(houseBefore[0].available) - Number(houseAfter[0].available)).toBe(6);

    // One message for the settlement, in the notices.
    const messages = await t.ds.query(`SELECT title_key, params FROM user_messages WHERE user_id = $1`, [inviter.user.id]);
    expect(messages).toEqual([{ title_key: 'notice.rebate_paid', params: { amount: '6', coin: 'USDT' } }]);
    const after = (await get('user/invite', inviter.token)).body.data;
    expect(after).toMatchObject({ total_rebate: '6', pending_rebate: '0' });
    const records = (await post('user/my_account_return', inviter.token)).body.data;
    expect(records.total).toBe(1);
    expect(records.items[0]).toMatchObject({ kind: 'spot', currency: 'USDT', fee: '30', ratio: '0.2', amount: '6', status: 'paid' });
    expect(records.items[0].invitee).toMatch(/^fr\*\*\*@kestrel\.test$/);
    // The invitee earns nothing from their own fee and has no records.
    expect((await post('user/my_account_return', invitee.token)).body.data.total).toBe(0);
  });

  // A spot fee's leg is in its trade's row (the view `ledger`): the buyer's at ledger_id + 4, in the coin bought.
  it('an invitee who buys pays the fee in the coin bought: the rebate is in that coin and names the fee’s leg in the ledger', async () => {
    const { invitee } = await pair();
    const seller = await registerByEmail(t);
    await setFundPassword(t, seller);
    await deposit(t, seller.user.id, BTC, '0.5');
    await deposit(t, invitee.user.id, USDT, '30000');
    expect((await order(seller.token, { side: 'sell', price: '60000', quantity: '0.5' })).body.code).toBe(1);
    expect((await order(invitee.token, { side: 'buy', price: '60000', quantity: '0.5' })).body.data.status).toBe('completed');
    await t.app.get(EngineHost).idle();
    await rebates.accrue();
    await rebates.accrue();
    const rows = await t.ds.query(
      `SELECT source_entry::text, kind, currency_id, trim_scale(fee)::text AS fee, trim_scale(amount)::text AS amount FROM promotion_rebates WHERE invitee_id = $1`,
      [invitee.user.id],
    );
    expect(rows).toEqual([{ source_entry: expect.any(String), kind: 'spot', currency_id: BTC, fee: '0.0005', amount: '0.0001' }]);
    const legs = await t.ds.query(`SELECT owner_id, code, currency_id, trim_scale(-available_delta)::text AS fee FROM ledger WHERE id = $1`, [
      rows[0].source_entry,
    ]);
    expect(legs).toEqual([{ owner_id: invitee.user.id, code: 601, currency_id: BTC, fee: '0.0005' }]);
    const [{ ledger_id }] = await t.ds.query(`SELECT ledger_id::text FROM trades WHERE taker_user_id = $1`, [invitee.user.id]);
    expect(BigInt(rows[0].source_entry)).toBe(BigInt(ledger_id) + 4n);
  });

  it('a contract fee (21, in the fees account) is rebated via transit into the trade account; the partner flag changes the ratio', async () => {
    const { inviter, invitee } = await pair();
    // Partner (with a reason, an event): the ratio becomes 0.4 for fees accrued from now on.
    const bad = await t.http().post(`/api/admin/promotion/partners/${inviter.user.id}`).set('Authorization', admin).type('form').send({ partner: 'yes' });
    expect(bad.body.code).toBe(1000);
    const set = await t
      .http()
      .post(`/api/admin/promotion/partners/${inviter.user.id}`)
      .set('Authorization', admin)
      .type('form')
      .send({ partner: '1', reason: 'regional partner contract 12' });
    expect(set.body).toMatchObject({ code: 1, data: { partner: true } });
    expect(set.body.data.auth_code).toMatch(/^P[A-Z0-9]{7}$/);
    const [event] = await t.ds.query(`SELECT metadata FROM events WHERE type = 'PartnerStatusChanged' ORDER BY seq DESC LIMIT 1`);
    expect(event.metadata).toMatchObject({ reason: 'regional partner contract 12' });
    expect((await get('user/invite', inviter.token)).body.data).toMatchObject({ ratio: '0.4', partner: true });
    expect((await post('user/myInvite', invitee.token)).body.data).toMatchObject({ sub_account: true, partner: false, inviter: { partner: true } });

    // A contract fee exactly as the contract service writes it: lever account → fees, code 21.
    await deposit(t, invitee.user.id, USDT, '100');
    expect(await fromTradeAccount(invitee.token, 'lever', '100')).toBe(1);
    const id = randomUUID();
    await t.app.get(LedgerService).post(contractFee(invitee.user.id, id, '1.23456789'));
    await run();
    await run();
    await t.app.get(OutboxRelay).applied(`rebate:${(await t.ds.query(`SELECT max(id)::text AS id FROM promotion_rebates`))[0].id}`);
    // 1.23456789 × 0.4 = 0.493827156 → truncated to 8 decimals.
    expect(await coinBalance(t, inviter.user.id, USDT)).toEqual({ available: '0.49382715', frozen: '0' });
    const legs = await t.ds.query(
      `SELECT owner_type, account_type, trim_scale(available_delta)::text AS d FROM ledger_entries WHERE code = 905 AND ref_id = (SELECT max(id)::text FROM promotion_rebates) ORDER BY id`,
    );
    expect(legs).toEqual(
      expect.arrayContaining([
        { owner_type: 'system', account_type: 'fees', d: '-0.49382715' },
        { owner_type: 'system', account_type: 'transit', d: '0.49382715' },
        { owner_type: 'system', account_type: 'transit', d: '-0.49382715' },
        { owner_type: 'user', account_type: 'coin', d: '0.49382715' },
      ]),
    );
    expect(legs).toHaveLength(4);

    // An option fee (401, option account → fees) is rebated the same way.
    await deposit(t, invitee.user.id, USDT, '10');
    expect(await fromTradeAccount(invitee.token, 'option', '10')).toBe(1);
    await t.app.get(LedgerService).post({
      commandId: `option-buy:${id}`,
      refType: 'option',
      refId: id,
      actor: `user:${invitee.user.id}`,
      movements: [
        { ownerType: 'user', ownerId: invitee.user.id, accountType: 'option', currencyId: USDT, code: LedgerCode.EtfFee, available: '-0.5' },
        { ownerType: 'system', ownerId: SYSTEM_OWNER_ID, accountType: 'fees', currencyId: USDT, code: LedgerCode.EtfFee, available: '0.5' },
      ],
    });
    await run();
    await run();
    await t.app.get(OutboxRelay).applied(`rebate:${(await t.ds.query(`SELECT max(id)::text AS id FROM promotion_rebates`))[0].id}`);
    expect(await coinBalance(t, inviter.user.id, USDT)).toEqual({ available: '0.69382715', frozen: '0' });
    const kinds = (await post('user/my_account_return', inviter.token)).body.data.items.map((r: { kind: string; amount: string }) => [r.kind, r.amount]);
    expect(kinds).toEqual([
      ['option', '0.2'],
      ['contract', '0.49382715'],
    ]);

    // Partner off again: back to 0.2 for the next fee.
    await t
      .http()
      .post(`/api/admin/promotion/partners/${inviter.user.id}`)
      .set('Authorization', admin)
      .type('form')
      .send({ partner: '0', reason: 'contract ended' });
    expect((await get('user/invite', inviter.token)).body.data).toMatchObject({ ratio: '0.2', partner: false });
  });

  /**
   * An invitee's contract fee of 2 that takes its ledger id and commits only after `meanwhile` has
   * run (with its transaction open): returns the inviter's rebate once a last accrual has run.
   */
  async function lateFee(meanwhile: (inviterId: number) => Promise<void>, beforeLastRun: () => Promise<void> = async () => undefined) {
    const { inviter, invitee } = await pair();
    await deposit(t, invitee.user.id, USDT, '100');
    expect(await fromTradeAccount(invitee.token, 'lever', '100')).toBe(1);
    await rebates.accrue();
    let commit!: () => void;
    const held = new Promise<void>((r) => (commit = r));
    let posted!: () => void;
    const inside = new Promise<void>((r) => (posted = r));
    // The fee takes its ledger id, then its transaction stays open.
    const late = t.ds.transaction(async (m) => {
      await t.app.get(LedgerService).post(contractFee(invitee.user.id, randomUUID(), '2'), m);
      posted();
      await held;
    });
    await inside;
    await meanwhile(inviter.user.id);
    commit();
    await late;
    await beforeLastRun();
    await rebates.accrue();
    const [rebate] = await t.ds.query(`SELECT trim_scale(fee)::text AS fee, trim_scale(amount)::text AS amount FROM promotion_rebates WHERE inviter_id = $1`, [
      inviter.user.id,
    ]);
    return rebate;
  }

  it('a contract fee whose transaction commits after the accrual’s cursor has run far past its id is still rebated (regression: the re-read was 80,000 ids, passed in moments under load)', async () => {
    const rebate = await lateFee(async (inviterId) => {
      // Meanwhile a million ids go by (the projector's reservations under load), and another posting commits above them.
      await t.ds.query(`SELECT setval(pg_get_serial_sequence('ledger_entries', 'id'), nextval(pg_get_serial_sequence('ledger_entries', 'id')) + 1000000)`);
      await deposit(t, inviterId, BTC, '1');
      await rebates.accrue();
    });
    expect(rebate).toEqual({ fee: '2', amount: '0.4' });
  });

  it('after a pause of the accrual longer than its 10 minutes of re-read, a fee that committed just after the last run is still rebated (regression: the re-read was counted from the clock, and started at the cursor)', async () => {
    const rebate = await lateFee(
      async (inviterId) => {
        // A posting above the fee's id commits, and a run moves the cursor past the fee, not yet visible.
        await deposit(t, inviterId, BTC, '1');
        await rebates.accrue();
      },
      // Then no run for 11 minutes (the worker down): every mark is that much older.
      async () => void (await t.ds.query(`UPDATE promotion_cursor_marks SET at = at - interval '11 minutes'`)),
    );
    expect(rebate).toEqual({ fee: '2', amount: '0.4' });
  });

  it('authorization code: a user without an inviter joins a partner; loops, own codes, second binds and bad codes are refused', async () => {
    const partner = await registerByEmail(t);
    const { auth_code } = (
      await t.http().post(`/api/admin/promotion/partners/${partner.user.id}`).set('Authorization', admin).type('form').send({ partner: '1', reason: 'r' })
    ).body.data;
    const loner = await registerByEmail(t);
    const bind = (token: string, code: unknown) => t.http().post('/api/user/bind_auth_code').set('Authorization', token).type('form').send({ auth_code: code });
    expect((await bind(loner.token, '')).body.code).toBe(1000);
    expect((await bind(loner.token, 'NOPE1234')).body.code).toBe(3000);
    expect((await bind(partner.token, auth_code)).body.code).toBe(3002);
    const ok = await bind(loner.token, auth_code.toLowerCase());
    expect(ok.body).toMatchObject({ code: 1, data: { inviter_id: partner.user.id } });
    // Its retry (the answer was lost) answers the same, binding nothing again (before: 3001 "already has an inviter").
    const again = await bind(loner.token, auth_code);
    expect(again.body).toMatchObject({ code: 1, data: { inviter_id: partner.user.id } });
    expect(again.body.data).toEqual(ok.body.data);
    const bound = await t.ds.query(`SELECT payload FROM events WHERE stream_id = $1 AND type = 'PartnerSubAccountBound'`, [`user:${loner.user.id}`]);
    expect(bound.map((e: { payload: { partnerId: number } }) => e.payload.partnerId)).toEqual([partner.user.id]);
    // Another partner's code: the inviter cannot be changed.
    const other = await registerByEmail(t);
    const { auth_code: otherCode } = (
      await t.http().post(`/api/admin/promotion/partners/${other.user.id}`).set('Authorization', admin).type('form').send({ partner: '1', reason: 'r' })
    ).body.data;
    expect((await bind(loner.token, otherCode)).body.code).toBe(3001);
    expect((await post('user/myInvite', loner.token)).body.data).toMatchObject({ sub_account: true, can_bind: false });
    // A partner may not join the team of someone they invited.
    const invited = await registerByEmail(t, uniqueEmail(), 'secret-pass', { invite_code: partner.user.invite_code });
    const { auth_code: code2 } = (
      await t.http().post(`/api/admin/promotion/partners/${invited.user.id}`).set('Authorization', admin).type('form').send({ partner: '1', reason: 'r' })
    ).body.data;
    const partnerWithoutInviter = partner; // has no inviter
    expect((await bind(partnerWithoutInviter.token, code2)).body.code).toBe(3002);
    expect(
      (await t.http().post('/api/admin/promotion/partners/999999').set('Authorization', admin).type('form').send({ partner: '1', reason: 'r' })).body.code,
    ).toBe(3003);
    expect((await t.http().get('/api/user/invite')).body.code).toBe(401);
  });

  it('a loop through an invitation chain deeper than 64 is refused too (regression: the check stopped 64 levels up and the bind made a loop)', async () => {
    const head = await registerByEmail(t);
    const partner = await registerByEmail(t);
    // head ← 70 invitees, each invited by the one before ← partner.
    const chain: Array<{ id: number }> = await t.ds.query(
      `INSERT INTO users (account, email, nickname, password_hash, invite_code)
       SELECT 'chain-' || g || '-' || $1::text, NULL, 'chain', 'x', upper(substr(md5($1::text || g), 1, 12)) FROM generate_series(1, 70) g RETURNING id`,
      [head.user.id],
    );
    let above = head.user.id;
    for (const { id } of [...chain.sort((a, b) => a.id - b.id), { id: partner.user.id }]) {
      await t.ds.query('UPDATE users SET inviter_id = $2 WHERE id = $1', [id, above]);
      above = id;
    }
    const { auth_code } = (await setPartner(partner.user.id, '1')).body.data;
    expect((await bind(head.token, auth_code)).body.code).toBe(3002);
    expect((await t.ds.query('SELECT inviter_id FROM users WHERE id = $1', [head.user.id]))[0].inviter_id).toBeNull();
  });

  const bind = (token: string, code: unknown) => t.http().post('/api/user/bind_auth_code').set('Authorization', token).type('form').send({ auth_code: code });
  const setPartner = (userId: number, partner: '0' | '1') =>
    t.http().post(`/api/admin/promotion/partners/${userId}`).set('Authorization', admin).type('form').send({ partner, reason: 'r' });

  it('a retried bind answers success only for an active partner or a bind that happened: an ordinary invitee of an ended partner still hears 3000 (regression: "joined the team")', async () => {
    const partner = await registerByEmail(t);
    const { auth_code } = (await setPartner(partner.user.id, '1')).body.data;
    // Invited by link (no bind); and one that joined with the code.
    const invitee = await registerByEmail(t, uniqueEmail(), 'secret-pass', { invite_code: partner.user.invite_code });
    const joined = await registerByEmail(t);
    expect((await bind(joined.token, auth_code)).body).toMatchObject({ code: 1, data: { inviter_id: partner.user.id } });
    // While the partnership is active, the invitee's bind of its code changes nothing and answers it.
    expect((await bind(invitee.token, auth_code)).body).toMatchObject({ code: 1, data: { inviter_id: partner.user.id } });
    expect((await setPartner(partner.user.id, '0')).body.code).toBe(1);
    // Ended: the code is inactive. The invitee never joined by it: refused as for any inactive code.
    expect((await bind(invitee.token, auth_code)).body.code).toBe(3000);
    // The one that did join: its retry still answers the first call's success.
    expect((await bind(joined.token, auth_code)).body).toMatchObject({ code: 1, data: { inviter_id: partner.user.id } });
    const events = await t.ds.query(`SELECT stream_id FROM events WHERE type = 'PartnerSubAccountBound' AND stream_id IN ($1, $2)`, [
      `user:${invitee.user.id}`,
      `user:${joined.user.id}`,
    ]);
    expect(events).toEqual([{ stream_id: `user:${joined.user.id}` }]);
  });

  it('a bind while an operator ends the partnership waits for that decision and is refused (regression: it read the flag before the end committed and joined); ending a partnership that never began issues no code', async () => {
    const partner = await registerByEmail(t);
    const { auth_code } = (await setPartner(partner.user.id, '1')).body.data;
    const joiner = await registerByEmail(t);
    // The operator's end, written and not yet committed (as setPartner's transaction is while it runs).
    await inOpenTransaction(t.ds, async (operator) => {
      await operator.query('UPDATE promotion_partners SET partner = false WHERE user_id = $1', [partner.user.id]);
      const pending = bind(joiner.token, auth_code).then((r) => r.body);
      await new Promise((r) => setTimeout(r, 300));
      await operator.commitTransaction();
      expect(await pending).toMatchObject({ code: 3000 });
    });
    expect(await t.ds.query('SELECT inviter_id, invited_at FROM users WHERE id = $1', [joiner.user.id])).toEqual([{ inviter_id: null, invited_at: null }]);

    const never = await registerByEmail(t);
    expect((await setPartner(never.user.id, '0')).body).toMatchObject({ code: 1, data: { user_id: never.user.id, partner: false, auth_code: null } });
    expect(await t.ds.query('SELECT COUNT(*)::int AS n FROM promotion_partners WHERE user_id = $1', [never.user.id])).toEqual([{ n: 0 }]);
    expect(await t.ds.query(`SELECT COUNT(*)::int AS n FROM events WHERE stream_id = $1 AND type = 'PartnerStatusChanged'`, [`user:${never.user.id}`])).toEqual(
      [{ n: 0 }],
    );
  });

  it('two partners binding each other’s codes at the same moment: one joins, the other is refused as a loop (regression: both joined, each the other’s inviter)', async () => {
    const partnerWithCode = async () => {
      const u = await registerByEmail(t);
      const { auth_code } = (
        await t.http().post(`/api/admin/promotion/partners/${u.user.id}`).set('Authorization', admin).type('form').send({ partner: '1', reason: 'r' })
      ).body.data;
      return { ...u, auth_code: auth_code as string };
    };
    for (let round = 0; round < 5; round++) {
      const [a, b] = await Promise.all([partnerWithCode(), partnerWithCode()]);
      const bind = (token: string, code: string) =>
        t.http().post('/api/user/bind_auth_code').set('Authorization', token).type('form').send({ auth_code: code });
      const codes = (await Promise.all([bind(a.token, b.auth_code), bind(b.token, a.auth_code)])).map((r) => r.body.code).sort();
      expect(codes).toEqual([1, 3002]);
      const rows: Array<{ id: number; inviter_id: number | null }> = await t.ds.query('SELECT id, inviter_id FROM users WHERE id = ANY($1)', [
        [a.user.id, b.user.id],
      ]);
      expect(rows.filter((r) => r.inviter_id !== null)).toHaveLength(1);
    }
  });

  it('a user who binds an authorization code later earns the partner rebates on the fees paid since, none on those before (regression: the next accrual paid on earlier ones too)', async () => {
    const partner = await registerByEmail(t);
    const { auth_code } = (
      await t.http().post(`/api/admin/promotion/partners/${partner.user.id}`).set('Authorization', admin).type('form').send({ partner: '1', reason: 'r' })
    ).body.data;
    const loner = await registerByEmail(t);
    await setFundPassword(t, loner);
    // A fee before the bind, not yet read by an accrual.
    expect(await inviteeSells(loner)).toBe('30');
    expect((await t.http().post('/api/user/bind_auth_code').set('Authorization', loner.token).type('form').send({ auth_code })).body.code).toBe(1);
    await rebates.accrue();
    expect((await post('user/my_account_return', partner.token)).body.data.total).toBe(0);
    // After it: rebated.
    expect(await inviteeSells(loner)).toBe('30');
    await rebates.accrue();
    const records = (await post('user/my_account_return', partner.token)).body.data;
    expect(records.items.map((r: { kind: string; fee: string }) => [r.kind, r.fee])).toEqual([['spot', '30']]);
  });

  it('invitees and the ranking are masked; the ranking is the top 10 by rebate; share text, poster and settings validate', async () => {
    const big = await pair(uniqueEmail('big'));
    const small = await pair(uniqueEmail('small'));
    await inviteeSells(small.invitee); // 30 USDT fee → 6
    await inviteeSells(big.invitee);
    await inviteeSells(big.invitee); // 60 → 12
    await run();
    const ranking = (await get('user/invite_ranking', big.inviter.token)).body.data;
    expect(ranking.items.length).toBeLessThanOrEqual(10);
    const accounts = ranking.items.map((r: { account: string }) => r.account);
    const mask = (email: string) => `${email.slice(0, 2)}***${email.slice(email.indexOf('@'))}`;
    expect(accounts.indexOf(mask(big.inviter.email))).toBeLessThan(accounts.indexOf(mask(small.inviter.email)));
    expect(accounts.indexOf(mask(small.inviter.email))).toBeGreaterThan(-1);
    const rebatesInOrder = ranking.items.map((r: { rebate: string }) => Number(r.rebate));
    expect([...rebatesInOrder].sort((a, b) => b - a)).toEqual(rebatesInOrder);
    expect(ranking.items.every((r: { account: string }) => r.account.includes('***'))).toBe(true);

    const list = (await post('user/invite_list', big.inviter.token)).body.data;
    // A JSON null page or limit is refused by its rule, not read as "every row" (regression: LIMIT NULL).
    for (const body of [{ limit: null }, { page: null }])
      expect((await t.http().post('/api/user/invite_list').set('Authorization', big.inviter.token).type('json').send(body)).body.code).toBe(1000);
    expect(list).toMatchObject({ total: 1, items: [{ account: mask(big.invitee.email), rebate: '12' }] });
    expect(JSON.stringify(list)).not.toContain(big.invitee.email);
    expect((await post('user/invite_list', big.inviter.token, { limit: 1000 })).body.code).toBe(1000);

    const share = (await get('user/my_share', big.inviter.token).set('lang', 'zh')).body.data;
    expect(share.text).toContain(big.inviter.user.invite_code);
    expect(share.text).toContain('邀请码');
    const poster = (await get('user/my_poster', big.inviter.token)).body.data;
    expect(poster).toMatchObject({ invite_code: big.inviter.user.invite_code, format: 'image/png' });

    for (const ratio of ['1.5', '0.95', '0.90000001', '0.99999999', '0.', '.5']) {
      const bad = await t.http().post('/api/admin/promotion/settings').set('Authorization', admin).type('form').send({ ratio, reason: 'r' });
      expect([ratio, bad.body.code]).toEqual([ratio, 1000]);
    }
    expect((await t.http().get('/api/admin/promotion/settings').set('Authorization', admin)).body.data).toEqual({ ratio: '0.2', partner_ratio: '0.4' });
  });
});
