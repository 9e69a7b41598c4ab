// k6 run -e API_URL=http://127.0.0.1:3000 -e TOKENS=tok1,tok2,... load-tests/k6/spot-orders.js
// Users place limit orders around a price and cancel some of them. Tokens come from accounts that
// have a fund password and funds (see docs/performance.md, "k6"). Loopback targets only.
//
// SCENARIOS picks what runs (comma-separated, default `orders`):
// - `orders`: one order per POST /api/coin/trade (form-encoded), then sometimes PUT to cancel it;
// - `batch`: BATCH_SIZE (1–10, default 10) orders per POST /api/coin/batch_trade (JSON body);
//   each entry's own envelope is in `data.results`, and a waiting one is sometimes cancelled.
// Socket.IO order entry is in order-socket.js.
import http from 'k6/http';
import { check } from 'k6';
import { Trend, Counter } from 'k6/metrics';

const API = __ENV.API_URL || 'http://127.0.0.1:3000';
const TOKENS = (__ENV.TOKENS || '').split(',').filter(Boolean);
const SCENARIOS = (__ENV.SCENARIOS || 'orders').split(',').filter(Boolean);
const BATCH_SIZE = Math.min(10, Math.max(1, Number(__ENV.BATCH_SIZE || 10)));
const VUS = Number(__ENV.VUS || 100);
const DURATION = __ENV.DURATION || '30s';

const ack = new Trend('order_ack_ms', true);
const refused = new Counter('orders_refused');
const batchAck = new Trend('batch_ack_ms', true);
const batchOrders = new Counter('batch_orders_acknowledged');
const batchRefused = new Counter('batch_orders_refused');

const scenarios = {};
const thresholds = {};
if (SCENARIOS.includes('orders')) {
  scenarios.orders = { executor: 'constant-vus', exec: 'single', vus: VUS, duration: DURATION };
  thresholds.order_ack_ms = ['p(99)<50'];
  thresholds.orders_refused = ['count<1'];
}
if (SCENARIOS.includes('batch')) {
  scenarios.batch = { executor: 'constant-vus', exec: 'batch', vus: VUS, duration: DURATION };
  thresholds.batch_ack_ms = ['p(99)<100'];
  thresholds.batch_orders_refused = ['count<1'];
}
export const options = { scenarios, thresholds };

function limitOrder() {
  const side = Math.random() < 0.5 ? 'buy' : 'sell';
  const price = (60000 * (1 + (Math.random() - 0.5) * 0.01)).toFixed(2);
  return { symbol: 'BTC/USDT', side, type: 'limit', price, quantity: '0.001' };
}

function tokenOfVu() {
  return TOKENS[(__VU - 1) % TOKENS.length];
}

export function single() {
  const headers = { Authorization: tokenOfVu(), 'Content-Type': 'application/x-www-form-urlencoded' };
  const res = http.post(`${API}/api/coin/trade`, limitOrder(), { headers });
  const body = res.json();
  check(body, { 'acknowledged (code 1)': (b) => b && b.code === 1 });
  if (!body || body.code !== 1) {
    refused.add(1);
    return;
  }
  ack.add(res.timings.duration);
  if (body.data.status === 'waiting' && Math.random() < 0.3) {
    http.put(`${API}/api/coin/trade`, { order_id: body.data.order_id }, { headers });
  }
}

export function batch() {
  const token = tokenOfVu();
  const orders = [];
  for (let i = 0; i < BATCH_SIZE; i++) orders.push(limitOrder());
  const res = http.post(`${API}/api/coin/batch_trade`, JSON.stringify({ orders }), { headers: { Authorization: token, 'Content-Type': 'application/json' } });
  const body = res.json();
  const results = body && body.code === 1 ? body.data.results : [];
  check(body, { 'batch answered (code 1)': (b) => b && b.code === 1, 'one result per order': () => results.length === orders.length });
  if (!results.length) {
    batchRefused.add(orders.length);
    return;
  }
  batchAck.add(res.timings.duration);
  for (const r of results) {
    if (r.code !== 1) {
      batchRefused.add(1);
      continue;
    }
    batchOrders.add(1);
    if (r.data.status === 'waiting' && Math.random() < 0.3) {
      http.put(`${API}/api/coin/trade`, { order_id: r.data.order_id }, { headers: { Authorization: token, 'Content-Type': 'application/x-www-form-urlencoded' } });
    }
  }
}

/** `k6 run` without `exec` (older scripts' habit) runs single orders. */
export default single;
