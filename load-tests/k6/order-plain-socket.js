// k6 run -e WS_URL=ws://127.0.0.1:3000 -e TOKENS=tok1,tok2,... load-tests/k6/order-plain-socket.js
// Spot order entry over the plain WebSocket endpoint /api/coin/ws: each VU opens one connection
// with its token in the Authorization header and sends text messages {id, method: 'place'|'cancel',
// params} at RATE a second (default 10), cancelling some of the orders that rest; each answer
// {id, type, code, message, data} is matched to its request by id, and the latency is from send
// to answer. (The project's own harness for the same load: `BENCH_TRANSPORT=plain npm run bench:api`.)
import ws from 'k6/ws';
import { check } from 'k6';
import { Counter, Trend } from 'k6/metrics';

const URL = `${__ENV.WS_URL || 'ws://127.0.0.1:3000'}/api/coin/ws`;
const TOKENS = (__ENV.TOKENS || '').split(',').filter(Boolean);
const RATE = Number(__ENV.RATE || 10);
/** How long each connection sends (keep it under DURATION); then GRACE_MS for the last answers. */
const SECONDS = Number(__ENV.SECONDS || 25);
const GRACE_MS = 3000;

const answerMs = new Trend('plain_order_answer_ms', true);
const cancelMs = new Trend('plain_cancel_answer_ms', true);
const refused = new Counter('plain_orders_refused');
const unanswered = new Counter('plain_orders_unanswered');

export const options = {
  scenarios: { plain_orders: { executor: 'constant-vus', vus: Number(__ENV.VUS || 100), duration: __ENV.DURATION || '30s' } },
  thresholds: { plain_order_answer_ms: ['p(99)<50'], plain_orders_refused: ['count<1'], plain_orders_unanswered: ['count<1'] },
};

function limitOrder() {
  const side = Math.random() < 0.5 ? 'buy' : 'sell';
  const price = (60000 * (1 + (Math.random() - 0.5) * 0.01)).toFixed(2);
  return { symbol: 'BTC/USDT', side, type: 'limit', price, quantity: '0.001' };
}

export default function () {
  const token = TOKENS[(__VU - 1) % TOKENS.length];
  const pending = {}; // request id → {method, sent}
  let nextId = 0;
  let stopping = false;

  const res = ws.connect(URL, { headers: { Authorization: token } }, (socket) => {
    function send(method, params) {
      const id = nextId++;
      pending[id] = { method, sent: Date.now() };
      socket.send(JSON.stringify({ id, method, params }));
    }

    socket.on('open', () => socket.setInterval(() => stopping || send('place', limitOrder()), 1000 / RATE));
    socket.on('message', (raw) => {
      const answer = JSON.parse(raw);
      const sent = pending[answer.id];
      if (!sent) return undefined;
      delete pending[answer.id];
      if (sent.method === 'cancel') return cancelMs.add(Date.now() - sent.sent);
      check(answer, { 'acknowledged (code 1)': (a) => a.code === 1 });
      if (answer.code !== 1) return refused.add(1);
      answerMs.add(Date.now() - sent.sent);
      if (!stopping && answer.data.status === 'waiting' && Math.random() < 0.3) send('cancel', { order_id: answer.data.order_id });
      return undefined;
    });

    socket.setTimeout(() => {
      stopping = true;
      socket.setTimeout(() => {
        // An order still without its answer this long after the last one was sent counts as unanswered.
        const open = Object.keys(pending).filter((id) => pending[id].method === 'place').length;
        if (open) unanswered.add(open);
        socket.close();
      }, GRACE_MS);
    }, SECONDS * 1000);
  });
  check(res, { 'upgraded to websocket': (r) => r && r.status === 101 });
}
