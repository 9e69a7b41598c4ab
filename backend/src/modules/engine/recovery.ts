import type { JournalBatch } from './journal-writer';
import { Sequencer, SequencerSnapshot } from './sequencer/sequencer';

export interface RebuildFrom {
  /** The journal's batches after `seq`, in order, at most `limit` of them. */
  journal: { after(seq: number, limit: number): Promise<JournalBatch[]> };
  /** The newest snapshot at or below `seq`. */
  snapshots: { latest(seq: number): Promise<SequencerSnapshot | undefined> };
  /** The state at batch 0 when no snapshot is that old (stored as one); without it, no snapshot is an error. */
  genesis?: () => Promise<Sequencer>;
}

export interface Rebuilt {
  seqr: Sequencer;
  /** The snapshot it started from (0: genesis). */
  snapshot: number;
  /** Batches applied after it. */
  replayed: number;
  /** The newest batch time in the snapshot and the batches applied (a new batch's time never goes back). */
  lastTs: number;
}

/**
 * The sequencer's state at a journal position (DESIGN §6, recovery): the newest snapshot at or
 * below `watermark` (the projector's), then every journaled batch after it applied again, up to
 * `until` (the journal's head when absent). The sequencer is pure, so this is the state the
 * batches produced the first time: the same books, balances, ids and replay hash. The host
 * rebuilds to the head (it answers next); the projection replica to the watermark (it projects
 * what follows). `postings: false` for a copy that never writes the ledger (the host's).
 */
export async function rebuild(from: RebuildFrom, watermark: number, options: { until?: number; postings?: boolean; chunk?: number } = {}): Promise<Rebuilt> {
  const snap = await from.snapshots.latest(watermark);
  if (!snap && !from.genesis) throw new Error(`no sequencer snapshot at or below batch ${watermark}`);
  const seqr = snap ? Sequencer.restore(snap) : await from.genesis!();
  if (options.postings !== undefined) seqr.postings = options.postings;
  const until = options.until ?? Infinity;
  const chunk = options.chunk ?? 500;
  let replayed = 0;
  let lastTs = snap?.ts ?? 0;
  for (;;) {
    const rows = await from.journal.after(seqr.seq, chunk);
    const todo = rows.filter((b) => b.seq <= until);
    for (const b of todo) {
      seqr.beginBatch(b.seq, b.ts);
      for (const c of b.commands) seqr.apply(c);
      lastTs = Math.max(lastTs, b.ts);
    }
    replayed += todo.length;
    if (todo.length < rows.length || rows.length < chunk) break;
  }
  return { seqr, snapshot: snap?.seq ?? 0, replayed, lastTs };
}
