// k6 run -e WS_URL=ws://127.0.0.1:3000 -e TOKENS=tok1,tok2,... load-tests/k6/order-socket.js
// k6 run -e PROTOCOL=plain -e WS_URL=ws://127.0.0.1:3000 -e TOKENS=tok1,tok2,... load-tests/k6/order-socket.js
// Spot order entry over a socket: each VU opens one connection with its token and sends requests
// {id, method: 'place'|'cancel', params} at RATE a second (default 10), cancelling some of the
// orders that rest; the latency is from send to answer. Two protocols (PROTOCOL):
//
// - `socketio` (default): `order` messages on the Socket.IO connection, the token in the
//   handshake. k6 has no Socket.IO client: this speaks the wire format over k6/ws (Engine.IO v4 +
//   Socket.IO v5 packets, text frames, no binary): `0{…}` open → `40{"token":…}` connect with auth
//   → `40{…}` accepted; `42<n>["order",{…}]` an event wanting ack n → `43<n>[{…}]` the ack; `2`
//   ping → `3` pong. Pushed `42[…]` messages (orders, balance) are ignored. Not covered: the polling
//   transport, reconnection and connection-state recovery (the socket.io-client path is covered by
//   backend/test/order-entry.spec.ts). The project's own harness for the same load speaks the same
//   wire format: `BENCH_TRANSPORT=ws npm run bench:api` (BENCH_WS_CLIENT=socket.io-client: the library).
// - `plain`: text messages on the plain WebSocket endpoint /api/coin/ws, the token in the
//   upgrade's Authorization header, each answer matched to its request by id (the project's own
//   harness for the same load: `BENCH_TRANSPORT=plain npm run bench:api`).
import ws from 'k6/ws';
import { check } from 'k6';
import { Counter, Trend } from 'k6/metrics';

const PLAIN = (__ENV.PROTOCOL || 'socketio') === 'plain';
const BASE = __ENV.WS_URL || 'ws://127.0.0.1:3000';
const URL = PLAIN ? `${BASE}/api/coin/ws` : `${BASE}/socket.io/?EIO=4&transport=websocket`;
const TOKENS = (__ENV.TOKENS || '').split(',').filter(Boolean);
const RATE = Number(__ENV.RATE || 10);
/** How long each socket sends (keep it under DURATION); then GRACE_MS for the last answers. */
const SECONDS = Number(__ENV.SECONDS || 25);
const GRACE_MS = 3000;

const ackMs = new Trend('socket_order_ack_ms', true);
const cancelMs = new Trend('socket_cancel_ack_ms', true);
const refused = new Counter('socket_orders_refused');
const unanswered = new Counter('socket_orders_unanswered');

export const options = {
  scenarios: { socket_orders: { executor: 'constant-vus', vus: Number(__ENV.VUS || 100), duration: __ENV.DURATION || '30s' } },
  thresholds: { socket_order_ack_ms: ['p(99)<50'], socket_orders_refused: ['count<1'], socket_orders_unanswered: ['count<1'] },
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
  let connected = false;
  let stopping = false;

  const res = ws.connect(URL, PLAIN ? { headers: { Authorization: token } } : {}, (socket) => {
    function send(method, params) {
      const id = nextId++;
      pending[id] = { method, sent: Date.now() };
      const request = { id, method, params };
      socket.send(PLAIN ? JSON.stringify(request) : `42${id}${JSON.stringify(['order', request])}`);
    }

    function start() {
      connected = true;
      socket.setInterval(() => stopping || send('place', limitOrder()), 1000 / RATE);
    }

    function answered(id, answer) {
      const sent = pending[id];
      if (!sent) return undefined;
      delete pending[id];
      if (sent.method === 'cancel') return cancelMs.add(Date.now() - sent.sent);
      check(answer, { 'acknowledged (code 1)': (a) => a && a.code === 1 });
      if (!answer || answer.code !== 1) return refused.add(1);
      ackMs.add(Date.now() - sent.sent);
      if (!stopping && answer.data.status === 'waiting' && Math.random() < 0.3) send('cancel', { order_id: answer.data.order_id });
      return undefined;
    }

    if (PLAIN) socket.on('open', start);
    socket.on('message', (raw) => {
      if (PLAIN) {
        const answer = JSON.parse(raw);
        return answered(answer.id, answer);
      }
      if (raw === '2') return socket.send('3'); // Engine.IO ping → pong
      if (raw.startsWith('0')) return socket.send(`40${JSON.stringify({ token })}`); // open → connect to "/" with the token
      if (raw.startsWith('40')) return start();
      if (raw.startsWith('44')) return socket.close(); // connect refused
      if (!raw.startsWith('43')) return undefined; // pushes (`42[…]`) are not ours to count
      const bracket = raw.indexOf('[');
      return answered(Number(raw.slice(2, bracket)), JSON.parse(raw.slice(bracket))[0]);
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
  check(res, { 'upgraded to websocket': (r) => r && r.status === 101, 'connected': () => connected });
}
