import type { EngineLease } from './engine-lease';

/** What the keeper needs of the lease (`EngineLease`). */
export type Lease = Pick<EngineLease, 'ttlMs' | 'current' | 'tryAcquire' | 'renew' | 'release' | 'drop' | 'state'>;

export interface LeaseKeeperEvents {
  /** The lease is ours with this fencing token: become the sequencer. */
  gained(token: number): Promise<void>;
  /** It is not ours any more: another process took it, or it could not be renewed before it expired. */
  lost(reason: string): void;
  /** A message for the log. */
  log(level: 'log' | 'warn', message: string): void;
}

/** How often a standby tries to take the lease, and how often its holder renews it (fractions of its time to live). */
const STANDBY_TRIES = 6;
const RENEWALS = 3;

/**
 * Keeps the sequencer's lease (DESIGN §3): takes it at start (in ROLE=all, after waiting out its
 * own previous run's, which a kill -9 leaves behind), renews it well before it expires, and when
 * it is not held (lost, or never taken) tries again as a standby until it is free. The holder's
 * term itself (becoming the sequencer, stepping down) is the host's (`events`).
 */
export class LeaseKeeper {
  private renewTimer?: NodeJS.Timeout;
  private standbyTimer?: NodeJS.Timeout;
  private closed = false;
  private renewing = false;

  constructor(
    private readonly lease: Lease,
    private readonly events: LeaseKeeperEvents,
  ) {}

  /** Takes the lease if it is free (waiting up to its time to live for it when `waitForExpiry`), else waits for it as a standby. */
  async start(waitForExpiry: boolean): Promise<void> {
    let token = await this.lease.tryAcquire();
    for (let waited = 0; token === undefined && waitForExpiry && waited <= this.lease.ttlMs + 500; waited += 250) {
      await new Promise((r) => setTimeout(r, 250));
      token = await this.lease.tryAcquire();
    }
    if (token !== undefined) return this.gain(token);
    const held = await this.lease.state();
    this.events.log('warn', `standby: ${held?.holder ?? 'another process'} holds the sequencer's lease; this process takes over if it stops renewing`);
    this.standby();
  }

  /** The host stepped down (the lease was lost, or a journal write was fenced): stop renewing, forget it, wait as a standby. */
  stepDown(): void {
    clearInterval(this.renewTimer);
    this.renewTimer = undefined;
    this.lease.drop();
    this.standby();
  }

  /** Shutting down: no more tries. */
  close(): void {
    this.closed = true;
    clearInterval(this.standbyTimer);
  }

  /** Gives the lease up at once, so a standby need not wait for the expiry (shutdown, or a sequencer that stopped handing over). */
  async release(): Promise<void> {
    clearInterval(this.renewTimer);
    this.renewTimer = undefined;
    await this.lease.release();
  }

  private async gain(token: number): Promise<void> {
    clearInterval(this.standbyTimer);
    this.standbyTimer = undefined;
    this.events.log('log', `sequencer lease taken (fencing token ${token})`);
    this.renewTimer = setInterval(() => void this.renew(), Math.max(100, Math.floor(this.lease.ttlMs / RENEWALS)));
    this.renewTimer.unref();
    try {
      await this.events.gained(token);
    } catch (err) {
      // Taking over failed (e.g. the database went away during recovery): the lease is given up at
      // once, so this process or another tries again, instead of being renewed for a sequencer that
      // does not run. At start the error goes on to the caller (the boot fails); a standby keeps trying.
      this.events.log('warn', `taking over failed, lease given up: ${(err as Error).message}`);
      await this.release().catch(() => this.lease.drop());
      throw err;
    }
  }

  /** A standby takes the lease once the holder's expiry has passed (the database's clock). */
  private standby(): void {
    if (this.standbyTimer || this.closed) return;
    let trying = false;
    this.standbyTimer = setInterval(
      () => {
        if (trying) return;
        trying = true;
        void this.lease
          .tryAcquire()
          .then((token) => (token !== undefined ? this.gain(token) : undefined))
          .catch((err) => {
            this.events.log('warn', `lease: ${(err as Error).message}`);
            this.standby(); // a failed take-over cleared the timer: wait again
          })
          .finally(() => (trying = false));
      },
      Math.max(100, Math.floor(this.lease.ttlMs / STANDBY_TRIES)),
    );
    this.standbyTimer.unref();
  }

  private async renew(): Promise<void> {
    // One renewal at a time: a tick while one is still out waits for the next.
    if (this.renewing) return;
    this.renewing = true;
    try {
      if (!(await this.lease.renew())) this.events.lost('another process took the lease');
    } catch (err) {
      // A failed renewal is retried at the next tick while the lease is still valid locally.
      if (this.lease.current === undefined) this.events.lost(`the lease could not be renewed before it expired (${(err as Error).message})`);
    } finally {
      this.renewing = false;
    }
  }
}
