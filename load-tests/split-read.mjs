// Split roles (one ROLE=engine and one ROLE=api process, lib/stack.mjs startSplitStack): a trader's
// read through the api process sees its own order at once, although the engine's projector lingers
// (ENGINE_PROJECT_LINGER_MS, set long here): the api process asks the engine not to linger up to
// the batch it waits for (a `hurry` event on the engine link). Prints one line per order and last
// `split read: <N> of <N> reads within <W> ms` (exit code 1 when a read waited out the linger).
import { call, log, makeTraders, startSplitStack } from './lib/stack.mjs';

const LINGER_MS = 3000;
/** A read that took half the linger waited for it. */
const WITHIN_MS = LINGER_MS / 2;
const ORDERS = 3;

const stack = await startSplitStack({ apiProcesses: 1, env: { ENGINE_PROJECT_LINGER_MS: String(LINGER_MS) } });
let fast = 0;
try {
  const [trader] = await makeTraders(stack, 1, { 3: '1000' });
  // The funding's own projection: past it, nothing of the setup is pending.
  await new Promise((r) => setTimeout(r, LINGER_MS + 500));
  for (let i = 1; i <= ORDERS; i++) {
    const placed = await call(
      stack.apiUrl,
      'POST',
      'coin/trade',
      { symbol: 'BTC/USDT', side: 'buy', type: 'limit', price: '10', quantity: '0.001' },
      trader.token,
    );
    const t0 = performance.now();
    const list = await call(stack.apiUrl, 'GET', 'coin/list', undefined, trader.token);
    const ms = performance.now() - t0;
    const seen = placed.code === 1 && list.data?.items?.some((o) => o.order_id === placed.data.order_id);
    log(`order ${i}: placed (code ${placed.code}); coin/list ${seen ? 'shows it' : 'does NOT show it'} after ${ms.toFixed(0)} ms`);
    if (seen && ms < WITHIN_MS) fast++;
  }
} finally {
  await stack.stop();
}
console.log(`split read: ${fast} of ${ORDERS} reads within ${WITHIN_MS} ms`);
process.exitCode = fast === ORDERS ? 0 : 1;
