import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { preparedQuery, updateReturning } from '../../infra/database/sql';
import { EventStoreService, isDuplicateCommand } from '../../infra/event-store/event-store.service';
import { BusinessError } from '../../infra/http/business-error';
import { ErrorCode } from '../../infra/http/error-codes';
import { isDecimalString, moneyString, units, unitsString } from '../../infra/money';
import { ownedBySequencer } from '../engine/sequencer/balances';
import { AccountType, LedgerCode, OwnerType } from './ledger-codes';

export interface AccountKey {
  ownerType: OwnerType;
  ownerId: number;
  accountType: AccountType;
  currencyId: number;
}

/** One account's change inside a posting. Deltas are decimal strings (negative = out). */
export interface Movement extends AccountKey {
  code: LedgerCode;
  available?: string;
  frozen?: string;
}

export interface Posting {
  /** Client- or system-generated id; a retry with the same id has one effect. */
  commandId: string;
  /** The business object this posting belongs to, e.g. "deposit:17"; also the event stream. */
  refType: string;
  refId: string;
  actor: string;
  reason?: string;
  memo?: string;
  movements: Movement[];
  /**
   * `postBatch` only: the version this posting takes in its stream, when the caller knows it
   * (e.g. the first posting of an order whose id was just drawn). Skips the version lookup;
   * the unique (stream, version) index still refuses a wrong guess, rolling the batch back.
   */
  streamVersion?: number;
}

export interface PostingResult {
  eventSeq: string;
  /** True when this command id had already been applied: nothing changed this time. */
  duplicate: boolean;
}

export class UnbalancedPostingError extends Error {}

/** A posting that touches an account the sequencer owns (trade accounts, spot fees, the flash desk). */
export class SequencerAccountError extends Error {}

/** `postAllOrFail` met an account it had seen created by a transaction that then rolled back: a retry creates it. */
export class LedgerAccountMissing extends Error {}

export type BatchResult = { ok: true; eventSeq: string; duplicate: boolean } | { ok: false; error: BusinessError };

interface LockedBalance {
  id: string;
  available: bigint;
  frozen: bigint;
  external: boolean;
  changed: boolean;
}

const accountColumns = (ks: AccountKey[]) => [ks.map((k) => k.ownerType), ks.map((k) => k.ownerId), ks.map((k) => k.accountType), ks.map((k) => k.currencyId)];
const keyOf = (m: AccountKey) => `${m.ownerType}:${m.ownerId}:${m.accountType}:${m.currencyId}`;

/**
 * The writer of the database accounts' balances (DESIGN §4): option, contract, trust and the
 * house's own; the trade accounts and the house accounts that trade against them belong to the
 * sequencer, and a posting that touches one is refused here (and by the database guard). A posting is double-entry: per currency its deltas
 * sum to zero, so money is never created or lost; a guarded update refuses any change that
 * would make an available or frozen balance negative, under any concurrency.
 */
@Injectable()
export class LedgerService {
  /** Accounts known to have a balance row (rows are never deleted): the batch skips creating them. */
  private readonly knownAccounts = new Set<string>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly events: EventStoreService,
  ) {}

  /** Post in its own transaction, or inside the caller's (`manager`) so it commits with their change. */
  async post(posting: Posting, manager?: EntityManager): Promise<PostingResult> {
    this.assertBalanced(posting);
    if (manager) return this.apply(manager, posting);
    try {
      return await this.dataSource.transaction((m) => this.apply(m, posting));
    } catch (err) {
      if (!isDuplicateCommand(err)) throw err;
      // A concurrent retry of the same command won the race: report its result.
      const prior = await this.posted(posting.commandId);
      if (!prior) throw err;
      return prior;
    }
  }

  /** A command already posted, answered as a retry of it is; null when it was not posted. */
  async posted(commandId: string, manager: EntityManager = this.dataSource.manager): Promise<PostingResult | null> {
    const prior = await this.events.findByCommandId(manager, commandId);
    return prior ? { eventSeq: prior.seq, duplicate: true } : null;
  }

  /**
   * For a transaction that posts more than once: locks these accounts' balance rows now, in the
   * global order every single posting uses, so its later postings cannot deadlock with a posting
   * (or another such transaction) that touches the same accounts.
   */
  async lockInOrder(manager: EntityManager, accounts: AccountKey[]): Promise<void> {
    const keys = [...new Map(accounts.map((k) => [keyOf(k), k])).entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    for (const [, k] of keys)
      await manager.query('SELECT 1 FROM balances WHERE owner_type = $1 AND owner_id = $2 AND account_type = $3 AND currency_id = $4 FOR UPDATE', [
        k.ownerType,
        k.ownerId,
        k.accountType,
        k.currencyId,
      ]);
  }

  private async apply(manager: EntityManager, posting: Posting): Promise<PostingResult> {
    const prior = await this.events.findByCommandId(manager, posting.commandId);
    if (prior) return { eventSeq: prior.seq, duplicate: true };

    const movements = posting.movements.map((m) => ({ ...m, available: moneyString(m.available ?? '0'), frozen: moneyString(m.frozen ?? '0') }));
    const [event] = await this.events.append(
      manager,
      { streamId: `${posting.refType}:${posting.refId}`, metadata: { actor: posting.actor, commandId: posting.commandId, reason: posting.reason } },
      [{ type: 'LedgerPosted', payload: { refType: posting.refType, refId: posting.refId, memo: posting.memo ?? '', movements } }],
    );

    // Lock accounts in one global order so concurrent postings cannot deadlock.
    const ordered = movements.map((m, i) => ({ m, i })).sort((a, b) => (keyOf(a.m) < keyOf(b.m) ? -1 : keyOf(a.m) > keyOf(b.m) ? 1 : a.i - b.i));
    const after = new Map<number, { available: string; frozen: string }>();
    for (const { m, i } of ordered) after.set(i, await this.change(manager, m, m.available, m.frozen));

    const values: unknown[] = [];
    const rows = movements.map((m, i) => {
      const a = after.get(i)!;
      const base = values.length;
      values.push(
        event.seq,
        m.ownerType,
        m.ownerId,
        m.accountType,
        m.currencyId,
        m.code,
        m.available,
        m.frozen,
        a.available,
        a.frozen,
        posting.refType,
        posting.refId,
        (posting.memo ?? '').slice(0, 200),
      );
      return `(${Array.from({ length: 13 }, (_, k) => `$${base + k + 1}`).join(', ')})`;
    });
    await manager.query(
      `INSERT INTO ledger_entries (event_seq, owner_type, owner_id, account_type, currency_id, code, available_delta, frozen_delta, available_after, frozen_after, ref_type, ref_id, memo)
       VALUES ${rows.join(', ')}`,
      values,
    );
    return { eventSeq: event.seq, duplicate: false };
  }

  /**
   * Many postings in a fixed number of statements (the engine's hot path). Same rules as
   * `post()`: double-entry, no negative balance, one effect per command id. The accounts are
   * locked in one global order, then each posting is applied in turn in memory; one that would
   * overdraw is refused on its own (`ok: false`) and the others go through.
   */
  async postBatch(postings: Posting[], m: EntityManager, opts: { fresh?: boolean } = {}): Promise<BatchResult[]> {
    if (!postings.length) return [];
    for (const p of postings) this.assertBalanced(p);
    // `fresh`: the caller knows no command id of the batch was posted before (e.g. ids drawn or
    // rows first written in this transaction); the unique index still refuses a wrong claim.
    const prior = new Map<string, string>(
      opts.fresh
        ? []
        : (await m.query('SELECT command_id, seq::text FROM events WHERE command_id = ANY($1)', [postings.map((p) => p.commandId)])).map(
            (r: { command_id: string; seq: string }) => [r.command_id, r.seq],
          ),
    );
    // A command id repeated inside the batch is a retry too: only its first posting counts.
    const first = new Map<string, Posting>();
    for (const p of postings) if (!prior.has(p.commandId) && !first.has(p.commandId)) first.set(p.commandId, p);
    const fresh = [...first.values()];
    const keys = [...new Map(fresh.flatMap((p) => p.movements).map((mv) => [keyOf(mv), mv])).values()].sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : 1));
    const state = new Map<string, LockedBalance>();
    if (keys.length) {
      const ensure = (ks: AccountKey[]) => this.createAccounts(m, ks);
      const lock = (): Promise<
        Array<{ id: string; owner_type: OwnerType; owner_id: number; account_type: AccountType; currency_id: number; available: string; frozen: string }>
      > =>
        m.query(
          // Locked in the keys' order (their text, as every posting and the projector lock accounts): by
          // the columns, owner 9 came before owner 10 where the others lock 10 first, and a delivery
          // batch deadlocked with a projection taking the same two users' accounts.
          `SELECT b.id::text, b.owner_type, b.owner_id, b.account_type, b.currency_id, b.available::text, b.frozen::text FROM balances b
           JOIN unnest($1::varchar[], $2::int[], $3::varchar[], $4::int[]) WITH ORDINALITY k(owner_type, owner_id, account_type, currency_id, n)
             USING (owner_type, owner_id, account_type, currency_id)
           ORDER BY k.n FOR UPDATE OF b`,
          accountColumns(keys),
        );
      const unknown = keys.filter((k) => !this.knownAccounts.has(keyOf(k)));
      if (unknown.length) await ensure(unknown);
      let rows = await lock();
      if (rows.length < keys.length) {
        // An account remembered from a transaction that rolled back: create it now.
        await ensure(keys);
        rows = await lock();
      }
      if (this.knownAccounts.size > 500_000) this.knownAccounts.clear();
      for (const r of rows) {
        const key = keyOf({ ownerType: r.owner_type, ownerId: r.owner_id, accountType: r.account_type, currencyId: r.currency_id });
        this.knownAccounts.add(key);
        state.set(key, { id: r.id, available: units(r.available), frozen: units(r.frozen), external: r.account_type === 'external', changed: false });
      }
    }

    const accepted: Array<{ posting: Posting; deltas: Array<[string, string]>; after: Array<[string, string]> }> = [];
    const results = new Map<Posting, BatchResult>();
    for (const p of fresh) {
      const tentative = new Map<string, { available: bigint; frozen: bigint }>();
      const deltas: Array<[string, string]> = [];
      const after: Array<[string, string]> = [];
      let fits = true;
      for (const mv of p.movements) {
        const k = keyOf(mv);
        const cur = tentative.get(k) ?? { available: state.get(k)!.available, frozen: state.get(k)!.frozen };
        const [da, df] = [units(mv.available ?? '0'), units(mv.frozen ?? '0')];
        const next = { available: cur.available + da, frozen: cur.frozen + df };
        if (!state.get(k)!.external && (next.available < 0n || next.frozen < 0n)) fits = false;
        tentative.set(k, next);
        deltas.push([unitsString(da), unitsString(df)]);
        after.push([unitsString(next.available), unitsString(next.frozen)]);
      }
      if (!fits) {
        results.set(p, { ok: false, error: new BusinessError(ErrorCode.INSUFFICIENT_BALANCE) });
        continue;
      }
      for (const [k, v] of tentative) Object.assign(state.get(k)!, v, { changed: true });
      accepted.push({ posting: p, deltas, after });
    }

    if (accepted.length) {
      const changed = [...state.values()].filter((b) => b.changed);
      const streams = accepted.map((a) => `${a.posting.refType}:${a.posting.refId}`);
      const open = [...new Set(streams.filter((_, i) => accepted[i].posting.streamVersion === undefined))];
      const versions = new Map<string, number>();
      if (open.length) {
        // Same per-stream serialisation as append(): advisory locks, taken in a fixed order.
        await m.query('SELECT pg_advisory_xact_lock(hashtext(s)) FROM (SELECT unnest($1::text[]) AS s ORDER BY 1) x', [open]);
        for (const r of await m.query('SELECT stream_id, MAX(stream_version)::int AS v FROM events WHERE stream_id = ANY($1) GROUP BY stream_id', [open]))
          versions.set(r.stream_id, r.v);
      }
      const streamVersion = streams.map((st, i) => {
        const known = accepted[i].posting.streamVersion;
        if (known !== undefined) return known;
        const v = (versions.get(st) ?? 0) + 1;
        versions.set(st, v);
        return v;
      });
      const e: unknown[][] = Array.from({ length: 13 }, () => []);
      for (const a of accepted) {
        a.posting.movements.forEach((mv, j) => {
          const row = [
            a.posting.commandId,
            mv.ownerType,
            mv.ownerId,
            mv.accountType,
            mv.currencyId,
            mv.code,
            a.deltas[j][0],
            a.deltas[j][1],
            a.after[j][0],
            a.after[j][1],
            a.posting.refType,
            a.posting.refId,
            (a.posting.memo ?? '').slice(0, 200),
          ];
          row.forEach((v, c) => e[c].push(v));
        });
      }
      // Balances, events and entries in one statement: the locked rows are held for one round trip less.
      const seqs: Array<{ seq: string; command_id: string }> = await m.query(
        `WITH b AS (
           UPDATE balances b SET available = v.available, frozen = v.frozen, updated_at = now()
           FROM unnest($1::bigint[], $2::numeric[], $3::numeric[]) v(id, available, frozen) WHERE b.id = v.id),
         ev AS (
           INSERT INTO events (stream_id, stream_version, type, payload, metadata, command_id)
           SELECT s, v, 'LedgerPosted', p, md, c FROM unnest($4::text[], $5::int[], $6::jsonb[], $7::jsonb[], $8::text[]) WITH ORDINALITY AS x(s, v, p, md, c, n) ORDER BY n
           RETURNING seq, command_id),
         le AS (
           INSERT INTO ledger_entries (event_seq, owner_type, owner_id, account_type, currency_id, code, available_delta, frozen_delta, available_after, frozen_after, ref_type, ref_id, memo)
           SELECT ev.seq, x.owner_type, x.owner_id, x.account_type, x.currency_id, x.code, x.da, x.df, x.aa, x.fa, x.ref_type, x.ref_id, x.memo
           FROM unnest($9::text[], $10::varchar[], $11::int[], $12::varchar[], $13::int[], $14::int[], $15::numeric[], $16::numeric[], $17::numeric[], $18::numeric[], $19::varchar[], $20::varchar[], $21::varchar[])
             WITH ORDINALITY AS x(command_id, owner_type, owner_id, account_type, currency_id, code, da, df, aa, fa, ref_type, ref_id, memo, n)
           JOIN ev USING (command_id) ORDER BY x.n)
         SELECT seq::text, command_id FROM ev`,
        [
          changed.map((b) => b.id),
          changed.map((b) => unitsString(b.available)),
          changed.map((b) => unitsString(b.frozen)),
          streams,
          streamVersion,
          accepted.map((a) =>
            JSON.stringify({
              refType: a.posting.refType,
              refId: a.posting.refId,
              memo: a.posting.memo ?? '',
              movements: a.posting.movements.map((mv, j) => ({ ...mv, available: a.deltas[j][0], frozen: a.deltas[j][1] })),
            }),
          ),
          accepted.map((a) => JSON.stringify({ actor: a.posting.actor, commandId: a.posting.commandId, reason: a.posting.reason })),
          accepted.map((a) => a.posting.commandId),
          ...e,
        ],
      );
      const seqOf = new Map(seqs.map((r) => [r.command_id, r.seq]));
      for (const a of accepted) results.set(a.posting, { ok: true, eventSeq: seqOf.get(a.posting.commandId)!, duplicate: false });
    }
    return postings.map((p): BatchResult => {
      if (prior.has(p.commandId)) return { ok: true, eventSeq: prior.get(p.commandId)!, duplicate: true };
      const own = results.get(p);
      if (own) return own;
      const earlier = results.get(first.get(p.commandId)!)!;
      return earlier.ok ? { ...earlier, duplicate: true } : earlier;
    });
  }

  /**
   * Postings that must all apply, in one statement: the accounts are locked in the global order,
   * the balances updated, and the events and entries (each entry with its account's running
   * balance, worked out by the database) written, with no round trip between taking the locks and
   * writing. Each posting is fresh and states its stream version. If any movement would take an
   * account below zero it throws `INSUFFICIENT_BALANCE` (or the balance's own check does), and if
   * an account is missing it throws: the caller's transaction rolls back and nothing is written.
   */
  async postAllOrFail(postings: Posting[], m: EntityManager): Promise<void> {
    if (!postings.length) return;
    const mv: unknown[][] = Array.from({ length: 11 }, () => []);
    const keys = new Map<string, AccountKey>();
    const payloads: string[] = [];
    for (const p of postings) {
      this.assertBalanced(p);
      if (p.streamVersion === undefined) throw new Error(`posting ${p.commandId} needs its stream version`);
      const moved = p.movements.map((x) => ({ ...x, available: moneyString(x.available ?? '0'), frozen: moneyString(x.frozen ?? '0') }));
      for (const x of moved) {
        keys.set(keyOf(x), x);
        [
          p.commandId,
          x.ownerType,
          x.ownerId,
          x.accountType,
          x.currencyId,
          x.code,
          x.available,
          x.frozen,
          p.refType,
          p.refId,
          (p.memo ?? '').slice(0, 200),
        ].forEach((v, c) => mv[c].push(v));
      }
      payloads.push(JSON.stringify({ refType: p.refType, refId: p.refId, memo: p.memo ?? '', movements: moved }));
    }
    const accounts = [...keys.values()];
    const unknown = accounts.filter((k) => !this.knownAccounts.has(keyOf(k)));
    if (unknown.length) await this.createAccounts(m, unknown);
    // Accounts are locked in their keys' text order (`keyOf`, byte order as in JavaScript), as every
    // other posting and the projector lock them (by the columns, owner 9 came before owner 10).
    const [r] = await preparedQuery<{ locked: number; negative: number }>(
      m,
      'ledger_post_all',
      `WITH mv AS (
         SELECT * FROM unnest($1::text[], $2::varchar[], $3::int[], $4::varchar[], $5::int[], $6::int[], $7::numeric[], $8::numeric[], $9::varchar[], $10::varchar[], $11::varchar[])
           WITH ORDINALITY AS x(command_id, owner_type, owner_id, account_type, currency_id, code, da, df, ref_type, ref_id, memo, n)),
       acc AS (SELECT owner_type, owner_id, account_type, currency_id, SUM(da) AS da, SUM(df) AS df FROM mv GROUP BY 1, 2, 3, 4),
       lk AS (
         SELECT b.id, b.owner_type, b.owner_id, b.account_type, b.currency_id, b.available, b.frozen FROM balances b
         JOIN acc USING (owner_type, owner_id, account_type, currency_id)
         ORDER BY (b.owner_type || ':' || b.owner_id || ':' || b.account_type || ':' || b.currency_id) COLLATE "C" FOR UPDATE OF b),
       up AS (
         UPDATE balances b SET available = lk.available + acc.da, frozen = lk.frozen + acc.df, updated_at = now()
         FROM lk JOIN acc USING (owner_type, owner_id, account_type, currency_id) WHERE b.id = lk.id RETURNING b.id),
       ev AS (
         INSERT INTO events (stream_id, stream_version, type, payload, metadata, command_id)
         SELECT s, v, 'LedgerPosted', p, md, c FROM unnest($12::text[], $13::int[], $14::jsonb[], $15::jsonb[], $16::text[]) WITH ORDINALITY AS x(s, v, p, md, c, n) ORDER BY n
         RETURNING seq, command_id),
       run AS (
         SELECT mv.*, lk.account_type = 'external' AS ext,
                lk.available + SUM(mv.da) OVER w AS aa, lk.frozen + SUM(mv.df) OVER w AS fa
         FROM mv JOIN lk USING (owner_type, owner_id, account_type, currency_id)
         WINDOW w AS (PARTITION BY lk.id ORDER BY mv.n ROWS UNBOUNDED PRECEDING)),
       le AS (
         INSERT INTO ledger_entries (event_seq, owner_type, owner_id, account_type, currency_id, code, available_delta, frozen_delta, available_after, frozen_after, ref_type, ref_id, memo)
         SELECT ev.seq, run.owner_type, run.owner_id, run.account_type, run.currency_id, run.code, run.da, run.df, run.aa, run.fa, run.ref_type, run.ref_id, run.memo
         FROM run JOIN ev USING (command_id) ORDER BY run.n)
       SELECT (SELECT COUNT(*) FROM up)::int AS locked, (SELECT COUNT(*) FROM run WHERE NOT ext AND (aa < 0 OR fa < 0))::int AS negative`,
      [
        ...mv,
        postings.map((p) => `${p.refType}:${p.refId}`),
        postings.map((p) => p.streamVersion),
        payloads,
        postings.map((p) => JSON.stringify({ actor: p.actor, commandId: p.commandId, reason: p.reason })),
        postings.map((p) => p.commandId),
      ],
    );
    if (r.locked !== accounts.length) {
      // An account remembered from a transaction that rolled back: forget them all; a retry creates it.
      for (const k of accounts) this.knownAccounts.delete(keyOf(k));
      throw new LedgerAccountMissing(`ledger batch: ${accounts.length - r.locked} account(s) missing`);
    }
    if (r.negative) throw new BusinessError(ErrorCode.INSUFFICIENT_BALANCE);
    if (this.knownAccounts.size > 500_000) this.knownAccounts.clear();
    for (const k of accounts) this.knownAccounts.add(keyOf(k));
  }

  /** Creates the balance rows of these accounts where missing (zero, no movement). */
  private async createAccounts(m: EntityManager, keys: AccountKey[]): Promise<void> {
    await m.query(
      `INSERT INTO balances (owner_type, owner_id, account_type, currency_id) SELECT * FROM unnest($1::varchar[], $2::int[], $3::varchar[], $4::int[])
       ON CONFLICT (owner_type, owner_id, account_type, currency_id) DO NOTHING`,
      accountColumns(keys),
    );
  }

  /** Guarded in-place update: the WHERE clause is re-checked on the locked row, so racing debits cannot overspend. */
  private async change(manager: EntityManager, k: AccountKey, available: string, frozen: string): Promise<{ available: string; frozen: string }> {
    const params = [available, frozen, k.ownerType, k.ownerId, k.accountType, k.currencyId];
    const update = `UPDATE balances SET available = available + $1, frozen = frozen + $2, updated_at = now()
      WHERE owner_type = $3 AND owner_id = $4 AND account_type = $5 AND currency_id = $6
        AND (account_type = 'external' OR (available + $1 >= 0 AND frozen + $2 >= 0))
      RETURNING available::text, frozen::text`;
    let rows = await updateReturning<{ available: string; frozen: string }>(manager, update, params);
    if (!rows.length) {
      // No row yet, or one that would go below zero. Created here, or by a concurrent posting (the
      // insert waits for it to commit): the update again either way (regression: when another
      // posting created the account a moment before, the conflict answered "insufficient balance").
      await manager.query(
        `INSERT INTO balances (owner_type, owner_id, account_type, currency_id) VALUES ($1, $2, $3, $4)
         ON CONFLICT (owner_type, owner_id, account_type, currency_id) DO NOTHING`,
        params.slice(2),
      );
      rows = await updateReturning<{ available: string; frozen: string }>(manager, update, params);
    }
    if (!rows.length) throw new BusinessError(ErrorCode.INSUFFICIENT_BALANCE);
    return { available: moneyString(rows[0].available), frozen: moneyString(rows[0].frozen) };
  }

  private assertBalanced(posting: Posting): void {
    if (!posting.commandId || posting.commandId.length > 100) throw new UnbalancedPostingError('a posting needs a command id of at most 100 characters');
    if (!posting.movements.length) throw new UnbalancedPostingError('a posting needs at least one movement');
    // One way into a trade account: the sequencer (TradeAccountCommands); its projector writes these rows.
    const owned = posting.movements.find((m) => ownedBySequencer(m));
    if (owned) throw new SequencerAccountError(`posting ${posting.commandId} moves a ${owned.accountType} account: only the sequencer does (TradeAccountCommands)`);
    const sums = new Map<number, bigint>();
    for (const m of posting.movements) {
      for (const v of [m.available ?? '0', m.frozen ?? '0']) {
        if (!isDecimalString(v)) throw new UnbalancedPostingError(`not a decimal amount: ${v}`);
        sums.set(m.currencyId, (sums.get(m.currencyId) ?? 0n) + units(v));
      }
    }
    for (const [currency, sum] of sums) {
      if (sum !== 0n) throw new UnbalancedPostingError(`posting ${posting.commandId} does not balance in currency ${currency}: ${unitsString(sum)}`);
    }
  }

  async balancesOf(ownerType: OwnerType, ownerId: number, manager: EntityManager = this.dataSource.manager) {
    const rows: Array<{ account_type: string; currency_id: number; available: string; frozen: string }> = await manager.query(
      'SELECT account_type, currency_id, available::text, frozen::text FROM balances WHERE owner_type = $1 AND owner_id = $2 ORDER BY account_type, currency_id',
      [ownerType, ownerId],
    );
    return rows.map((r) => ({ accountType: r.account_type, currencyId: r.currency_id, available: moneyString(r.available), frozen: moneyString(r.frozen) }));
  }
}
