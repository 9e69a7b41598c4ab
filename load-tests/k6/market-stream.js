// k6 run -e WS_URL=ws://127.0.0.1:3000 load-tests/k6/market-stream.js
// Socket.IO clients (Engine.IO v4 over a raw WebSocket) subscribing to tickers, one depth and one
// trades topic, measuring message rate and delivery latency from the server's `ts`. They take their
// market data as the web app does (`auth.feed = 'batch'`: one `feed` event per conflation cycle);
// FEED=topics connects without it (one event per topic).
import ws from 'k6/ws';
import { check } from 'k6';
import { Trend, Rate } from 'k6/metrics';

const URL = `${__ENV.WS_URL || 'ws://127.0.0.1:3000'}/socket.io/?EIO=4&transport=websocket`;
const latency = new Trend('delivery_ms', true);
const messages = new Rate('messages');

export const options = {
  scenarios: { stream: { executor: 'constant-vus', vus: Number(__ENV.VUS || 1000), duration: __ENV.DURATION || '30s' } },
  thresholds: { delivery_ms: ['p(99)<200'] },
};

export default function () {
  const res = ws.connect(URL, {}, (socket) => {
    socket.on('message', (raw) => {
      if (raw === '2') return socket.send('3'); // Engine.IO ping → pong
      if (raw.startsWith('0')) return socket.send(__ENV.FEED === 'topics' ? '40' : '40{"feed":"batch"}'); // open → connect to namespace "/" (auth payload)
      if (raw.startsWith('40')) return socket.send('421["subscribe",["tickers","depth:BTC/USDT","trades:BTC/USDT"]]');
      if (!raw.startsWith('42')) return;
      const [event, payload] = JSON.parse(raw.slice(2));
      const envelopes = event === 'feed' ? payload.map((item) => item[1]) : [payload];
      for (const m of envelopes)
        if (m && m.ts) {
          latency.add(Date.now() - m.ts);
          messages.add(1);
        }
    });
    socket.setTimeout(() => socket.close(), 25000);
  });
  check(res, { 'upgraded to websocket': (r) => r && r.status === 101 });
}
