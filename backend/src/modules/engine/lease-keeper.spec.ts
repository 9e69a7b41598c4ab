import { LeaseKeeper } from './lease-keeper';

/** A lease in memory: free or held by another process; renewals answer as told. */
class FakeLease {
  readonly ttlMs = 600;
  free = true;
  expired = false;
  renewal: boolean | Error = true;
  tries = 0;
  renewals = 0;
  private token?: number;
  private tokens = 0;
  get current(): number | undefined {
    return this.expired ? undefined : this.token;
  }
  async tryAcquire(): Promise<number | undefined> {
    this.tries++;
    if (!this.free) return undefined;
    this.free = false;
    this.expired = false;
    return (this.token = ++this.tokens);
  }
  async renew(): Promise<boolean> {
    this.renewals++;
    if (this.renewal instanceof Error) throw this.renewal;
    if (!this.renewal) this.token = undefined;
    return this.renewal;
  }
  async release(): Promise<void> {
    this.token = undefined;
    this.free = true;
  }
  drop(): void {
    this.token = undefined;
  }
  async state() {
    return { holder: 'other-host:42:abcd', token: this.tokens, expiresInMs: 300 };
  }
}

function setup() {
  const lease = new FakeLease();
  const seen: string[] = [];
  const keeper: LeaseKeeper = new LeaseKeeper(lease, {
    gained: async (token) => void seen.push(`gained ${token}`),
    // The host steps down when told (as EngineHost.stepDown does).
    lost: (reason) => {
      seen.push(`lost: ${reason}`);
      keeper.stepDown();
    },
    log: (level, message) => seen.push(`${level}: ${message}`),
  });
  return { lease, seen, keeper };
}

describe('LeaseKeeper', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('takes a free lease at start and renews it three times per time to live', async () => {
    const { lease, seen, keeper } = setup();
    await keeper.start(false);
    expect(seen).toEqual(['log: sequencer lease taken (fencing token 1)', 'gained 1']);
    await jest.advanceTimersByTimeAsync(1_000);
    expect(lease.renewals).toBe(5);
    keeper.close();
    await keeper.release();
    await jest.advanceTimersByTimeAsync(1_000);
    expect(lease.renewals).toBe(5);
    expect(lease.free).toBe(true);
  });

  it('when another process took it, the host steps down and waits as a standby until it is free again', async () => {
    const { lease, seen, keeper } = setup();
    await keeper.start(false);
    lease.renewal = false;
    lease.free = false; // the other process holds it now
    await jest.advanceTimersByTimeAsync(200);
    expect(seen.slice(2)).toEqual(['lost: another process took the lease']);
    const tries = lease.tries;
    await jest.advanceTimersByTimeAsync(1_000);
    expect(lease.tries - tries).toBe(10); // every ttl / 6
    expect(lease.renewals).toBe(1); // no more renewals of a lease it lost
    lease.renewal = true;
    lease.free = true;
    await jest.advanceTimersByTimeAsync(100);
    expect(seen.slice(3)).toEqual(['log: sequencer lease taken (fencing token 2)', 'gained 2']);
    keeper.close();
    await keeper.release();
  });

  it('a failed renewal is retried while the lease is still valid here, and is a loss once it is not', async () => {
    const { lease, seen, keeper } = setup();
    await keeper.start(false);
    lease.renewal = new Error('connection reset');
    await jest.advanceTimersByTimeAsync(400);
    expect(lease.renewals).toBe(2);
    expect(seen).toHaveLength(2); // nothing lost yet
    lease.expired = true;
    lease.free = false;
    await jest.advanceTimersByTimeAsync(200);
    expect(seen.slice(2)).toEqual(['lost: the lease could not be renewed before it expired (connection reset)']);
    keeper.close();
  });

  it("in ROLE=all it waits out its own previous run's lease before standing by", async () => {
    const { lease, seen, keeper } = setup();
    lease.free = false;
    const started = keeper.start(true);
    await jest.advanceTimersByTimeAsync(600);
    lease.free = true; // the previous run's lease expired
    await jest.advanceTimersByTimeAsync(250);
    await started;
    expect(seen).toEqual(['log: sequencer lease taken (fencing token 1)', 'gained 1']);
    expect(lease.tries).toBe(4); // at 0, 250, 500 and 750 ms
    keeper.close();
    await keeper.release();
  });

  it('held by another at start, it says who holds it and tries as a standby; closed, it stops trying', async () => {
    const { lease, seen, keeper } = setup();
    lease.free = false;
    const started = keeper.start(true);
    await jest.advanceTimersByTimeAsync(2_000);
    await started;
    expect(lease.tries).toBe(6 + 7); // waiting out ttl + 500 ms: 6 tries by 1,250 ms; then every 100 ms
    expect(seen).toEqual(["warn: standby: other-host:42:abcd holds the sequencer's lease; this process takes over if it stops renewing"]);
    keeper.close();
    const tries = lease.tries;
    await jest.advanceTimersByTimeAsync(1_000);
    expect(lease.tries).toBe(tries);
  });

  it('a take-over whose recovery fails gives the lease up at once and tries again (it never renews a lease it does not use)', async () => {
    const lease = new FakeLease();
    const seen: string[] = [];
    let recoveries = 0;
    const keeper = new LeaseKeeper(lease, {
      gained: async (token) => {
        // The first recovery fails (the database went away in the middle of it).
        if (++recoveries === 1) throw new Error('connection terminated');
        seen.push(`gained ${token}`);
      },
      lost: (reason) => seen.push(`lost: ${reason}`),
      log: (level, message) => seen.push(`${level}: ${message}`),
    });
    lease.free = false;
    await keeper.start(false); // a standby
    lease.free = true; // the holder stopped
    await jest.advanceTimersByTimeAsync(100);
    expect(seen.slice(1, 4)).toEqual([
      'log: sequencer lease taken (fencing token 1)',
      'warn: taking over failed, lease given up: connection terminated',
      'warn: lease: connection terminated',
    ]);
    expect(lease.free).toBe(true); // released, not renewed
    const renewals = lease.renewals;
    await jest.advanceTimersByTimeAsync(100);
    expect(seen.slice(4)).toEqual(['log: sequencer lease taken (fencing token 2)', 'gained 2']);
    await jest.advanceTimersByTimeAsync(1_000);
    expect(lease.renewals).toBeGreaterThan(renewals); // the second take-over's lease is kept
    keeper.close();
    await keeper.release();
  });

  it('at start, a failed recovery gives the lease up and fails the start', async () => {
    const lease = new FakeLease();
    const keeper = new LeaseKeeper(lease, {
      gained: async () => {
        throw new Error('relation "sequencer_journal" does not exist');
      },
      lost: () => undefined,
      log: () => undefined,
    });
    await expect(keeper.start(true)).rejects.toThrow('sequencer_journal');
    expect(lease.free).toBe(true);
    await jest.advanceTimersByTimeAsync(1_000);
    expect(lease.renewals).toBe(0);
    keeper.close();
  });
});
