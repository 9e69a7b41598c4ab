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
  /** All or nothing; false (and nothing changed) when an account would go negative. Keeps nothing of `deltas` (the sequencer reuses them). */
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

/** An account's key; a user's trade account's is built once (`userCoin`): the projector meets six a trade. */
export const accountKey = (k: AccountKey): string =>
  k.ownerType === 'user' && k.accountType === 'coin' ? userCoin(k.ownerId, k.currencyId) : `${k.ownerType}:${k.ownerId}:${k.accountType}:${k.currencyId}`;

/** Trade-account keys, built once per account: a trade meets four of them. */
const userCoinKeys = new Map<number, string>();
const CURRENCY_IDS = 2 ** 20;
export const userCoin = (userId: number, currencyId: number): string => {
  const n = userId * CURRENCY_IDS + currencyId;
  // Only whole ids in range name one account each; anything else is built every time.
  if (!(Number.isSafeInteger(n) && Number.isInteger(userId) && userId >= 0 && Number.isInteger(currencyId) && currencyId >= 0 && currencyId < CURRENCY_IDS))
    return `user:${userId}:coin:${currencyId}`;
  let key = userCoinKeys.get(n);
  if (key === undefined) userCoinKeys.set(n, (key = `user:${userId}:coin:${currencyId}`));
  return key;
};

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

/** Most distinct accounts one change sums in place (a trade with both fees touches six). */
const IN_PLACE = 8;

export class FastBalances implements BalanceStore {
  private readonly map = new Map<string, { available: bigint; frozen: bigint }>();
  /** The sums of the change being checked, reused (nothing allocated per change but the sums). */
  private readonly rows: Array<{ available: bigint; frozen: bigint } | undefined> = new Array(IN_PLACE).fill(undefined);
  private readonly available: bigint[] = new Array(IN_PLACE).fill(0n);
  private readonly frozen: bigint[] = new Array(IN_PLACE).fill(0n);

  constructor(initial: Iterable<[string, Balance]> = []) {
    for (const [k, b] of initial) this.map.set(k, { available: b.available, frozen: b.frozen });
  }

  get(key: string): Balance {
    return this.map.get(key) ?? ZERO;
  }

  apply(deltas: readonly Delta[]): boolean {
    if (deltas.length <= IN_PLACE && distinct(deltas)) {
      // A freeze or release (one account) or a trade (four accounts, six with fees; all distinct): each sum worked out once, then stored.
      const { rows, available, frozen } = this;
      for (let i = 0; i < deltas.length; i++) {
        const d = deltas[i];
        const cur = (rows[i] = this.map.get(d.key));
        available[i] = cur ? cur.available + d.available : d.available;
        frozen[i] = cur ? cur.frozen + d.frozen : d.frozen;
        if (available[i] < 0n || frozen[i] < 0n) return false;
      }
      for (let i = 0; i < deltas.length; i++) {
        const cur = rows[i];
        if (cur) {
          cur.available = available[i];
          cur.frozen = frozen[i];
        } else this.map.set(deltas[i].key, { available: available[i], frozen: frozen[i] });
        rows[i] = undefined;
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
    this.history.push(...deltas.map((d) => ({ key: d.key, available: d.available, frozen: d.frozen })));
    return true;
  }

  entries(): Array<[string, Balance]> {
    return [...new Set(this.history.map((d) => d.key))].sort().map((k) => [k, this.get(k)]);
  }
}
