import { join } from 'node:path';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { DataSource } from 'typeorm';
import { marketLookup, ProjectionReplica, ReplicaEvent, ReplicaMarket, ReplicaOptions } from './projection-replica';
import { PROJECTOR_APPLICATION, Projector } from './projector';
import { JournalSignal } from './journal-signal';
import { lowerThreadPriority } from './thread-priority';

interface ThreadData extends ReplicaOptions {
  databaseUrl: string;
  markets: ReplicaMarket[];
  /**
   * PostgreSQL ends a projector transaction left idle this long (the engine lease). A holder paused
   * (SIGSTOP) inside one would otherwise keep the watermark row locked, and the new holder's
   * projector, which recovery waits for, would wait with it until the old one resumed.
   */
  idleTransactionMs: number;
  /** The thread's nice value (ENGINE_PROJECTOR_NICE; 0 leaves it at the process's): `lowerThreadPriority`. */
  nice: number;
}

/** What the thread is started with: the settings and the host's journal signal (shared memory). */
type ThreadStart = ThreadData & { signal: SharedArrayBuffer };

type ToThread = { kind: 'journaled'; seq: number } | { kind: 'flush'; seq: number } | { kind: 'stop' };
type FromThread = ReplicaEvent | { kind: 'started'; nice?: number } | { kind: 'stopped' };

/**
 * The projection replica on a thread of its own, with its own database connections: the host's
 * event loop, which answers every request, never builds or sends a projection's rows, and the
 * projector is never starved by a flood of requests. Only sequence numbers cross between them.
 * Runs where the compiled file exists (the built app); tests on the sources run the replica
 * in-process, the same code.
 */
export class ProjectorThread {
  private readonly worker: Worker;
  private readonly signal = new JournalSignal();
  private readonly started: Promise<void>;
  private stopped?: () => void;
  private exited = false;
  /** The thread's nice value once started (undefined: the process's own). */
  nice?: number;

  constructor(data: ThreadData, onEvent: (e: ReplicaEvent) => void) {
    this.worker = new Worker(join(__dirname, 'projector-thread.js'), { workerData: { ...data, signal: this.signal.buffer } satisfies ThreadStart });
    this.started = new Promise((resolve, reject) => {
      let up = false;
      this.worker.on('message', (m: FromThread) => {
        if (m.kind === 'started') {
          up = true;
          this.nice = m.nice;
          resolve();
        } else if (m.kind === 'stopped') this.stopped?.();
        // A failure before it started (its database, its rebuild) fails the start, so recovery does not wait forever.
        else if (m.kind === 'failed' && !up) reject(new Error(`projector thread: ${m.error}`));
        else onEvent(m);
      });
      this.worker.once('error', (err) => {
        reject(err);
        onEvent({ kind: 'failed', error: err.message });
      });
      // It ended before it said it started (a failure before its listener was set): the start fails.
      this.worker.once('exit', (code) => {
        this.exited = true;
        this.stopped?.();
        if (!up) reject(new Error(`projector thread exited (code ${code}) before it started`));
      });
    });
  }

  static available(): boolean {
    return __filename.endsWith('.js');
  }

  start(): Promise<void> {
    return this.started;
  }

  /** The thread reads the head itself while it works; it is sent a message only while it waits for work. */
  journaled(seq: number): void {
    if (this.signal.publish(seq)) this.worker.postMessage({ kind: 'journaled', seq } satisfies ToThread);
  }

  /** A read waits for the watermark to reach `seq` (ProjectionReplica.flush). */
  flush(seq: number): void {
    this.worker.postMessage({ kind: 'flush', seq } satisfies ToThread);
  }

  async stop(): Promise<void> {
    if (this.exited) return;
    await new Promise<void>((resolve) => {
      this.stopped = resolve;
      this.worker.postMessage({ kind: 'stop' } satisfies ToThread);
      setTimeout(resolve, 5000).unref();
    });
    await this.worker.terminate();
  }
}

async function serve(data: ThreadStart): Promise<void> {
  const nice = lowerThreadPriority(data.nice);
  const ds = new DataSource({
    type: 'postgres',
    url: data.databaseUrl,
    entities: [],
    // Its connections are kept, as the app's pool keeps its own (infra/database/data-source.ts).
    extra: { max: 2, idleTimeoutMillis: 0, idle_in_transaction_session_timeout: data.idleTransactionMs, application_name: PROJECTOR_APPLICATION },
  });
  await ds.initialize();
  // The replica's batches carry the units each place was applied with (applyBatch); for any that do not, a
  // market's units are the journal's as far as the replica's sequencer has applied it (a market listed or
  // re-ticked after start), else the ones it started with.
  const ref: { replica?: ProjectionReplica } = {};
  const markets = marketLookup(data.markets, (id) => ref.replica?.market(id));
  const replica = new ProjectionReplica(
    ds,
    new Projector(ds, markets, data.idleTransactionMs),
    data,
    (e) => parentPort!.postMessage(e satisfies FromThread),
    new JournalSignal(data.signal),
  );
  ref.replica = replica;
  parentPort!.on('message', (m: ToThread) => {
    if (m.kind === 'journaled') replica.journaled(m.seq);
    else if (m.kind === 'flush') replica.flush(m.seq);
    else
      void replica
        .stop()
        .then(() => ds.destroy())
        .finally(() => parentPort!.postMessage({ kind: 'stopped' } satisfies FromThread));
  });
  await replica.start();
  parentPort!.postMessage({ kind: 'started', nice } satisfies FromThread);
}

if (!isMainThread && (workerData as ThreadData | undefined)?.databaseUrl) {
  serve(workerData as ThreadStart).catch((err: unknown) => parentPort!.postMessage({ kind: 'failed', error: String(err) } satisfies FromThread));
}
