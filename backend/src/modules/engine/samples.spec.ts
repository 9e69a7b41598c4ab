import { Samples } from './samples';

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
});
