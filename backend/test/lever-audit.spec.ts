import Decimal from 'decimal.js';
import { TrialBalanceService } from '../src/modules/ledger/trial-balance.service';
import { LeverWatchService } from '../src/modules/lever/lever-watch.service';
import { registerByEmail, setFundPassword } from './support/accounts';
import { deposit } from './support/funding';
import { tickRecorder } from './support/mark-prices';
import { startTestApp, TestApp } from './support/test-app';

const USDT = 3;
const BTC_MARKET = 1;
// The test records the mark-price ticks itself and drives the watcher by hand.
process.env.MARK_PRICE = 'off';

/** An independent recomputation from the audit answer alone (its recorded ticks and terms), as an outsider would. */
const D = Decimal.clone({ precision: 64, rounding: Decimal.ROUND_DOWN });
function recompute(a: {
  side: string;
  lots: number;
  lot_value: string;
  multiple: number;
  open_tick: { price: string };
  close_tick: { price: string };
}) {
  const notional = new D(a.lot_value).times(a.lots);
  const margin = notional.div(a.multiple).toDecimalPlaces(8, Decimal.ROUND_DOWN);
  let pnl = notional.times(new D(a.close_tick.price).div(a.open_tick.price).minus(1));
  if (a.side === 'short') pnl = pnl.negated();
  pnl = pnl.toDecimalPlaces(8, Decimal.ROUND_DOWN);
  if (pnl.lt(margin.negated())) pnl = margin.negated();
  return { pnl: pnl.toString(), credited: margin.plus(pnl).toString() };
}

describe('lever/audit: public settlement audit of contract closes (real PostgreSQL + Redis)', () => {
  let t: TestApp;
  beforeAll(async () => {
    // The house (treasury) pays winning positions: give it a float.
    t = await startTestApp({ optionWorker: false, flashExchange: { feeRate: '0.002', quoteTtlSeconds: 15, float: { USDT: '1000000' } } });
  });
  afterAll(() => t.close());
  afterEach(async () => expect((await t.app.get(TrialBalanceService).compute()).ok).toBe(true));

  const tick = tickRecorder(() => t, BTC_MARKET);
  const watch = () => t.app.get(LeverWatchService).watch();
  const post = (token: string, path: string, body: Record<string, unknown>) =>
    t.http().post(`/api/lever/${path}`).set('Authorization', token).type('form').send(body);
  const open = (token: string, body: Record<string, unknown>) => post(token, 'submit', { symbol: 'BTC/USDT', type: 'market', multiple: 10, ...body });
  /** Public: no token. */
  const audit = (id: string) => t.http().get('/api/lever/audit').query({ position_id: id });
  const recorded = async (id: string) =>
    (await t.ds.query('SELECT id::text, price::text, ts FROM mark_prices WHERE id = $1', [id]))[0] as { id: string; price: string; ts: Date };
  const ledgerCredit = async (positionId: string) =>
    (
      await t.ds.query(
        `SELECT COALESCE(SUM(available_delta), 0)::text AS s FROM ledger_entries WHERE ref_type = 'lever' AND ref_id = $1 AND owner_type = 'user' AND code IN (22, 30)`,
        [positionId],
      )
    )[0].s as string;

  async function trader(usdt = '1000') {
    const u = await registerByEmail(t);
    await setFundPassword(t, u);
    await deposit(t, u.user.id, USDT, usdt);
    const r = await t.http().post('/api/wallet/change').set('Authorization', u.token).type('form').send({ from: 'coin', to: 'lever', currency_id: USDT, amount: usdt });
    expect(r.body.code).toBe(1);
    return u;
  }

  /** The audit of a closed position: its ticks are the recorded ones, and it recomputes to the recorded result and ledger. */
  async function expectExact(id: string, reason: string, openTickId: string, closeTickId: string) {
    const res = await audit(id);
    expect(res.body.code).toBe(1);
    const a = res.body.data;
    expect(a).toMatchObject({ position_id: id, close_reason: reason, open_tick: { id: openTickId }, close_tick: { id: closeTickId } });
    for (const [k, tid] of [
      ['open_tick', openTickId],
      ['close_tick', closeTickId],
    ] as const) {
      const row = await recorded(tid);
      expect(new D(a[k].price).eq(row.price)).toBe(true);
      expect(a[k].time).toBe(new Date(row.ts).toISOString());
    }
    const r = recompute(a);
    expect(a.result.pnl).toBe(r.pnl);
    expect(a.values).toMatchObject({ pnl: r.pnl, credited: r.credited });
    expect(new D(await ledgerCredit(id)).eq(r.credited)).toBe(true);
    expect(Object.values(a.checks).every(Boolean)).toBe(true);
    // No personal data in a public answer.
    const text = JSON.stringify(a);
    expect(text).not.toMatch(/"(user_id|userId|owner_id|email|phone|mobile|client_id)"/);
    return a;
  }

  it('a user close: the tick it closed on, the formula and the result', async () => {
    const openTick = await tick('60000');
    const u = await trader('1000');
    const p = (await open(u.token, { side: 'long', lots: '10', take_profit: '66000', stop_loss: '55000' })).body.data;
    expect(p.open_tick_id).toBe(openTick);
    expect((await audit(p.id)).body.code).toBe(2416);
    const closeTick = await tick('61200');
    const closed = (await post(u.token, 'close', { id: p.id })).body;
    expect(closed).toMatchObject({ code: 1, data: { pnl: '20', close_tick_id: closeTick } });
    const a = await expectExact(p.id, 'user', openTick, closeTick);
    expect(a.values).toMatchObject({ notional: '1000', margin: '100', fee: '1', maintenance_margin: '5', liquidation_price: '54300', pnl: '20', credited: '120', net: '19' });
    expect(a.formula.pnl).toContain('close_price / open_price');
    expect(a.ticks.map((x: { id: string }) => x.id)).toEqual([closeTick]);
    expect(a.ticks_complete).toBe(true);
  });

  it('take profit, stop loss and liquidation: the triggering tick, the ticks before it, and the result', async () => {
    const t0 = await tick('60000');
    await watch();
    const u = await trader('1000');
    const tp = (await open(u.token, { side: 'long', lots: '10', take_profit: '62000', stop_loss: '55000' })).body.data;
    const sl = (await open(u.token, { side: 'short', lots: '10', take_profit: '50000', stop_loss: '61000' })).body.data;
    const liq = (await open(u.token, { side: 'long', lots: '10', take_profit: '70000', stop_loss: '1' })).body.data;
    const quiet = await tick('60999.99');
    await watch();
    const slTick = await tick('61000');
    const tpTick = await tick('62000');
    await watch();
    const gap = await tick('50000');
    await watch();

    const s = await expectExact(sl.id, 'stop_loss', t0, slTick);
    expect(s.result.pnl).toBe('-16.66666666');
    expect(s.ticks.map((x: { id: string }) => x.id)).toEqual([quiet, slTick]);
    const p = await expectExact(tp.id, 'take_profit', t0, tpTick);
    expect(p.result.pnl).toBe('33.33333333');
    const l = await expectExact(liq.id, 'liquidation', t0, gap);
    // The gap is past the margin: the loss is the margin (−100), not the raw −166.66666666.
    expect(l.result.pnl).toBe('-100');
    expect(l.values.credited).toBe('0');
  });

  it('lists the ticks by their order of record, not by their times (regression: a close tick stamped before the open one, by a clock behind after a take-over, listed none)', async () => {
    const t0 = await tick('60000');
    await watch();
    const u = await trader('1000');
    const tp = (await open(u.token, { side: 'long', lots: '10', take_profit: '62000', stop_loss: '55000' })).body.data;
    const opened = await recorded(t0);
    const behind = (ms: number) => new Date(opened.ts.getTime() - ms);
    const quiet = await tick('61000', behind(60_000));
    const tpTick = await tick('62000', behind(59_000));
    await watch();
    const a = await expectExact(tp.id, 'take_profit', t0, tpTick);
    expect(a.ticks.map((x: { id: string }) => x.id)).toEqual([quiet, tpTick]);
    expect(a.ticks_complete).toBe(true);
  });

  it('unknown, malformed and cancelled: 2415, 1000-style refusals, 2416', async () => {
    await tick('60000');
    expect((await audit('999999999')).body.code).toBe(2415);
    const bad = await t.http().get('/api/lever/audit').query({ position_id: 'abc' });
    expect(bad.body.code).not.toBe(1);
    expect(bad.body.message).toBe('No contract position with this number');
    const u = await trader('1000');
    const limit = (await open(u.token, { type: 'limit', price: '50000', side: 'long', lots: '1', take_profit: '65000', stop_loss: '45000' })).body.data;
    expect((await post(u.token, 'cancel', { id: limit.id })).body.code).toBe(1);
    const r = (await audit(limit.id)).body;
    expect(r).toMatchObject({ code: 2416, message: 'This position is not closed yet: there is no settlement to audit' });
  });
});
