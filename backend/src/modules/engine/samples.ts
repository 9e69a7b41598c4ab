/** A distribution as the operator endpoint and the benchmarks print it (ms or counts, one decimal). */
export interface Distribution {
  samples: number;
  p50: number;
  p99: number;
  max: number;
}

/** Recent measurements (a bounded number of them) until they are taken for a report. */
export class Samples {
  private values: number[] = [];

  constructor(private readonly limit = 200_000) {}

  add(value: number): void {
    if (this.values.length < this.limit) this.values.push(value);
  }

  /** The distribution of what was added since the last call (nearest-rank percentiles), and forgets it. */
  take(): Distribution {
    const s = this.values.sort((a, b) => a - b);
    this.values = [];
    const at = (p: number) => (s.length ? Math.round(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] * 10) / 10 : 0);
    return { samples: s.length, p50: at(50), p99: at(99), max: at(100) };
  }
}
