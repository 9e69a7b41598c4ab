// k6 run -e API_URL=http://127.0.0.1:3000 -e TOKENS=tok1,tok2,... load-tests/k6/spot-orders.js
// Users place limit orders around a price and cancel some of them. Tokens come from accounts that
// have a fund password and funds (see docs/performance.md, "k6"). Loopback targets only.
import http from 'k6/http';
import { check } from 'k6';
import { Trend, Counter } from 'k6/metrics';

const API = __ENV.API_URL || 'http://127.0.0.1:3000';
const TOKENS = (__ENV.TOKENS || '').split(',').filter(Boolean);
const ack = new Trend('order_ack_ms', true);
const refused = new Counter('orders_refused');

export const options = {
  scenarios: { orders: { executor: 'constant-vus', vus: Number(__ENV.VUS || 100), duration: __ENV.DURATION || '30s' } },
  thresholds: { order_ack_ms: ['p(99)<50'], orders_refused: ['count<1'] },
};

export default function () {
  const token = TOKENS[(__VU - 1) % TOKENS.length];
  const headers = { Authorization: token, 'Content-Type': 'application/x-www-form-urlencoded' };
  const side = Math.random() < 0.5 ? 'buy' : 'sell';
  const price = (60000 * (1 + (Math.random() - 0.5) * 0.01)).toFixed(2);
  const res = http.post(`${API}/api/coin/trade`, { symbol: 'BTC/USDT', side, type: 'limit', price, quantity: '0.001' }, { headers });
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
