import { uniquePng } from './support/images';
import { BusinessError } from '../src/infra/http/business-error';
import { ErrorCode } from '../src/infra/http/error-codes';
import { EngineHost } from '../src/modules/engine/engine-host.service';
import { OutboxRelay } from '../src/modules/engine/outbox-relay.service';
import { empty } from '../src/modules/engine/sequencer/sequencer';
import { TradeAccountCommands } from '../src/modules/engine/trade-account-commands';
import { TrialBalanceService } from '../src/modules/ledger/trial-balance.service';
import { WithdrawalService } from '../src/modules/wallet/withdrawal.service';
import { PricingService } from '../src/modules/coin-rate/pricing.service';
import { money, moneyString } from '../src/infra/money';
import { adminToken, lastCode, registerByEmail, setFundPassword, verifyBasic } from './support/accounts';
import { coinBalance, deposit } from './support/funding';
import { inOpenTransaction } from './support/open-transaction';
import { ADMIN, startTestApp, TestApp } from './support/test-app';

const USDT = 3;
const TRON = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const TRON2 = 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7';

describe('wallets, deposits, withdrawals and transfers (real PostgreSQL + Redis)', () => {
  let t: TestApp;
  let admin: string;
  beforeAll(async () => {
    t = await startTestApp();
    admin = await adminToken(t, ADMIN.email, ADMIN.password);
    // Operators configure the USDT TRC20 deposit address (ERC20 and OMNI stay empty, as in the spec).
    const chains = (await t.http().get('/api/admin/coins').set('Authorization', admin)).body.data.find(
      (c: { currency_id: number }) => c.currency_id === USDT,
    ).chains;
    const trc = chains.find((c: { chain: string }) => c.chain === 'TRC20');
    const set = await t
      .http()
      .post(`/api/admin/chains/${trc.id}`)
      .set('Authorization', admin)
      .type('form')
      .send({ deposit_address: TRON2, reason: 'hot wallet' });
    expect(set.body.code).toBe(1);
  });
  afterAll(() => t.close());
  afterEach(async () => {
    const tb = await t.app.get(TrialBalanceService).compute();
    expect(tb.ok).toBe(true);
  });

  const post = (token: string, path: string, body: Record<string, unknown> = {}) =>
    t.http().post(`/api/${path}`).set('Authorization', token).type('form').send(body);
  const get = (token: string, path: string, query: Record<string, unknown> = {}) => t.http().get(`/api/${path}`).set('Authorization', token).query(query);
  const counts = async () =>
    (
      await t.ds.query(
        `SELECT (SELECT COUNT(*) FROM ledger_entries)::int AS entries, (SELECT COUNT(*) FROM withdrawals)::int AS w, (SELECT COUNT(*) FROM deposits)::int AS d, (SELECT COUNT(*) FROM withdraw_addresses)::int AS a`,
      )
    )[0];

  async function user(usdt = '0', { fund = true, verified = true } = {}) {
    const u = await registerByEmail(t);
    if (fund) await setFundPassword(t, u);
    if (verified) await verifyBasic(t, u, admin);
    if (usdt !== '0') await deposit(t, u.user.id, USDT, usdt);
    return u;
  }
  async function addressCode(u: { token: string; email: string }) {
    await post(u.token, 'sms_mail', { purpose: 'address' });
    return lastCode(t.ds, u.email);
  }
  async function addAddress(u: { token: string; email: string }, address = TRON) {
    const r = await post(u.token, 'wallet/addaddress', { currency_id: USDT, chain: 'TRC20', address, password: '135790', code: await addressCode(u) });
    expect(r.body.code).toBe(1);
    return r.body.data.id as number;
  }
  async function proofImage(token: string, picture = uniquePng(4, 4)): Promise<string> {
    const r = await t
      .http()
      .post('/api/upload/image')
      .set('Authorization', token)
      .attach('file', picture, { filename: 'proof.png', contentType: 'image/png' });
    expect(r.body.code).toBe(1);
    return r.body.data.id;
  }

  /**
   * A withdrawal of 100 (of 500) whose request is held at its send to the sequencer, which then
   * answers 2106 (the lag bound) when `release` is called; the app's own sweep is paused.
   */
  async function sendingRefused() {
    const u = await user('500');
    const addr = await addAddress(u);
    const withdrawals = t.app.get(WithdrawalService);
    clearInterval((withdrawals as unknown as { sweeper: NodeJS.Timeout }).sweeper);
    let sending!: () => void;
    const inSend = new Promise<void>((r) => (sending = r));
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const spy = jest.spyOn(t.app.get(TradeAccountCommands), 'post').mockImplementationOnce(async () => {
      sending();
      await held;
      throw new BusinessError(ErrorCode.SEQUENCER_BEHIND);
    });
    const answer = post(u.token, 'wallet/out', { address_id: addr, amount: '100', password: '135790' });
    // The request reaches its send (an answer first would be a refusal before it: shown, and the test fails).
    expect(await Promise.race([inSend.then(() => 'sending'), answer.then((r) => JSON.stringify(r.body))])).toBe('sending');
    return { u, withdrawals, spy, answer, release };
  }

  it('wallet/list shows the four accounts with totals in the chosen pricing currency', async () => {
    const u = await user('1234.5');
    const r = await post(u.token, 'wallet/list', { pricing: 'CNY' });
    expect(r.body.code).toBe(1);
    expect(r.body.data.accounts.map((a: { account: string }) => a.account)).toEqual(['coin', 'option', 'lever', 'trust']);
    const usdt = r.body.data.accounts[0].items.find((i: { symbol: string }) => i.symbol === 'USDT');
    expect(usdt).toMatchObject({ total: '1234.5', available: '1234.5', frozen: '0', value: '8789.64', decimals: 4 }); // 1234.5 × 7.12
    expect(r.body.data.pricing).toMatchObject({ code: 'CNY', rate: '7.12' });
    expect((await post(u.token, 'wallet/list', { pricing: 'XYZ' })).body).toMatchObject({ code: 2212, message: 'Unknown pricing currency' });
    expect((await get(u.token, 'coin/rate/list')).body.data.map((r: { code: string }) => r.code)).toEqual([
      'USD',
      'CNY',
      'EUR',
      'JPY',
      'KRW',
      'THB',
      'HKD',
      'BRL',
    ]);
  });

  it('transfers move available funds between accounts (502/503); parallel transfers never overdraw', async () => {
    const u = await user('100');
    const bad = [
      [{ from: 'coin', to: 'lever', currency_id: USDT }, 'Amount cannot be empty'],
      [{ from: 'coin', to: 'lever', currency_id: USDT, amount: 'abc' }, 'Enter a valid amount'],
      [{ from: 'coin', to: 'coin', currency_id: USDT, amount: '1' }, 'Choose two different accounts'],
      [{ from: 'coin', to: 'moon', currency_id: USDT, amount: '1' }, 'Choose a valid account'],
      [{ from: 'coin', to: 'lever', currency_id: 1, amount: '1' }, 'This account does not hold this coin'],
      [{ from: 'coin', to: 'lever', currency_id: USDT, amount: '100.01' }, 'Insufficient balance'],
    ] as const;
    const before = await counts();
    for (const [body, message] of bad) expect((await post(u.token, 'wallet/change', body)).body.message).toBe(message);
    expect(await counts()).toEqual(before);

    const answers = await Promise.all(
      Array.from({ length: 10 }, () => post(u.token, 'wallet/change', { from: 'coin', to: 'lever', currency_id: USDT, amount: '30' })),
    );
    expect(answers.filter((a) => a.body.code === 1)).toHaveLength(3);
    expect(answers.filter((a) => a.body.code === 2000)).toHaveLength(7);
    const lever = (await post(u.token, 'wallet/detail', { account: 'lever', currency_id: USDT })).body.data;
    expect(lever).toMatchObject({ total: '90', available: '90' });
    expect(lever.log.items[0]).toMatchObject({ code: 503, code_name: 'Transfer increase', amount: '30' });
    expect(await coinBalance(t, u.user.id, USDT)).toEqual({ available: '10', frozen: '0' });

    // A retried client id transfers once.
    const once = await Promise.all(
      [1, 2].map(() => post(u.token, 'wallet/change', { from: 'lever', to: 'trust', currency_id: USDT, amount: '5', client_id: 'abc-1' })),
    );
    expect(once.map((o) => o.body.code)).toEqual([1, 1]);
    expect((await post(u.token, 'wallet/detail', { account: 'trust', currency_id: USDT })).body.data.total).toBe('5');
    const log = (await get(u.token, 'wallet/log', { code: 502 }).set('lang', 'zh')).body.data;
    expect(log.items[0]).toMatchObject({ code: 502, code_name: '划转扣除' });
    expect((await get(u.token, 'wallet/history')).body.data.items[0]).toMatchObject({ from: 'lever', to: 'trust', amount: '5' });
    // Also into the trade account (through transit and the outbox): both answers are the one transfer.
    const into = await Promise.all(
      [1, 2].map(() => post(u.token, 'wallet/change', { from: 'lever', to: 'coin', currency_id: USDT, amount: '5', client_id: 'abc-2' })),
    );
    expect(into.map((o) => o.body.code)).toEqual([1, 1]);
    expect(into.map((o) => o.body.data.duplicate).sort()).toEqual([false, true]);
    expect(await coinBalance(t, u.user.id, USDT)).toEqual({ available: '15', frozen: '0' });
  });

  it('deposit: the configured address only, minimum shown, proof required; approve credits once, reject credits nothing', async () => {
    const u = await user();
    expect((await post(u.token, 'wallet/get_in_address', { currency_id: USDT, chain: 'TRC20' })).body.data).toMatchObject({
      address: TRON2,
      min_deposit: '10',
      decimals: 4,
    });
    const none = await post(u.token, 'wallet/get_in_address', { currency_id: USDT, chain: 'ERC20' });
    expect(none.body).toMatchObject({
      code: 2200,
      message: 'No deposit address is set up for USDT on ERC20 yet. Please choose another network or contact support',
      data: null,
    });

    const image = await proofImage(u.token);
    const before = await counts();
    const cases = [
      [{ currency_id: USDT, chain: 'TRC20', image_id: image }, 'Amount cannot be empty'],
      [{ currency_id: USDT, chain: 'TRC20', amount: '5', image_id: image }, 'The minimum deposit is 10 USDT'],
      // USDT has 4 decimals: a credit of a fifth could never be withdrawn (wallet/out refuses it).
      [{ currency_id: USDT, chain: 'TRC20', amount: '100.00009', image_id: image }, 'Enter a valid amount'],
      [{ currency_id: USDT, chain: 'TRC20', amount: '50' }, 'Upload the payment proof image'],
      [
        { currency_id: USDT, chain: 'ERC20', amount: '50', image_id: image },
        'No deposit address is set up for USDT on ERC20 yet. Please choose another network or contact support',
      ],
      [{ currency_id: USDT, chain: 'LIGHTNING', amount: '50', image_id: image }, 'Choose a valid network'],
    ] as const;
    for (const [body, message] of cases) expect((await post(u.token, 'wallet/charge_req', body)).body.message).toBe(message);
    expect(await counts()).toEqual(before);

    const a = (await post(u.token, 'wallet/charge_req', { currency_id: USDT, chain: 'TRC20', amount: '250.5', image_id: image })).body;
    expect(a).toMatchObject({ code: 1, message: 'Submitted successfully' });
    expect((await get(u.token, 'charge_mention/log2')).body.data.items[0]).toMatchObject({ id: a.data.deposit_id, status: 'review', amount: '250.5' });

    // A decision that moves money carries its reason (DESIGN §5): without one it is refused and credits nothing.
    expect((await post(admin, `admin/deposits/${a.data.deposit_id}/approve`, {})).body).toMatchObject({ code: 1000, message: 'A reason is required' });
    expect(await coinBalance(t, u.user.id, USDT)).toEqual({ available: '0', frozen: '0' });
    // Two operators approve at once: credited once.
    const approvals = await Promise.all([1, 2].map(() => post(admin, `admin/deposits/${a.data.deposit_id}/approve`, { reason: 'tx seen on chain' })));
    expect(approvals.map((r) => r.body.code).sort()).toEqual([1, 2209]);
    // The refusal says what stands and whose decision it is.
    expect(approvals.find((r) => r.body.code === 2209)!.body.data).toEqual({ status: 'passed', reviewed_by: expect.any(Number), reviewed_at: expect.any(String) });
    expect(await coinBalance(t, u.user.id, USDT)).toEqual({ available: '250.5', frozen: '0' });
    const [{ n }] = await t.ds.query(`SELECT COUNT(*)::int AS n FROM ledger_entries WHERE ref_type = 'deposit' AND ref_id = $1 AND code = 200`, [
      String(a.data.deposit_id),
    ]);
    expect(n).toBe(2);
    // The approval's note is the operators' (kept with the event below), not shown to the user (regression: it was).
    expect((await get(u.token, 'charge_mention/log2', { status: 'passed' })).body.data.items[0]).toMatchObject({ id: a.data.deposit_id, reason: null });
    expect((await get(admin, 'admin/deposits', { id: a.data.deposit_id })).body.data.items[0]).toMatchObject({ reason: 'tx seen on chain' });
    // The decision is an event with the operator and the reason (DESIGN §5), recorded once.
    const approved = await t.ds.query(`SELECT metadata FROM events WHERE stream_id = $1 AND type = 'DepositApproved'`, [`deposit:${a.data.deposit_id}`]);
    expect(approved.map((e: { metadata: object }) => e.metadata)).toEqual([
      expect.objectContaining({ actor: expect.stringMatching(/^admin:\d+$/), reason: 'tx seen on chain' }),
    ]);

    // The first report's image backs no second one (2303), and that refusal changes nothing.
    const again = await post(u.token, 'wallet/charge_req', { currency_id: USDT, chain: 'TRC20', amount: '250.5', image_id: image });
    expect(again.body).toMatchObject({ code: 2303, message: 'This image is already the proof of another report. Upload the proof of this transfer' });
    // Nor the same picture uploaded again as a new file, by this user or another (regression: a new
    // upload id passed, and an operator approving both credited one transfer twice).
    const picture = uniquePng(4, 4);
    const first = await proofImage(u.token, picture);
    expect((await post(u.token, 'wallet/charge_req', { currency_id: USDT, chain: 'TRC20', amount: '30', image_id: first })).body.code).toBe(1);
    const reuploaded = await proofImage(u.token, picture);
    expect(reuploaded).not.toBe(first);
    expect((await post(u.token, 'wallet/charge_req', { currency_id: USDT, chain: 'TRC20', amount: '30', image_id: reuploaded })).body.code).toBe(2303);
    const other = await registerByEmail(t);
    expect((await post(other.token, 'wallet/charge_req', { currency_id: USDT, chain: 'TRC20', amount: '30', image_id: await proofImage(other.token, picture) })).body.code).toBe(2303);
    // One request sent twice at the same moment (a double tap): one deposit record, both answers are it.
    const image2 = await proofImage(u.token);
    const both = await Promise.all(
      [1, 2].map(() => post(u.token, 'wallet/charge_req', { currency_id: USDT, chain: 'TRC20', amount: '10', image_id: image2, client_id: 'dep-1' })),
    );
    expect(both.map((r) => r.body.code)).toEqual([1, 1]);
    expect(both.map((r) => r.body.data.duplicate).sort()).toEqual([false, true]);
    expect(both[0].body.data.deposit_id).toBe(both[1].body.data.deposit_id);
    expect((await t.ds.query(`SELECT COUNT(*)::int AS n FROM deposits WHERE client_id = 'dep-1'`))[0].n).toBe(1);

    const b = (await post(u.token, 'wallet/charge_req', { currency_id: USDT, chain: 'TRC20', amount: '99', image_id: await proofImage(u.token) })).body.data;
    expect((await post(admin, `admin/deposits/${b.deposit_id}/reject`, {})).body.message).toBe('A reason is required');
    expect((await post(admin, `admin/deposits/${b.deposit_id}/reject`, { reason: 'No such transfer received' })).body.code).toBe(1);
    expect(await coinBalance(t, u.user.id, USDT)).toEqual({ available: '250.5', frozen: '0' });
    expect((await get(u.token, 'charge_mention/log2', { status: 'rejected' })).body.data.items[0]).toMatchObject({
      status: 'rejected',
      reason: 'No such transfer received',
    });
    const messages = await t.ds.query("SELECT title_key, params FROM user_messages WHERE user_id = $1 AND ref LIKE 'deposit:%' ORDER BY id", [u.user.id]);
    expect(messages.map((m: { title_key: string }) => m.title_key)).toEqual(['notice.deposit_approved', 'notice.deposit_rejected']);
    const [event] = await t.ds.query(`SELECT metadata FROM events WHERE stream_id = $1 AND type = 'DepositRejected'`, [`deposit:${b.deposit_id}`]);
    expect(event.metadata).toMatchObject({ actor: expect.stringMatching(/^admin:\d+$/), reason: 'No such transfer received' });
  });

  it('address book: fund password first, format per chain, password and code required', async () => {
    const noFund = await user('0', { fund: false });
    expect(
      (await post(noFund.token, 'wallet/addaddress', { currency_id: USDT, chain: 'TRC20', address: TRON, password: '135790', code: '123456' })).body,
    ).toMatchObject({
      code: 2100,
      message: 'Set the fund password first for fund safety',
    });
    const u = await user();
    const before = await counts();
    const code = await addressCode(u);
    const cases = [
      [{ currency_id: USDT, chain: 'TRC20', password: '135790', code }, 'Address is required'],
      [{ currency_id: USDT, chain: 'TRC20', address: TRON, code }, 'Fund password is required'],
      [{ currency_id: USDT, chain: 'TRC20', address: TRON, password: '12345', code }, 'The fund password must be exactly 6 digits'],
      [{ currency_id: USDT, chain: 'TRC20', address: TRON, password: '135790' }, 'Verification code is required'],
      [
        { currency_id: USDT, chain: 'TRC20', address: '0xdAC17F958D2ee523a2206206994597C13D831ec7', password: '135790', code },
        'This is not a valid TRC20 address',
      ],
      [{ currency_id: USDT, chain: 'TRC20', address: TRON, password: '000000', code }, 'The fund password is wrong'],
      [
        { currency_id: USDT, chain: 'TRC20', address: TRON, password: '135790', code: code === '000000' ? '111111' : '000000' },
        'The verification code is wrong or has expired',
      ],
    ] as const;
    for (const [body, message] of cases) expect((await post(u.token, 'wallet/addaddress', body)).body.message).toBe(message);
    expect(await counts()).toEqual(before);
    const id = await addAddress(u);
    expect((await post(u.token, 'wallet/get_address', { currency_id: USDT })).body.data).toEqual([
      expect.objectContaining({ id, chain: 'TRC20', address: TRON, symbol: 'USDT' }),
    ]);

    // Another user can neither see nor delete it.
    const other = await user();
    expect((await post(other.token, 'wallet/get_address')).body.data).toEqual([]);
    expect((await post(other.token, 'wallet/deladdress', { id })).body).toMatchObject({ code: 2216 });
    expect((await post(u.token, 'wallet/deladdress', { id })).body.code).toBe(1);
  });

  it('withdrawal: the spec order of prompts, each changing nothing', async () => {
    const noFund = await user('100', { fund: false });
    expect((await post(noFund.token, 'wallet/out', { address_id: 1, amount: '20', password: '135790' })).body.message).toBe(
      'Set the fund password first for fund safety',
    );
    const unverified = await user('100', { verified: false });
    expect((await post(unverified.token, 'wallet/out', { address_id: 1, amount: '20', password: '135790' })).body).toMatchObject({
      code: 2202,
      message: 'Complete real-name verification first',
    });

    const u = await user('100');
    const before = await counts();
    expect((await post(u.token, 'wallet/out', { amount: '20', password: '135790' })).body.message).toBe('Set the withdrawal address first');
    expect((await post(u.token, 'wallet/out', { address_id: 999999, amount: '20', password: '135790' })).body.message).toBe('Set the withdrawal address first');
    const addr = await addAddress(u);
    const after = await counts();
    expect(after.a).toBe(before.a + 1);
    const cases = [
      [{ address_id: addr, password: '135790' }, 'Amount cannot be empty'],
      [{ address_id: addr, amount: '20' }, 'Fund password is required'],
      [{ address_id: addr, amount: '5', password: '135790' }, 'The minimum withdrawal is 10 USDT'],
      [{ address_id: addr, amount: '20', password: '999999' }, 'The fund password is wrong'],
      [{ address_id: addr, amount: '100.5', password: '135790' }, 'Insufficient balance'],
    ] as const;
    for (const [body, message] of cases) expect((await post(u.token, 'wallet/out', body)).body.message).toBe(message);
    expect(await counts()).toEqual(after);
    const info = (await post(u.token, 'wallet/get_info', { currency_id: USDT })).body.data;
    expect(info).toMatchObject({
      decimals: 4,
      fee: '1',
      min_amount: '10',
      remaining_requests_today: 3,
      daily_limit_usdt: '2000',
      remaining_amount_today_usdt: '2000',
      arrival_hours: 12,
    });
  });

  it('20 parallel withdrawals of the whole balance: exactly one is accepted; reject unfreezes exactly; approve pays out once', async () => {
    const u = await user('500');
    const addr = await addAddress(u);
    const answers = await Promise.all(Array.from({ length: 20 }, () => post(u.token, 'wallet/out', { address_id: addr, amount: '500', password: '135790' })));
    expect(answers.filter((a) => a.body.code === 1)).toHaveLength(1);
    expect(answers.filter((a) => a.body.code === 2000)).toHaveLength(19);
    expect(await coinBalance(t, u.user.id, USDT)).toEqual({ available: '0', frozen: '500' });
    const id = answers.find((a) => a.body.code === 1)!.body.data.withdrawal_id;
    expect((await get(u.token, 'charge_mention/log3')).body.data.items).toEqual([
      expect.objectContaining({ id, amount: '500', fee: '1', actual_amount: '499', status: 'review' }),
    ]);

    const rej = await Promise.all([1, 2].map(() => post(admin, `admin/withdrawals/${id}/reject`, { reason: 'address under review' })));
    expect(rej.map((r) => r.body.code).sort()).toEqual([1, 2209]);
    expect(await coinBalance(t, u.user.id, USDT)).toEqual({ available: '500', frozen: '0' });
    expect((await get(u.token, 'charge_mention/log3')).body.data.items[0]).toMatchObject({ status: 'rejected', reason: 'address under review' });

    const ok = (await post(u.token, 'wallet/out', { address_id: addr, amount: '300', password: '135790', remark: 'cold storage' })).body.data.withdrawal_id;
    const pay = await Promise.all([1, 2].map(() => post(admin, `admin/withdrawals/${ok}/approve`, { tx_hash: 'abc123', reason: 'paid out' })));
    expect(pay.map((r) => r.body.code).sort()).toEqual([1, 2209]);
    expect(await coinBalance(t, u.user.id, USDT)).toEqual({ available: '200', frozen: '0' });
    expect((await get(u.token, 'charge_mention/log3', { status: 'passed' })).body.data.items[0]).toMatchObject({
      status: 'passed',
      actual_amount: '299',
      tx_hash: 'abc123',
      reason: null,
    });
    // Each decision is an event with the operator and the reason (DESIGN §5), recorded once.
    const decisions = await t.ds.query(
      `SELECT stream_id, type, metadata, payload FROM events WHERE stream_id IN ($1, $2) AND type IN ('WithdrawalApproved', 'WithdrawalRejected') ORDER BY seq`,
      [`withdrawal:${id}`, `withdrawal:${ok}`],
    );
    expect(decisions).toEqual([
      expect.objectContaining({
        stream_id: `withdrawal:${id}`,
        type: 'WithdrawalRejected',
        metadata: expect.objectContaining({ reason: 'address under review' }),
      }),
      expect.objectContaining({
        stream_id: `withdrawal:${ok}`,
        type: 'WithdrawalApproved',
        metadata: expect.objectContaining({ actor: expect.stringMatching(/^admin:\d+$/), reason: 'paid out' }),
        payload: expect.objectContaining({ amount: '300', txHash: 'abc123' }),
      }),
    ]);
    // One record by its id (the withdrawal's detail screen), whatever page it is on; another user's is not listed.
    expect((await get(u.token, 'charge_mention/log3', { id })).body.data.items).toEqual([expect.objectContaining({ id, status: 'rejected' })]);
    const other = await user('1');
    expect((await get(other.token, 'charge_mention/log3', { id })).body.data).toMatchObject({ items: [], total: 0 });
    expect((await get(u.token, 'charge_mention/log3', { id: 'x' })).body.code).toBe(1000);
    const tb = await t.app.get(TrialBalanceService).compute();
    expect(tb.currencies.find((c) => c.symbol === 'USDT')!.completed_withdrawals).not.toBe('0');
  });

  it('a deposit or withdrawal made while its coin was enabled is still decided after the coin is disabled: the frozen amount goes back', async () => {
    const u = await user('500');
    const addr = await addAddress(u);
    const w = (await post(u.token, 'wallet/out', { address_id: addr, amount: '200', password: '135790' })).body.data.withdrawal_id;
    const image = await proofImage(u.token);
    const d = (await post(u.token, 'wallet/charge_req', { currency_id: USDT, chain: 'TRC20', amount: '10', image_id: image })).body.data.deposit_id;
    await t.ds.query('UPDATE coins SET enabled = false WHERE id = $1', [USDT]);
    try {
      // A new request in the coin is refused; the ones already made are not stuck.
      expect((await post(u.token, 'wallet/out', { address_id: addr, amount: '1', password: '135790' })).body.code).toBe(1000);
      expect((await post(admin, `admin/withdrawals/${w}/reject`, { reason: 'coin retired' })).body).toMatchObject({
        code: 1,
        data: { status: 'rejected', symbol: 'USDT' },
      });
      expect((await post(admin, `admin/deposits/${d}/approve`, { reason: 'tx seen on chain' })).body).toMatchObject({
        code: 1,
        data: { status: 'passed', symbol: 'USDT' },
      });
    } finally {
      await t.ds.query('UPDATE coins SET enabled = true WHERE id = $1', [USDT]);
    }
    expect(await coinBalance(t, u.user.id, USDT)).toEqual({ available: '510', frozen: '0' });
  });

  it('a withdrawal whose answer was lost (2107) is finished by its retry or, without one, by the sweep: frozen once, never left hidden', async () => {
    const u = await user('500');
    const addr = await addAddress(u);
    const trading = t.app.get(TradeAccountCommands);
    const withdrawals = t.app.get(WithdrawalService);
    // The app's own sweep is paused for this test (it would finish the rows after 2 s, whenever the test is slow): each step is this test's.
    clearInterval((withdrawals as unknown as { sweeper: NodeJS.Timeout }).sweeper);
    // The sequencer's answer is lost twice: the rows stay `submitting` (hidden from the user and operators).
    const lostAnswers = jest
      .spyOn(trading, 'post')
      .mockRejectedValueOnce(new BusinessError(ErrorCode.ENGINE_UNKNOWN))
      .mockRejectedValueOnce(new BusinessError(ErrorCode.ENGINE_UNKNOWN));
    const lost = await post(u.token, 'wallet/out', { address_id: addr, amount: '100', password: '135790', client_id: 'w-lost' });
    expect(lost.body.code).toBe(2107);
    const unasked = await post(u.token, 'wallet/out', { address_id: addr, amount: '50', password: '135790' });
    expect(unasked.body.code).toBe(2107);
    expect(await coinBalance(t, u.user.id, USDT)).toEqual({ available: '500', frozen: '0' });
    // The retry with its client id finishes the first request: frozen once, answered as it.
    const retry = await post(u.token, 'wallet/out', { address_id: addr, amount: '100', password: '135790', client_id: 'w-lost' });
    expect(retry.body).toMatchObject({ code: 1, data: { duplicate: true } });
    expect(await coinBalance(t, u.user.id, USDT)).toEqual({ available: '400', frozen: '100' });
    // The other one had no retry: the engine's owner finishes it (regression: it stayed `submitting` until the next restart).
    const submitting = async () =>
      (await t.ds.query(`SELECT COUNT(*)::int AS n FROM withdrawals WHERE user_id = $1 AND status = 'submitting'`, [u.user.id]))[0].n as number;
    expect(await submitting()).toBe(1);
    // Not the operators' to decide yet (hidden from their list): not found, and nothing changes (regression: "already approved or rejected").
    const [{ id: hidden }] = await t.ds.query(`SELECT id FROM withdrawals WHERE user_id = $1 AND status = 'submitting'`, [u.user.id]);
    expect((await post(admin, `admin/withdrawals/${hidden}/approve`, { tx_hash: 'abc123', reason: 'paid out' })).body.code).toBe(2210);
    expect((await post(admin, `admin/withdrawals/${hidden}/reject`, { reason: 'no' })).body.code).toBe(2210);
    expect((await post(admin, 'admin/withdrawals/-5/approve', { reason: 'paid out' })).body.code).toBe(1000);
    expect(await submitting()).toBe(1);
    lostAnswers.mockRestore();
    expect(await withdrawals.finishLeftovers(0)).toBe(1);
    expect(await coinBalance(t, u.user.id, USDT)).toEqual({ available: '350', frozen: '150' });
    expect((await get(u.token, 'charge_mention/log3')).body.data.items.map((w: { amount: string; status: string }) => [w.amount, w.status])).toEqual([
      ['50', 'review'],
      ['100', 'review'],
    ]);
    expect(await submitting()).toBe(0);

    // 2106 ("nothing was done; retry shortly"): the row goes with the refusal, so no sweep freezes it later.
    jest.spyOn(trading, 'post').mockRejectedValueOnce(new BusinessError(ErrorCode.SEQUENCER_BEHIND));
    expect((await post(u.token, 'wallet/out', { address_id: addr, amount: '20', password: '135790' })).body.code).toBe(2106);
    expect(await submitting()).toBe(0);
    expect(await withdrawals.finishLeftovers(0)).toBe(0);
    expect(await coinBalance(t, u.user.id, USDT)).toEqual({ available: '350', frozen: '150' });
    await withdrawals.onApplicationBootstrap(); // the sweep again
  });

  it('a sweep row whose send fails leaves the rows after it finished (regression: the whole sweep stopped at it)', async () => {
    const u = await user('500');
    const addr = await addAddress(u);
    const trading = t.app.get(TradeAccountCommands);
    const withdrawals = t.app.get(WithdrawalService);
    clearInterval((withdrawals as unknown as { sweeper: NodeJS.Timeout }).sweeper);
    const lost = jest
      .spyOn(trading, 'post')
      .mockRejectedValueOnce(new BusinessError(ErrorCode.ENGINE_UNKNOWN))
      .mockRejectedValueOnce(new BusinessError(ErrorCode.ENGINE_UNKNOWN));
    for (const amount of ['30', '40']) expect((await post(u.token, 'wallet/out', { address_id: addr, amount, password: '135790' })).body.code).toBe(2107);
    lost.mockRestore();
    const first = jest.spyOn(trading, 'post').mockRejectedValueOnce(new BusinessError(ErrorCode.ENGINE_UNKNOWN));
    await expect(withdrawals.finishLeftovers(0)).rejects.toMatchObject({ code: ErrorCode.ENGINE_UNKNOWN });
    first.mockRestore();
    const states = async () =>
      (await t.ds.query('SELECT amount::text, status FROM withdrawals WHERE user_id = $1 ORDER BY id', [u.user.id])).map(
        (r: { amount: string; status: string }) => [Number(r.amount), r.status],
      );
    expect(await states()).toEqual([
      [30, 'submitting'],
      [40, 'review'],
    ]);
    expect(await withdrawals.finishLeftovers(0)).toBe(1);
    expect(await states()).toEqual([
      [30, 'review'],
      [40, 'review'],
    ]);
    expect(await coinBalance(t, u.user.id, USDT)).toEqual({ available: '430', frozen: '70' });
    await withdrawals.onApplicationBootstrap();
  });

  it('a retry refused by the lag bound (2106) keeps its row: the first send of its freeze may be applied, and the sweep records it', async () => {
    const u = await user('500');
    const addr = await addAddress(u);
    const trading = t.app.get(TradeAccountCommands);
    const withdrawals = t.app.get(WithdrawalService);
    clearInterval((withdrawals as unknown as { sweeper: NodeJS.Timeout }).sweeper);
    const send = trading.post.bind(trading);
    const spy = jest
      .spyOn(trading, 'post')
      // The first request's answer is lost (2107)…
      .mockRejectedValueOnce(new BusinessError(ErrorCode.ENGINE_UNKNOWN))
      // …its freeze is applied meanwhile, and the retry's own send finds the sequencer behind (2106).
      .mockImplementationOnce(async (cmd) => {
        await send(cmd);
        throw new BusinessError(ErrorCode.SEQUENCER_BEHIND);
      });
    const body = { address_id: addr, amount: '100', password: '135790', client_id: 'w-behind' };
    expect((await post(u.token, 'wallet/out', body)).body.code).toBe(2107);
    expect((await post(u.token, 'wallet/out', body)).body.code).toBe(2106);
    spy.mockRestore();
    expect(await coinBalance(t, u.user.id, USDT)).toEqual({ available: '400', frozen: '100' });
    // Regression: the retry's 2106 removed the row, leaving 100 frozen with no withdrawal to approve or reject.
    expect(await withdrawals.finishLeftovers(0)).toBe(1);
    expect((await get(u.token, 'charge_mention/log3')).body.data.items.map((w: { amount: string; status: string }) => [w.amount, w.status])).toEqual([
      ['100', 'review'],
    ]);
    expect((await post(u.token, 'wallet/out', body)).body).toMatchObject({ code: 1, data: { duplicate: true } });
    expect(await coinBalance(t, u.user.id, USDT)).toEqual({ available: '400', frozen: '100' });
    await withdrawals.onApplicationBootstrap();
  });

  it('a withdrawal retry answers its first request before any check; amounts past the coin’s decimals and closed networks are refused', async () => {
    const u = await user('500');
    const addr = await addAddress(u);
    const body = { address_id: addr, amount: '100', password: '135790', client_id: 'w-first' };
    const first = await post(u.token, 'wallet/out', body);
    expect(first.body).toMatchObject({ code: 1, data: { duplicate: false } });
    // Regression: the retry ran the checks again and answered 1000 (the coin was disabled meanwhile;
    // likewise 2203 for a removed address, 2204 for a raised fee), so a client treating that as final
    // made a second withdrawal with a new client id.
    await t.ds.query('UPDATE coins SET enabled = false WHERE id = $1', [USDT]);
    try {
      expect((await post(u.token, 'wallet/out', body)).body).toMatchObject({
        code: 1,
        data: { withdrawal_id: first.body.data.withdrawal_id, duplicate: true },
      });
      expect((await post(u.token, 'wallet/out', { ...body, client_id: 'w-new' })).body.code).toBe(1000);
    } finally {
      await t.ds.query('UPDATE coins SET enabled = true WHERE id = $1', [USDT]);
    }
    // USDT has 4 decimals: a fifth would leave the balance and never be sent.
    expect((await post(u.token, 'wallet/out', { address_id: addr, amount: '20.12345', password: '135790' })).body.code).toBe(1000);
    // A network an operator closed takes no new request, though its saved addresses stay listed.
    await t.ds.query(`UPDATE chain_types SET enabled = false WHERE currency_id = $1 AND chain = 'TRC20'`, [USDT]);
    try {
      expect((await post(u.token, 'wallet/out', { address_id: addr, amount: '20', password: '135790' })).body.code).toBe(1000);
    } finally {
      await t.ds.query(`UPDATE chain_types SET enabled = true WHERE currency_id = $1 AND chain = 'TRC20'`, [USDT]);
    }
    expect((await post(u.token, 'wallet/out', { address_id: addr, amount: '20.1234', password: '135790' })).body.code).toBe(1);
    expect(await coinBalance(t, u.user.id, USDT)).toEqual({ available: '379.8766', frozen: '120.1234' });
  });

  it('the sweep passes over a row whose request is still sending: a request refused by the lag bound (2106) leaves nothing frozen', async () => {
    const { u, withdrawals, spy, answer, release } = await sendingRefused();
    // …holding no lock (nor a pooled connection) while it waits for the sequencer: the row is claimed, not locked.
    await t.ds.transaction((m) => m.query(`SELECT id FROM withdrawals WHERE user_id = $1 FOR UPDATE NOWAIT`, [u.user.id]));
    // Regression: the sweep sent the same freeze meanwhile (applied), and the request then removed the
    // row and answered 2106: 100 frozen with no withdrawal (or, the other way round, one in review after "nothing was done").
    expect(await withdrawals.finishLeftovers(0)).toBe(1);
    release();
    expect((await answer).body.code).toBe(2106);
    expect(spy).toHaveBeenCalledTimes(1);
    spy.mockRestore();
    expect(await coinBalance(t, u.user.id, USDT)).toEqual({ available: '500', frozen: '0' });
    expect((await t.ds.query('SELECT COUNT(*)::int AS n FROM withdrawals WHERE user_id = $1', [u.user.id]))[0].n).toBe(0);
    await withdrawals.onApplicationBootstrap();
  });

  it('a request whose claim lapsed during its send, refused by the lag bound (2106) after the sweep made the withdrawal, answers it made', async () => {
    const { u, withdrawals, spy, answer, release } = await sendingRefused();
    // The send outlives the claim: the sweep takes the row and its send of the freeze is applied.
    await t.ds.query(`UPDATE withdrawals SET claimed_until = now() - interval '1 second' WHERE user_id = $1`, [u.user.id]);
    expect(await withdrawals.finishLeftovers(0)).toBe(1);
    release();
    // Regression: 2106 ("nothing was done"), so a user without a client id sent it again: two withdrawals.
    expect((await answer).body).toMatchObject({ code: 1, data: { duplicate: false } });
    spy.mockRestore();
    expect(await coinBalance(t, u.user.id, USDT)).toEqual({ available: '400', frozen: '100' });
    expect((await get(u.token, 'charge_mention/log3')).body.data.items.map((w: { status: string }) => w.status)).toEqual(['review']);
    await withdrawals.onApplicationBootstrap();
  });

  it('the fourth withdrawal of a day is refused with the limit message; the daily amount limit holds', async () => {
    const u = await user('5000');
    const addr = await addAddress(u);
    for (let i = 0; i < 3; i++) expect((await post(u.token, 'wallet/out', { address_id: addr, amount: '20', password: '135790' })).body.code).toBe(1);
    const fourth = await post(u.token, 'wallet/out', { address_id: addr, amount: '20', password: '135790' });
    expect(fourth.body).toMatchObject({ code: 2206, message: 'You can make at most 3 withdrawal requests a day' });
    expect(await coinBalance(t, u.user.id, USDT)).toEqual({ available: '4940', frozen: '60' });

    const big = await user('5000');
    const a2 = await addAddress(big);
    expect((await post(big.token, 'wallet/out', { address_id: a2, amount: '1990', password: '135790' })).body.code).toBe(1);
    expect((await post(big.token, 'wallet/out', { address_id: a2, amount: '20', password: '135790' })).body).toMatchObject({
      code: 2207,
      message: 'This exceeds your daily withdrawal limit of 2000 USDT (10 USDT left today)',
    });
  });

  it("the daily limit values a coin at its median hourly close of the last day: one trade at an odd price neither shrinks nor inflates a request's value", async () => {
    const pricing = t.app.get(PricingService);
    const [eth] = await t.ds.query(
      `SELECT m.id, m.base_currency_id AS coin FROM markets m JOIN coins c ON c.id = m.base_currency_id WHERE c.symbol = 'ETH' AND m.quote_currency_id = $1`,
      [USDT],
    );
    const candle = (hoursAgo: number, close: string) =>
      t.ds.query(
        `INSERT INTO klines (market_id, period, open_time, open, high, low, close) VALUES ($1, '60min', to_timestamp(floor(extract(epoch FROM now()) / 3600) * 3600 - $2 * 3600), $3, $3, $3, $3)
         ON CONFLICT (market_id, period, open_time) DO UPDATE SET close = EXCLUDED.close`,
        [eth.id, hoursAgo, close],
      );
    const value = async (amount: string) => (await pricing.limitValue(eth.coin, money(amount), 'ETH')).toString();
    try {
      // Never traded against USDT: no value, refused with 2211.
      await expect(value('1')).rejects.toMatchObject({ code: ErrorCode.PRICE_UNAVAILABLE });
      // Before the day: 3,000; then three hours at 3,000 and, just now, one trade at 1,000.
      await candle(48, '3000');
      for (const h of [5, 4, 3]) await candle(h, '3000');
      await candle(0, '1000');
      expect(await value('2')).toBe('6000');
      // And one at 9,000 an hour ago: still 3,000 (six closes: the higher middle one).
      await candle(1, '9000');
      expect(await value('2')).toBe('6000');
      // A price held for most of the day is the price: six more hours at 1,000 (seven of twelve closes).
      for (const h of [11, 10, 9, 8, 7, 6]) await candle(h, '1000');
      expect(await value('2')).toBe('2000');
      // Only the close before the day: that one.
      await t.ds.query(`DELETE FROM klines WHERE market_id = $1 AND open_time >= now() - interval '24 hours'`, [eth.id]);
      expect(await value('2')).toBe('6000');
      // USDT is worth 1.
      expect((await pricing.limitValue(USDT, money('2.5'))).toString()).toBe('2.5');
    } finally {
      await t.ds.query(`DELETE FROM klines WHERE market_id = $1`, [eth.id]);
    }
  });

  it('users cannot reach each other’s records or the operator API', async () => {
    const a = await user('100');
    const b = await user();
    const image = await proofImage(a.token);
    expect((await post(b.token, 'wallet/charge_req', { currency_id: USDT, chain: 'TRC20', amount: '50', image_id: image })).body.code).toBe(2301);
    expect((await get(b.token, `upload/${image}`)).body.code).not.toBe(1);
    await post(a.token, 'wallet/charge_req', { currency_id: USDT, chain: 'TRC20', amount: '50', image_id: image });
    expect((await get(b.token, 'charge_mention/log2')).body.data.items).toEqual([]);
    for (const path of ['admin/deposits', 'admin/withdrawals', 'admin/coins', 'admin/fiat-rates']) expect((await get(a.token, path)).body.code).toBe(401);
    const [dep] = await t.ds.query('SELECT id FROM deposits WHERE user_id = $1', [a.user.id]);
    expect((await post(a.token, `admin/deposits/${dep.id}/approve`)).body.code).toBe(401);
    expect(await coinBalance(t, a.user.id, USDT)).toEqual({ available: '100', frozen: '0' });
  });

  it('30 parallel withdrawals, each of the whole balance: exactly one is accepted, the rest refused with 2000; balances exact', async () => {
    // A refused request's row is removed, so it does not count towards the 3 requests a day; 500 USDT stays within the daily amount limit.
    const u = await user('500');
    const addr = await addAddress(u);
    const before = await counts();
    const answers = await Promise.all(Array.from({ length: 30 }, () => post(u.token, 'wallet/out', { address_id: addr, amount: '500', password: '135790' })));
    expect(answers.filter((a) => a.body.code === 1)).toHaveLength(1);
    expect(answers.filter((a) => a.body.code === 2000)).toHaveLength(29);
    expect(answers.filter((a) => a.body.code === 2000).every((a) => a.body.message === 'Insufficient balance')).toBe(true);
    const id = answers.find((a) => a.body.code === 1)!.body.data.withdrawal_id;
    expect(await coinBalance(t, u.user.id, USDT)).toEqual({ available: '0', frozen: '500' });
    const rows = await t.ds.query('SELECT id, status, amount::text FROM withdrawals WHERE user_id = $1', [u.user.id]);
    expect(rows).toEqual([{ id, status: 'review', amount: '500.000000000000000000' }]);
    // One freeze entry (901), nothing else written for the 29 refusals.
    const freezes = await t.ds.query(
      `SELECT code, available_delta::text AS a, frozen_delta::text AS f FROM ledger_entries WHERE ref_type = 'withdrawal' AND ref_id = $1`,
      [String(id)],
    );
    expect(freezes).toEqual([{ code: 901, a: '-500.000000000000000000', f: '500.000000000000000000' }]);
    expect(await counts()).toEqual({ ...before, entries: before.entries + 1, w: before.w + 1 });
    expect((await post(u.token, 'wallet/get_info', { currency_id: USDT })).body.data).toMatchObject({ remaining_requests_today: 2, available: '0' });
    expect((await t.app.get(TrialBalanceService).compute()).ok).toBe(true);
  });

  it('a transfer out of the trade account retried after the sequencer forgot its client id (past its window) moves nothing again', async () => {
    const u = await user('100');
    const body = { from: 'coin', to: 'lever', currency_id: USDT, amount: '40', client_id: 'late-retry-1' };
    expect((await post(u.token, 'wallet/change', body)).body).toMatchObject({ code: 1, data: { duplicate: false } });
    await t.app.get(TradeAccountCommands).settled(u.user.id);
    // The window passes (24 h or 1,000,000 newer commands): the sequencer no longer remembers the id.
    const seqr = (t.app.get(EngineHost) as unknown as { seqr: { dedup: Map<string, unknown> } }).seqr;
    expect(seqr.dedup.delete(`c:transfer:${u.user.id}-late-retry-1`)).toBe(true);
    const before = await counts();
    expect((await post(u.token, 'wallet/change', body)).body).toMatchObject({ code: 1, data: { duplicate: true } });
    expect(await coinBalance(t, u.user.id, USDT)).toEqual({ available: '60', frozen: '0' });
    expect((await post(u.token, 'wallet/detail', { account: 'lever', currency_id: USDT })).body.data).toMatchObject({ total: '40', available: '40' });
    expect(await counts()).toEqual(before);
    expect((await t.app.get(TrialBalanceService).compute()).ok).toBe(true);
  });

  it('a client_id names one transfer: a retry naming other accounts, coin or amount answers the first and moves nothing again, also sent at once', async () => {
    const u = await user('100');
    const lever = async () => (await post(u.token, 'wallet/detail', { account: 'lever', currency_id: USDT })).body.data.total;
    const first = { from: 'coin', to: 'lever', currency_id: USDT, amount: '40', client_id: 'one-id-1' };
    expect((await post(u.token, 'wallet/change', first)).body).toMatchObject({ code: 1, data: { transfer_id: `${u.user.id}-one-id-1`, duplicate: false } });
    // Each route keeps its own record of what it did (the sequencer's out of coin, the event store's for the others).
    for (const retry of [
      { ...first, from: 'lever', to: 'coin' },
      { ...first, from: 'lever', to: 'trust', amount: '10' },
      { ...first, from: 'coin', to: 'option', amount: '1' },
      // Fields this request alone would be refused for (regression: checked before its first was looked up: 1000).
      { ...first, from: 'lever', to: 'lever' },
      { ...first, amount: '0' },
    ])
      expect((await post(u.token, 'wallet/change', retry)).body).toMatchObject({ code: 1, data: { transfer_id: `${u.user.id}-one-id-1`, duplicate: true } });
    // Nor by a rule changed since: its coin disabled.
    await t.ds.query('UPDATE coins SET enabled = false WHERE id = $1', [USDT]);
    try {
      expect((await post(u.token, 'wallet/change', first)).body).toMatchObject({ code: 1, data: { transfer_id: `${u.user.id}-one-id-1`, duplicate: true } });
    } finally {
      await t.ds.query('UPDATE coins SET enabled = true WHERE id = $1', [USDT]);
    }
    await t.app.get(TradeAccountCommands).settled(u.user.id);
    expect(await coinBalance(t, u.user.id, USDT)).toEqual({ available: '60', frozen: '0' });
    expect(await lever()).toBe('40');
    // Sent at once: into coin and out of it under one client_id, one of them happens.
    const racers = await Promise.all(
      [
        { from: 'lever', to: 'coin', amount: '15' },
        { from: 'coin', to: 'lever', amount: '25' },
      ].map((r) => post(u.token, 'wallet/change', { ...r, currency_id: USDT, client_id: 'one-id-2' })),
    );
    expect(racers.map((r) => r.body.code)).toEqual([1, 1]);
    expect(racers.map((r) => r.body.data.duplicate).sort()).toEqual([false, true]);
    await t.app.get(TradeAccountCommands).settled(u.user.id);
    const coin = await coinBalance(t, u.user.id, USDT);
    expect([JSON.stringify(['75', '25']), JSON.stringify(['35', '65'])]).toContain(JSON.stringify([coin.available, await lever()]));
    const history = (await get(u.token, 'wallet/history')).body.data;
    expect(history.total).toBe(2);
    expect((await t.app.get(TrialBalanceService).compute()).ok).toBe(true);
  });

  it('an outbox row applied but left unmarked (a crash between the two) is marked, not sent again, after the sequencer forgot its id', async () => {
    const u = await user('100');
    const body = { from: 'coin', to: 'lever', currency_id: USDT, amount: '30' };
    expect((await post(u.token, 'wallet/change', body)).body.code).toBe(1);
    const back = { from: 'lever', to: 'coin', currency_id: USDT, amount: '30', client_id: 'unmarked-1' };
    expect((await post(u.token, 'wallet/change', back)).body.code).toBe(1);
    await t.app.get(TradeAccountCommands).settled(u.user.id);
    const commandId = `transfer-in:${u.user.id}-unmarked-1`;
    const [row] = await t.ds.query('SELECT id, applied_seq FROM sequencer_outbox WHERE command_id = $1', [commandId]);
    expect(row.applied_seq).not.toBeNull();
    const seqr = (t.app.get(EngineHost) as unknown as { seqr: { dedup: Map<string, unknown> } }).seqr;
    expect(seqr.dedup.delete(`c:${commandId}`)).toBe(true);
    await t.ds.query('UPDATE sequencer_outbox SET applied_seq = NULL, result = NULL WHERE id = $1', [row.id]);
    t.app.get(OutboxRelay).kick();
    for (let i = 0; i < 100 && !(await t.ds.query('SELECT applied_seq FROM sequencer_outbox WHERE id = $1', [row.id]))[0].applied_seq; i++)
      await new Promise((r) => setTimeout(r, 50));
    const [marked] = await t.ds.query('SELECT applied_seq::text, result FROM sequencer_outbox WHERE id = $1', [row.id]);
    expect(marked.applied_seq).not.toBeNull();
    expect(marked.result).toBe('OK');
    await t.app.get(TradeAccountCommands).settled(u.user.id);
    expect(await coinBalance(t, u.user.id, USDT)).toEqual({ available: '100', frozen: '0' });
    expect((await t.app.get(TrialBalanceService).compute()).ok).toBe(true);
  });

  it('an operator decision or a transfer into the trade account the sequencer has not applied in time answers 2107; the same again answers what the first did, money moved once', async () => {
    const u = await user('500');
    const addr = await addAddress(u);
    const w = (await post(u.token, 'wallet/out', { address_id: addr, amount: '100', password: '135790' })).body.data.withdrawal_id;
    const d = (await post(u.token, 'wallet/charge_req', { currency_id: USDT, chain: 'TRC20', amount: '50', image_id: await proofImage(u.token) })).body.data
      .deposit_id;
    expect((await post(u.token, 'wallet/change', { from: 'coin', to: 'lever', currency_id: USDT, amount: '30' })).body.code).toBe(1);
    const host = t.app.get(EngineHost);
    const relay = t.app.get(OutboxRelay);
    // No sequencer takes these commands (as when no engine runs), and an answer waits 1 s for one instead of 10 s.
    const held = new Set([`deposit-approve:${d}`, `withdrawal-reject:${w}`, `transfer-in:${u.user.id}-in-1`]);
    const submit = host.submit.bind(host);
    const stopped = jest
      .spyOn(host, 'submit')
      .mockImplementation((cmd) => (cmd.t === 'post' && held.has(cmd.commandId) ? Promise.reject(new BusinessError(ErrorCode.MARKET_BUSY)) : submit(cmd)));
    const appliedAt = relay.appliedAt.bind(relay);
    const quick = jest.spyOn(relay, 'appliedAt').mockImplementation((id) => appliedAt(id, 1000));
    const approve = () => post(admin, `admin/deposits/${d}/approve`, { reason: 'tx seen on chain' });
    const reject = () => post(admin, `admin/withdrawals/${w}/reject`, { reason: 'address under review' });
    const into = { from: 'lever', to: 'coin', currency_id: USDT, amount: '30', client_id: 'in-1' };
    try {
      expect((await approve()).body).toMatchObject({ code: 2107, type: 'error' });
      expect((await approve()).body.code).toBe(2107); // the same approval again: its credit is still on its way
      expect((await reject()).body.code).toBe(2107);
      expect((await post(u.token, 'wallet/change', into)).body.code).toBe(2107);
      // Another decision on a decided record: 2209 at once.
      expect((await post(admin, `admin/deposits/${d}/reject`, { reason: 'no' })).body.code).toBe(2209);
      expect((await post(admin, `admin/withdrawals/${w}/approve`, { reason: 'paid out' })).body.code).toBe(2209);
      expect(await coinBalance(t, u.user.id, USDT)).toEqual({ available: '370', frozen: '100' }); // nothing credited or released yet
    } finally {
      stopped.mockRestore();
      quick.mockRestore();
    }
    // A sequencer again: the decisions answer 2209 (each applied once), the transfer its first request.
    expect((await approve()).body.code).toBe(2209);
    expect((await reject()).body.code).toBe(2209);
    expect((await post(u.token, 'wallet/change', into)).body).toMatchObject({ code: 1, data: { transfer_id: `${u.user.id}-in-1`, duplicate: true } });
    expect(await coinBalance(t, u.user.id, USDT)).toEqual({ available: '550', frozen: '0' });
    expect((await post(u.token, 'wallet/detail', { account: 'lever', currency_id: USDT })).body.data).toMatchObject({ total: '0' });
    const [{ n }] = await t.ds.query(`SELECT COUNT(*)::int AS n FROM ledger_entries WHERE ref_type = 'deposit' AND ref_id = $1 AND code = 200`, [String(d)]);
    expect(n).toBe(2);
  });

  it('an operator decision the sequencer refuses answers its error, not success', async () => {
    const u = await user('500');
    const w = (await post(u.token, 'wallet/out', { address_id: await addAddress(u), amount: '100', password: '135790' })).body.data.withdrawal_id;
    const host = t.app.get(EngineHost);
    const submit = host.submit.bind(host);
    const refused = jest
      .spyOn(host, 'submit')
      .mockImplementation((cmd) =>
        cmd.t === 'post' && cmd.commandId === `withdrawal-approve:${w}` ? Promise.resolve(empty('INSUFFICIENT_BALANCE')) : submit(cmd),
      );
    try {
      expect((await post(admin, `admin/withdrawals/${w}/approve`, { tx_hash: 'abc', reason: 'paid out' })).body).toMatchObject({
        code: 2000,
        message: 'Insufficient balance',
      });
    } finally {
      refused.mockRestore();
    }
    expect(await coinBalance(t, u.user.id, USDT)).toEqual({ available: '400', frozen: '100' });
  });

  it('30 parallel transfers coin → lever, each of the whole balance: exactly one goes through, the rest refused with 2000; and back again', async () => {
    const u = await user('500');
    const before = await counts();
    const out = await Promise.all(
      Array.from({ length: 30 }, () => post(u.token, 'wallet/change', { from: 'coin', to: 'lever', currency_id: USDT, amount: '500' })),
    );
    expect(out.filter((a) => a.body.code === 1)).toHaveLength(1);
    expect(out.filter((a) => a.body.code === 2000)).toHaveLength(29);
    expect(await coinBalance(t, u.user.id, USDT)).toEqual({ available: '0', frozen: '0' });
    expect((await post(u.token, 'wallet/detail', { account: 'lever', currency_id: USDT })).body.data).toMatchObject({
      total: '500',
      available: '500',
      frozen: '0',
    });
    expect(await counts()).toEqual({ ...before, entries: before.entries + 2 }); // 502 out of coin, 503 into lever: once
    expect((await t.app.get(TrialBalanceService).compute()).ok).toBe(true);

    // The other way (a database account debited, the trade account credited through the outbox): the same.
    const back = await Promise.all(
      Array.from({ length: 30 }, () => post(u.token, 'wallet/change', { from: 'lever', to: 'coin', currency_id: USDT, amount: '500' })),
    );
    expect(back.filter((a) => a.body.code === 1)).toHaveLength(1);
    expect(back.filter((a) => a.body.code === 2000)).toHaveLength(29);
    expect(await coinBalance(t, u.user.id, USDT)).toEqual({ available: '500', frozen: '0' });
    expect((await post(u.token, 'wallet/detail', { account: 'lever', currency_id: USDT })).body.data).toMatchObject({ total: '0', available: '0' });
    expect(await counts()).toEqual({ ...before, entries: before.entries + 6 }); // + 502 lever, 502 transit, 503 transit, 503 coin
    expect((await t.app.get(TrialBalanceService).compute()).ok).toBe(true);
  });

  it('a withdrawal while an operator raises the fee is recorded with the new fee once that commits (regression: the fee read before was recorded, and paid on approval)', async () => {
    const u = await user('100');
    const addr = await addAddress(u);
    const [{ fee: before }] = await t.ds.query('SELECT withdraw_fee::text AS fee FROM coins WHERE id = $1', [USDT]);
    try {
      await inOpenTransaction(t.ds, async (other) => {
        // The request waits for its user's row (held here), after its own checks on the fee of now.
        await other.query('SELECT id FROM users WHERE id = $1 FOR UPDATE', [u.user.id]);
        const out = post(u.token, 'wallet/out', { address_id: addr, amount: '50', password: '135790' }).then((r) => r);
        await new Promise((r) => setTimeout(r, 500));
        expect((await post(admin, 'admin/coins/3', { withdraw_fee: '5', reason: 'gas spike' })).body.code).toBe(1);
        await other.commitTransaction();
        expect((await out).body.code).toBe(1);
      });
      const [w] = await t.ds.query(`SELECT trim_scale(fee)::text AS fee, trim_scale(actual_amount)::text AS actual FROM withdrawals WHERE user_id = $1`, [
        u.user.id,
      ]);
      expect(w).toEqual({ fee: '5', actual: '45' });
    } finally {
      await post(admin, 'admin/coins/3', { withdraw_fee: moneyString(before), reason: 'restore' });
    }
  });

  it('a deposit report retried after an operator raised the minimum answers its first record', async () => {
    const u = await user();
    const image = await proofImage(u.token);
    const body = { currency_id: USDT, chain: 'TRC20', amount: '15', image_id: image, client_id: 'dep-retry-1' };
    const first = (await post(u.token, 'wallet/charge_req', body)).body;
    expect(first).toMatchObject({ code: 1, data: { duplicate: false } });
    expect((await post(admin, 'admin/coins/3', { min_deposit: '20', reason: 'network fees rose' })).body.code).toBe(1);
    try {
      const before = await counts();
      expect((await post(u.token, 'wallet/charge_req', body)).body).toMatchObject({ code: 1, data: { deposit_id: first.data.deposit_id, duplicate: true } });
      expect(await counts()).toEqual(before);
      // A new report under the new minimum is refused.
      expect((await post(u.token, 'wallet/charge_req', { ...body, client_id: 'dep-retry-2' })).body.message).toBe('The minimum deposit is 20 USDT');
    } finally {
      await post(admin, 'admin/coins/3', { min_deposit: '10', reason: 'restore' });
    }
  });

  it('operators set fiat rates and coin rules, recorded with the reason', async () => {
    const r = await post(admin, 'admin/fiat-rates', { code: 'CNY', rate: '7.2', reason: 'daily update' });
    expect(r.body.data).toMatchObject({ code: 'CNY', rate: '7.2' });
    expect((await t.http().get('/api/coin/rate').query({ code: 'cny' })).body.data.rate).toBe('7.2');
    expect((await post(admin, 'admin/fiat-rates', { code: 'CNY', rate: '0', reason: 'x' })).body.message).toBe('Enter a valid rate');
    expect((await post(admin, 'admin/coins/3', { min_deposit: '20', reason: 'network fees rose' })).body.data.min_deposit).toBe('20');
    const [e] = await t.ds.query(`SELECT metadata FROM events WHERE stream_id = 'coin:3' ORDER BY seq DESC LIMIT 1`);
    expect(e.metadata.reason).toBe('network fees rose');
    await post(admin, 'admin/coins/3', { min_deposit: '10', reason: 'restore' });
    // Regression: a fee with more decimals than the coin has was taken (what arrives, amount − fee, could not be sent).
    const usdt = async () => (await get(admin, 'admin/coins')).body.data.find((c: { currency_id: number }) => c.currency_id === 3);
    const rules = await usdt();
    for (const field of ['withdraw_fee', 'min_withdraw', 'min_deposit'])
      expect((await post(admin, 'admin/coins/3', { [field]: '1.0000000001', reason: 'finer' })).body).toMatchObject({ code: 1000, type: 'error' });
    expect(await usdt()).toEqual(rules);
    const chains = (await get(admin, 'admin/coins')).body.data[0].chains;
    expect((await post(admin, `admin/chains/${chains[0].id}`, { deposit_address: 'not-an-address', reason: 'x' })).body.code).toBe(2208);
  });
});
