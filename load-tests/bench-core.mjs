// npm run bench:core — the exchange core without HTTP: the same order and cancel mix as bench:api,
// called straight on the spot-order service (CoinTradeService.place / cancel) inside one process
// that runs the whole app (engine host, journal, settlement, ledger) on a fresh database. No load
// generator process, no HTTP, no token check, no body validation: what one order costs the core
// and PostgreSQL, and how many orders a second they reach with the machine's two cores to
// themselves. BENCH_RATE=N offers N orders/s on a schedule (open loop, latency from the scheduled
// time; at most BENCH_CONCURRENCY in flight, unset as bench:api's open loop) instead of
// BENCH_CONCURRENCY callers back to back. It prints the per-order budgets (CPU ms
// of the process and of PostgreSQL, rows written) and the projector's lag. BENCH_PG_WAITS=1 also
// samples what the journal's append waits on in PostgreSQL (lib/pg-waits.mjs; a diagnosis: the
// sampling costs PostgreSQL CPU); BENCH_PG_WAL=1 prints the window's WAL per order by kind and
// by table (lib/pg-wal.mjs; it starts with a CHECKPOINT). Last line:
// `core: <N> orders/s p99 <L> ms`.
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadSlots, openLoop } from './lib/open-loop.mjs';
import { pgWaitsText, samplePgWaits } from './lib/pg-waits.mjs';
import { walText, walWindow } from './lib/pg-wal.mjs';
import { backpressureLine, cpuReport, cpuTimes, freshStackEnv, gcPausesText, log, logTrace, makeTraders, measuredWindow, orderMix, percentile, rowCounter } from './lib/stack.mjs';

const USERS = Number(process.env.BENCH_USERS ?? 100);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
const CANCEL_SHARE = Number(process.env.BENCH_CANCEL_SHARE ?? 0.3);
const RATE = Number(process.env.BENCH_RATE ?? 0);
/** Closed loop: its callers; open loop: its slots (lib/open-loop.mjs loadSlots). */
const CONCURRENCY = loadSlots(RATE, CANCEL_SHARE);
const TRACE = Boolean(process.env.BENCH_TRACE);

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'backend', 'dist', 'main.js'));

const stack = await freshStackEnv();
Object.assign(process.env, stack.env);
require('reflect-metadata');
const { createApp } = require('./app.factory');
const { loadConfig } = require('./infra/config/config');
const { CoinTradeService } = require('./modules/coin-trade/coin-trade.service');
const { BusinessError } = require('./infra/http/business-error');
const { EngineHost } = require('./modules/engine/engine-host.service');
const { TrialBalanceService } = require('./modules/ledger/trial-balance.service');
let app;
try {
  app = await createApp(loadConfig());
  await app.listen(stack.port, '127.0.0.1');
  log(`making ${USERS} funded traders…`);
  const traders = (await makeTraders(stack, USERS, { 3: '100000000', 1: '10000' })).map((t) => ({ ...t, open: [] }));
  const orders = app.get(CoinTradeService);
  const mix = orderMix(CANCEL_SHARE);
  const latencies = [];
  const trace = [];
  const errors = new Map();
  const pids = { core: [process.pid] };
  const host = app.get(EngineHost);
  let cpuBefore;
  let pgWaits;
  const rows = await rowCounter(stack.databaseUrl);
  const wal = process.env.BENCH_PG_WAL === '1' ? await walWindow({ databaseUrl: stack.databaseUrl }) : undefined;
  log(`warm-up ${WARMUP} s, then ${RATE > 0 ? `${RATE} orders/s offered (open loop)` : `${CONCURRENCY} concurrent callers`} for ${SECONDS} s`);
  const win = measuredWindow(WARMUP, SECONDS, async () => {
    await rows.mark();
    await wal?.mark();
    if (process.env.BENCH_PG_WAITS === '1') pgWaits = await samplePgWaits({ databaseUrl: stack.databaseUrl });
    cpuBefore = cpuTimes(pids);
    host.stats(); // the lag is counted from here
  });

  async function step(trader, scheduled) {
    const id = mix.cancelFrom(trader.open);
    if (id !== undefined) {
      try {
        await orders.cancel(trader.id, id);
      } catch (err) {
        // Refused when the order filled meanwhile (code 2104), as in bench:api: not counted; anything else is.
        if (!(err instanceof BusinessError) && win.recording) errors.set(`cancel: ${err?.message}`, (errors.get(`cancel: ${err?.message}`) ?? 0) + 1);
      }
      return;
    }
    try {
      const counted = win.recording;
      const t0 = scheduled ?? performance.now();
      const view = await orders.place(trader.id, mix.order());
      if (view.status === 'waiting') trader.open.push(view.order_id);
      if (counted) {
        const ms = performance.now() - t0;
        latencies.push(ms);
        if (TRACE) trace.push([Math.floor((t0 - win.started) / 1000), ms]);
      }
    } catch (err) {
      const code = err?.code ?? err?.message;
      if (win.recording) errors.set(code, (errors.get(code) ?? 0) + 1);
    }
  }

  let notSent = 0;
  if (RATE > 0) {
    // Requests (orders and the cancels that go with them) on a fixed schedule.
    ({ notSent } = await openLoop({
      perSecond: RATE / (1 - CANCEL_SHARE),
      concurrency: CONCURRENCY,
      deadline: win.deadline,
      recording: () => win.recording,
      step: (i, scheduled) => step(traders[i % traders.length], scheduled),
    }));
  } else {
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async (_, w) => {
        while (performance.now() < win.deadline) await step(traders[w % traders.length]);
      }),
    );
  }
  await win.ready;
  const elapsed = win.elapsed();
  logTrace(trace);
  const cpu = cpuReport(cpuBefore, cpuTimes(pids), elapsed, latencies.length);
  const waits = await pgWaits?.stop();
  const walStats = await wal?.stop();
  await host.idle();
  const engine = await host.stats();
  const written = await rows.since();
  await rows.close();
  const perOrder = Object.entries(written).map(([k, n]) => `${k} ${(n / Math.max(1, latencies.length)).toFixed(2)}`);
  const trial = await app.get(TrialBalanceService).compute();
  latencies.sort((a, b) => a - b);
  const p99 = percentile(latencies, 99).toFixed(1);
  console.log(`orders placed: ${latencies.length} in ${elapsed.toFixed(1)} s; refused: ${JSON.stringify(Object.fromEntries(errors))}`);
  if (notSent) log(`warning: ${notSent} orders were not sent (all ${CONCURRENCY} slots busy)`);
  console.log(`cores used (of 2): ${cpu}`);
  console.log(`rows written per acknowledged order: ${perOrder.join(', ')}`);
  const j = engine.journal_write_ms;
  const b = engine.commands_per_journal_row;
  console.log(`journal: ${j.samples} rows, write ms p50 ${j.p50} p99 ${j.p99} max ${j.max}; commands per row p50 ${b.p50} p99 ${b.p99}`);
  console.log(backpressureLine(engine.backpressure_ms));
  const c = engine.command_ms;
  console.log(`in the sequencer ms (queued, journaled, applied): p50 ${c.p50} p99 ${c.p99} max ${c.max}`);
  if (waits) for (const line of pgWaitsText(waits)) console.log(line);
  if (walStats) for (const line of walText(walStats, latencies.length)) console.log(line);
  // How late this process (the sequencer and the generator on one thread) ran a due timer: a command's wait for the thread.
  const d = engine.event_loop_delay_ms;
  console.log(`event loop delay ms: p50 ${d.p50} p99 ${d.p99} max ${d.max}`);
  // Each pause stops every order the thread holds (docs/performance.md, twenty-ninth sitting).
  console.log(`GC pauses ms (this process's main thread): ${gcPausesText(engine.gc_pauses)}`);
  console.log(`projector lag ms: p50 ${engine.projector_lag_ms.p50} p99 ${engine.projector_lag_ms.p99} max ${engine.projector_lag_ms.max} (${engine.projector_lag_ms.samples} batches)`);
  console.log(`trial balance after the run: ${trial.ok ? 'exact' : `WRONG ${JSON.stringify(trial.currencies)}`}`);
  console.log(`latency ms: p50 ${percentile(latencies, 50).toFixed(1)}  p90 ${percentile(latencies, 90).toFixed(1)}  p99 ${p99}`);
  console.log(`core: ${Math.round(latencies.length / elapsed)} orders/s p99 ${p99} ms`);
} finally {
  await app?.close();
  await stack.dropDatabase();
}
