import { constants, IntervalHistogram, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';

/** A distribution as the operator endpoint and the benchmarks print it (ms or counts, one decimal). */
export interface Distribution {
  samples: number;
  p50: number;
  p99: number;
  max: number;
}

/**
 * Recent measurements (a bounded number of them) until they are taken for a report. They are kept
 * in a `Float64Array` that is reused from one report to the next, growing by doubling up to the
 * limit: nothing of them is on V8's heap. A JS array of them was: it was copied to a larger one as
 * it grew, by scavenges while young and then in the old generation, where each discarded copy was
 * garbage for the next mark-compact (the per-command sample under the order loops added ~4 % of
 * what survived a scavenge on the server's main thread: docs/performance.md, forty-third sitting).
 */
export class Samples {
  private values = new Float64Array(0);
  private count = 0;

  constructor(private readonly limit = 200_000) {}

  add(value: number): void {
    if (this.count === this.values.length) {
      if (this.count >= this.limit) return;
      const grown = new Float64Array(Math.min(this.limit, Math.max(1024, this.count * 2)));
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.count++] = value;
  }

  /** The distribution of what was added since the last call (nearest-rank percentiles), and forgets it. */
  take(): Distribution {
    const s = this.values.subarray(0, this.count).sort();
    this.count = 0;
    const at = (p: number) => (s.length ? Math.round(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] * 10) / 10 : 0);
    return { samples: s.length, p50: at(50), p99: at(99), max: at(100) };
  }
}

/**
 * How late the process's event loop runs a timer that is due (ms; Node's `monitorEventLoopDelay`,
 * one sample per `resolutionMs`) since the last call: the time a ready answer or a read socket
 * waits for the thread, because it is busy with other work or the machine's scheduler runs
 * something else. The rest of a latency beside the sequencer's own (`command_ms`).
 */
export class LoopDelay {
  private readonly histogram: IntervalHistogram;

  constructor(private readonly resolutionMs = 10) {
    this.histogram = monitorEventLoopDelay({ resolution: resolutionMs });
    this.histogram.enable();
  }

  take(): Distribution {
    const h = this.histogram;
    // The histogram holds each whole interval between the timer's runs: the lateness is what exceeds the resolution.
    const ms = (ns: number) => (h.count ? Math.max(0, Math.round(ns / 1e5 - this.resolutionMs * 10) / 10) : 0);
    const d = { samples: h.count, p50: ms(h.percentile(50)), p99: ms(h.percentile(99)), max: ms(h.max) };
    h.reset();
    return d;
  }

  stop(): void {
    this.histogram.disable();
  }
}

/** This thread's garbage-collection pauses since the last report: what `GcPauses.take` answers. */
export interface GcReport {
  /** Young-generation collections (scavenges): frequent, each stops the thread for the survivors' copy. */
  scavenge_ms: Distribution;
  /** The whole heap's collections: mark-compact, and the incremental marking's steps and weak callbacks that V8 reports as pauses. */
  mark_compact_ms: Distribution;
  /** The share of the wall time since the last report the thread spent stopped in them (%, one decimal). */
  share_pct: number;
}

/**
 * This thread's garbage-collection pauses (Node's `gc` performance entries), for `stats`
 * (admin/engine): a pause stops every order the thread holds for its length, so a share of a
 * percent or more of pauses longer than a latency target is that target's p99 (docs/performance.md).
 */
export class GcPauses {
  private readonly scavenges = new Samples();
  private readonly majors = new Samples();
  private pausedMs = 0;
  private since = performance.now();
  private readonly observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = (e as { detail?: { kind?: number } | null }).detail?.kind;
      (kind === constants.NODE_PERFORMANCE_GC_MINOR ? this.scavenges : this.majors).add(e.duration);
      this.pausedMs += e.duration;
    }
  });

  constructor() {
    this.observer.observe({ entryTypes: ['gc'] });
  }

  take(): GcReport {
    const now = performance.now();
    const share = now > this.since ? Math.round((1000 * this.pausedMs) / (now - this.since)) / 10 : 0;
    this.pausedMs = 0;
    this.since = now;
    return { scavenge_ms: this.scavenges.take(), mark_compact_ms: this.majors.take(), share_pct: share };
  }

  stop(): void {
    this.observer.disconnect();
  }
}
