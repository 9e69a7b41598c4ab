import { depositCommand as deposit } from '../../../test/support/sequencer-commands';
import type { JournalBatch } from './journal-writer';
import { rebuild, RebuildFrom } from './recovery';
import type { MarketParams, PlaceCmd, SeqCommand } from './sequencer/commands';
import { Sequencer, SequencerSnapshot } from './sequencer/sequencer';

const BTC = 1;
const USDT = 3;
const T0 = 1_700_000_000_000;
const MARKET: MarketParams = { id: 1, symbol: 'BTC/USDT', baseId: BTC, quoteId: USDT, tickSize: '0.01', lotSize: '0.0001', makerFee: '0.001', takerFee: '0.002' };

const limit = (userId: number, side: 'buy' | 'sell', price: number, qty: number): PlaceCmd => ({ t: 'place', userId, marketId: 1, side, type: 'limit', price, qty, quoteBudget: 0 });

/**
 * A journal of 40 batches (a market, deposits, crossing orders, cancels), written by a live
 * sequencer as the host would: its snapshots at batches 10 and 25, and its replay hash after each batch.
 */
function history() {
  const live = new Sequencer();
  const batches: JournalBatch[] = [];
  const hashes = new Map<number, string>();
  const snapshots: SequencerSnapshot[] = [];
  let trades = 0;
  // The host clock stepped back at batch 20: later batches keep the time already reached.
  const ts = (seq: number) => T0 + (seq === 20 ? -5_000 : seq * 1_000);
  for (let seq = 1; seq <= 40; seq++) {
    const commands: SeqCommand[] =
      seq === 1
        ? [{ t: 'market', market: MARKET }, deposit(1, USDT, '100000', 'd1'), deposit(2, BTC, '10', 'd2'), deposit(3, USDT, '5000', 'd3')]
        : [limit(2, 'sell', 6_000_000 + (seq % 5) * 100, 3 + (seq % 4)), limit(1, 'buy', 6_000_000 + (seq % 3) * 200, 2 + (seq % 6)), { t: 'cancel', userId: 1, orderId: seq * 2 - 3 }];
    const batch = { seq, ts: ts(seq), commands };
    live.beginBatch(batch.seq, batch.ts);
    for (const c of commands) trades += live.apply(c).trades.length;
    batches.push(batch);
    hashes.set(seq, live.hash());
    if (seq === 10 || seq === 25) snapshots.push(JSON.parse(JSON.stringify(live.snapshot())) as SequencerSnapshot);
  }
  return { batches, hashes, snapshots, trades };
}

/** The journal and snapshot store over those, counting the journal's reads. */
function source(h: ReturnType<typeof history>, withGenesis = true): RebuildFrom & { reads: number } {
  const src = {
    reads: 0,
    journal: {
      after: async (seq: number, limit: number) => {
        src.reads++;
        return h.batches.filter((b) => b.seq > seq).slice(0, limit);
      },
    },
    snapshots: { latest: async (seq: number) => [...h.snapshots].reverse().find((s) => s.seq <= seq) },
    genesis: withGenesis ? async () => new Sequencer() : undefined,
  };
  return src;
}

describe('rebuild (recovery)', () => {
  const h = history();

  it('the history trades (books and balances move)', () => {
    expect(h.trades).toBeGreaterThan(20);
  });

  it('from genesis, the whole journal replayed gives the live replay hash', async () => {
    const { seqr, snapshot, replayed } = await rebuild(source(h), 5);
    expect([snapshot, replayed, seqr.seq]).toEqual([0, 40, 40]);
    expect(seqr.hash()).toBe(h.hashes.get(40));
  });

  it('from the newest snapshot at or below the watermark, the same state, reading the journal in chunks', async () => {
    for (const [watermark, from] of [
      [12, 10],
      [25, 25],
      [39, 25],
    ]) {
      const src = source(h);
      const { seqr, snapshot, replayed } = await rebuild(src, watermark, { chunk: 4 });
      expect([snapshot, replayed]).toEqual([from, 40 - from]);
      expect(seqr.hash()).toBe(h.hashes.get(40));
      expect(src.reads).toBe(Math.floor((40 - from) / 4) + 1);
    }
  });

  it('up to `until` (the projection replica: to its watermark), the state at that batch', async () => {
    const { seqr, replayed } = await rebuild(source(h), 12, { until: 17, chunk: 3 });
    expect([seqr.seq, replayed]).toEqual([17, 7]);
    expect(seqr.hash()).toBe(h.hashes.get(17));
  });

  it('postings off (the host) changes nothing of the state', async () => {
    const { seqr } = await rebuild(source(h), 30, { postings: false });
    expect(seqr.postings).toBe(false);
    expect(seqr.hash()).toBe(h.hashes.get(40));
  });

  it("the newest batch time, from the snapshot and the batches (a clock that stepped back does not count)", async () => {
    expect((await rebuild(source(h), 0)).lastTs).toBe(T0 + 40_000);
    expect((await rebuild(source(h), 39, { until: 25 })).lastTs).toBe(T0 + 25_000); // the snapshot's own time
    expect((await rebuild(source(h), 12, { until: 20 })).lastTs).toBe(T0 + 19_000);
  });

  it('without a snapshot at or below the watermark and no genesis, it refuses', async () => {
    await expect(rebuild(source(h, false), 9)).rejects.toThrow('no sequencer snapshot at or below batch 9');
  });
});
