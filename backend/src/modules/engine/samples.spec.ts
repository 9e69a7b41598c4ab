import { GcPauses, LoopDelay, Samples } from './samples';

describe('Samples', () => {
  it('reports nearest-rank percentiles of what was added, rounded to one decimal, and forgets them', () => {
    const s = new Samples();
    for (let i = 100; i >= 1; i--) s.add(i + 0.04);
    expect(s.take()).toEqual({ samples: 100, p50: 51, p99: 100, max: 100 });
    expect(s.take()).toEqual({ samples: 0, p50: 0, p99: 0, max: 0 });
  });

  it('keeps at most its limit until taken', () => {
    const s = new Samples(3);
    [5, 1, 9, 7].forEach((v) => s.add(v));
    expect(s.take()).toEqual({ samples: 3, p50: 5, p99: 9, max: 9 });
  });

  it('keeps every value as it grows past its first capacity, and starts afresh after each take', () => {
    const s = new Samples(5000);
    for (let i = 3000; i >= 1; i--) s.add(i);
    expect(s.take()).toEqual({ samples: 3000, p50: 1501, p99: 2971, max: 3000 });
    [0.5, 0.25].forEach((v) => s.add(v));
    expect(s.take()).toEqual({ samples: 2, p50: 0.5, p99: 0.5, max: 0.5 });
    for (let i = 0; i < 6000; i++) s.add(i);
    expect(s.take()).toMatchObject({ samples: 5000, max: 4999 });
  });
});

describe('LoopDelay', () => {
  it('reports how late the event loop ran while it was blocked, and starts a new window on each take', async () => {
    const d = new LoopDelay(5);
    try {
      await new Promise((r) => setTimeout(r, 30));
      const until = performance.now() + 60;
      while (performance.now() < until); // the loop is blocked for 60 ms
      await new Promise((r) => setTimeout(r, 30));
      const blocked = d.take();
      expect(blocked.samples).toBeGreaterThan(0);
      expect(blocked.max).toBeGreaterThanOrEqual(50);
      expect(blocked.p50).toBeLessThanOrEqual(blocked.p99);
      expect(d.take()).toEqual({ samples: 0, p50: 0, p99: 0, max: 0 });
    } finally {
      d.stop();
    }
  });
});

describe('GcPauses', () => {
  it("reports this thread's scavenges while it allocates, and starts a new window on each take", async () => {
    const gc = new GcPauses();
    try {
      gc.take();
      // Short-lived objects, tens of megabytes of them: the young generation fills and is collected.
      const ring: Array<{ i: number }> = new Array(1024);
      for (let i = 0; i < 2_000_000; i++) ring[i & 1023] = { i };
      expect(ring[1_999_999 & 1023].i).toBe(1_999_999);
      await new Promise((r) => setTimeout(r, 20)); // the entries are delivered after the collection
      const r = gc.take();
      expect(r.scavenge_ms.samples).toBeGreaterThan(0);
      expect(r.scavenge_ms.max).toBeGreaterThan(0);
      expect(r.share_pct).toBeGreaterThan(0);
      expect(gc.take().scavenge_ms.samples).toBe(0);
    } finally {
      gc.stop();
    }
  });
});
