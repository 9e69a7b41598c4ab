import type { AccountKey } from './commands';

/**
 * The balance rules of the accounts the sequencer owns, as a store: a change is a set of
 * deltas applied all together or not at all, and it is refused when any account would end
 * below zero (available or frozen). Two implementations share one test suite
 * (`balances.shared.spec.ts`): the fast one keeps running totals, the reference one keeps
 * every accepted change and sums them when asked (obviously right, slow).
 */
export interface Delta {
  readonly key: string;
  readonly available: bigint;
  readonly frozen: bigint;
}

export interface Balance {
  readonly available: bigint;
  readonly frozen: bigint;
}

export interface BalanceStore {
  get(key: string): Balance;
  /** All or nothing; false (and nothing changed) when an account would go negative. */
  apply(deltas: readonly Delta[]): boolean;
  /** Every account ever touched, sorted by key (snapshots and hashes). */
  entries(): Array<[string, Balance]>;
}

const ZERO: Balance = { available: 0n, frozen: 0n };

/** The account types whose balances the sequencer owns (DESIGN §4, "Spot core v2"). */
export const SEQUENCER_ACCOUNT_TYPES = ['coin', 'spot-fee', 'desk'] as const;
const OWNED = new Set<string>(SEQUENCER_ACCOUNT_TYPES);

export function ownedBySequencer(k: Pick<AccountKey, 'accountType'>): boolean {
  return OWNED.has(k.accountType);
}

export const accountKey = (k: AccountKey): string => `${k.ownerType}:${k.ownerId}:${k.accountType}:${k.currencyId}`;
export const userCoin = (userId: number, currencyId: number): string => `user:${userId}:coin:${currencyId}`;

export function parseAccountKey(key: string): AccountKey {
  const [ownerType, ownerId, accountType, currencyId] = key.split(':');
  return { ownerType: ownerType as AccountKey['ownerType'], ownerId: Number(ownerId), accountType, currencyId: Number(currencyId) };
}

/** Sums the deltas per account (a change may touch one account twice). */
function net(deltas: readonly Delta[]): Map<string, { available: bigint; frozen: bigint }> {
  const out = new Map<string, { available: bigint; frozen: bigint }>();
  for (const d of deltas) {
    const cur = out.get(d.key);
    if (cur) {
      cur.available += d.available;
      cur.frozen += d.frozen;
    } else out.set(d.key, { available: d.available, frozen: d.frozen });
  }
  return out;
}

function distinct(deltas: readonly Delta[]): boolean {
  for (let i = 1; i < deltas.length; i++) for (let j = 0; j < i; j++) if (deltas[i].key === deltas[j].key) return false;
  return true;
}

export class FastBalances implements BalanceStore {
  private readonly map = new Map<string, { available: bigint; frozen: bigint }>();

  constructor(initial: Iterable<[string, Balance]> = []) {
    for (const [k, b] of initial) this.map.set(k, { available: b.available, frozen: b.frozen });
  }

  get(key: string): Balance {
    return this.map.get(key) ?? ZERO;
  }

  apply(deltas: readonly Delta[]): boolean {
    if (deltas.length <= 8 && distinct(deltas)) {
      // A freeze or release (one account) or a trade (four accounts, six with fees; all distinct): each sum worked out once, then stored.
      const after: Array<{ available: bigint; frozen: bigint }> = new Array(deltas.length);
      for (let i = 0; i < deltas.length; i++) {
        const d = deltas[i];
        const cur = this.map.get(d.key);
        const available = cur ? cur.available + d.available : d.available;
        const frozen = cur ? cur.frozen + d.frozen : d.frozen;
        if (available < 0n || frozen < 0n) return false;
        after[i] = { available, frozen };
      }
      for (let i = 0; i < deltas.length; i++) {
        const cur = this.map.get(deltas[i].key);
        if (cur) {
          cur.available = after[i].available;
          cur.frozen = after[i].frozen;
        } else this.map.set(deltas[i].key, after[i]);
      }
      return true;
    }
    const sums = net(deltas);
    for (const [k, d] of sums) {
      const cur = this.get(k);
      if (cur.available + d.available < 0n || cur.frozen + d.frozen < 0n) return false;
    }
    for (const [k, d] of sums) {
      const cur = this.map.get(k);
      if (cur) {
        cur.available += d.available;
        cur.frozen += d.frozen;
      } else this.map.set(k, { available: d.available, frozen: d.frozen });
    }
    return true;
  }

  entries(): Array<[string, Balance]> {
    return [...this.map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, b]) => [k, { available: b.available, frozen: b.frozen }]);
  }
}

/** Keeps every accepted change; a balance is the sum of its account's changes. */
export class ReferenceBalances implements BalanceStore {
  private readonly history: Delta[] = [];

  constructor(initial: Iterable<[string, Balance]> = []) {
    for (const [key, b] of initial) this.history.push({ key, available: b.available, frozen: b.frozen });
  }

  get(key: string): Balance {
    let available = 0n;
    let frozen = 0n;
    for (const d of this.history) {
      if (d.key !== key) continue;
      available += d.available;
      frozen += d.frozen;
    }
    return { available, frozen };
  }

  apply(deltas: readonly Delta[]): boolean {
    const keys = new Set(deltas.map((d) => d.key));
    for (const k of keys) {
      const b = this.get(k);
      const mine = deltas.filter((d) => d.key === k);
      const a = mine.reduce((s, d) => s + d.available, b.available);
      const f = mine.reduce((s, d) => s + d.frozen, b.frozen);
      if (a < 0n || f < 0n) return false;
    }
    this.history.push(...deltas);
    return true;
  }

  entries(): Array<[string, Balance]> {
    return [...new Set(this.history.map((d) => d.key))].sort().map((k) => [k, this.get(k)]);
  }
}
