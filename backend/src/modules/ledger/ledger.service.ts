import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { updateReturning } from '../../infra/database/sql';
import { EventStoreService, isDuplicateCommand } from '../../infra/event-store/event-store.service';
import { BusinessError } from '../../infra/http/business-error';
import { ErrorCode } from '../../infra/http/error-codes';
import { isDecimalString, money, Money, moneyString } from '../../infra/money';
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

export type BatchResult = { ok: true; eventSeq: string; duplicate: boolean } | { ok: false; error: BusinessError };

interface LockedBalance {
  id: string;
  available: Money;
  frozen: Money;
  external: boolean;
  changed: boolean;
}

const keyOf = (m: AccountKey) => `${m.ownerType}:${m.ownerId}:${m.accountType}:${m.currencyId}`;

/**
 * The only writer of balances (DESIGN §4). A posting is double-entry: per currency its deltas
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
      const prior = await this.events.findByCommandId(this.dataSource.manager, posting.commandId);
      if (!prior) throw err;
      return { eventSeq: prior.seq, duplicate: true };
    }
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
      values.push(event.seq, m.ownerType, m.ownerId, m.accountType, m.currencyId, m.code, m.available, m.frozen, a.available, a.frozen, posting.refType, posting.refId, (posting.memo ?? '').slice(0, 200));
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
  async postBatch(postings: Posting[], m: EntityManager): Promise<BatchResult[]> {
    if (!postings.length) return [];
    for (const p of postings) this.assertBalanced(p);
    const prior = new Map<string, string>(
      (await m.query('SELECT command_id, seq::text FROM events WHERE command_id = ANY($1)', [postings.map((p) => p.commandId)])).map((r: { command_id: string; seq: string }) => [r.command_id, r.seq]),
    );
    // A command id repeated inside the batch is a retry too: only its first posting counts.
    const first = new Map<string, Posting>();
    for (const p of postings) if (!prior.has(p.commandId) && !first.has(p.commandId)) first.set(p.commandId, p);
    const fresh = [...first.values()];
    const keys = [...new Map(fresh.flatMap((p) => p.movements).map((mv) => [keyOf(mv), mv])).values()].sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : 1));
    const cols = (ks: AccountKey[]) => [ks.map((k) => k.ownerType), ks.map((k) => k.ownerId), ks.map((k) => k.accountType), ks.map((k) => k.currencyId)];
    const state = new Map<string, LockedBalance>();
    if (keys.length) {
      const ensure = (ks: AccountKey[]) =>
        m.query(
          `INSERT INTO balances (owner_type, owner_id, account_type, currency_id) SELECT * FROM unnest($1::varchar[], $2::int[], $3::varchar[], $4::int[])
           ON CONFLICT (owner_type, owner_id, account_type, currency_id) DO NOTHING`,
          cols(ks),
        );
      const lock = (): Promise<Array<{ id: string; owner_type: OwnerType; owner_id: number; account_type: AccountType; currency_id: number; available: string; frozen: string }>> =>
        m.query(
          `SELECT b.id::text, b.owner_type, b.owner_id, b.account_type, b.currency_id, b.available::text, b.frozen::text FROM balances b
           JOIN unnest($1::varchar[], $2::int[], $3::varchar[], $4::int[]) k(owner_type, owner_id, account_type, currency_id)
             USING (owner_type, owner_id, account_type, currency_id)
           ORDER BY b.owner_type, b.owner_id, b.account_type, b.currency_id FOR UPDATE OF b`,
          cols(keys),
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
        state.set(key, { id: r.id, available: money(r.available), frozen: money(r.frozen), external: r.account_type === 'external', changed: false });
      }
    }

    const accepted: Array<{ posting: Posting; after: Array<{ available: string; frozen: string }> }> = [];
    const results = new Map<Posting, BatchResult>();
    for (const p of fresh) {
      const tentative = new Map<string, { available: Money; frozen: Money }>();
      const after: Array<{ available: string; frozen: string }> = [];
      let fits = true;
      for (const mv of p.movements) {
        const k = keyOf(mv);
        const cur = tentative.get(k) ?? { available: state.get(k)!.available, frozen: state.get(k)!.frozen };
        const next = { available: cur.available.plus(mv.available ?? '0'), frozen: cur.frozen.plus(mv.frozen ?? '0') };
        if (!state.get(k)!.external && (next.available.isNegative() || next.frozen.isNegative())) fits = false;
        tentative.set(k, next);
        after.push({ available: moneyString(next.available), frozen: moneyString(next.frozen) });
      }
      if (!fits) {
        results.set(p, { ok: false, error: new BusinessError(ErrorCode.INSUFFICIENT_BALANCE) });
        continue;
      }
      for (const [k, v] of tentative) Object.assign(state.get(k)!, v, { changed: true });
      accepted.push({ posting: p, after });
    }

    if (accepted.length) {
      const changed = [...state.values()].filter((b) => b.changed);
      await m.query(
        `UPDATE balances b SET available = v.available, frozen = v.frozen, updated_at = now()
         FROM unnest($1::bigint[], $2::numeric[], $3::numeric[]) v(id, available, frozen) WHERE b.id = v.id`,
        [changed.map((b) => b.id), changed.map((b) => moneyString(b.available)), changed.map((b) => moneyString(b.frozen))],
      );
      const streams = accepted.map((a) => `${a.posting.refType}:${a.posting.refId}`);
      const open = [...new Set(streams.filter((_, i) => accepted[i].posting.streamVersion === undefined))];
      const versions = new Map<string, number>();
      if (open.length) {
        // Same per-stream serialisation as append(): advisory locks, taken in a fixed order.
        await m.query('SELECT pg_advisory_xact_lock(hashtext(s)) FROM (SELECT unnest($1::text[]) AS s ORDER BY 1) x', [open]);
        for (const r of await m.query('SELECT stream_id, MAX(stream_version)::int AS v FROM events WHERE stream_id = ANY($1) GROUP BY stream_id', [open])) versions.set(r.stream_id, r.v);
      }
      const streamVersion = streams.map((st, i) => {
        const known = accepted[i].posting.streamVersion;
        if (known !== undefined) return known;
        const v = (versions.get(st) ?? 0) + 1;
        versions.set(st, v);
        return v;
      });
      const seqs: Array<{ seq: string }> = await m.query(
        `INSERT INTO events (stream_id, stream_version, type, payload, metadata, command_id)
         SELECT s, v, 'LedgerPosted', p, md, c FROM unnest($1::text[], $2::int[], $3::jsonb[], $4::jsonb[], $5::text[]) WITH ORDINALITY AS x(s, v, p, md, c, n) ORDER BY n
         RETURNING seq::text`,
        [
          streams,
          streamVersion,
          accepted.map((a) => JSON.stringify({ refType: a.posting.refType, refId: a.posting.refId, memo: a.posting.memo ?? '', movements: a.posting.movements.map((mv) => ({ ...mv, available: moneyString(mv.available ?? '0'), frozen: moneyString(mv.frozen ?? '0') })) })),
          accepted.map((a) => JSON.stringify({ actor: a.posting.actor, commandId: a.posting.commandId, reason: a.posting.reason })),
          accepted.map((a) => a.posting.commandId),
        ],
      );
      const e: unknown[][] = Array.from({ length: 13 }, () => []);
      accepted.forEach((a, i) => {
        results.set(a.posting, { ok: true, eventSeq: seqs[i].seq, duplicate: false });
        a.posting.movements.forEach((mv, j) => {
          const row = [seqs[i].seq, mv.ownerType, mv.ownerId, mv.accountType, mv.currencyId, mv.code, moneyString(mv.available ?? '0'), moneyString(mv.frozen ?? '0'), a.after[j].available, a.after[j].frozen, a.posting.refType, a.posting.refId, (a.posting.memo ?? '').slice(0, 200)];
          row.forEach((v, c) => e[c].push(v));
        });
      });
      await m.query(
        `INSERT INTO ledger_entries (event_seq, owner_type, owner_id, account_type, currency_id, code, available_delta, frozen_delta, available_after, frozen_after, ref_type, ref_id, memo)
         SELECT * FROM unnest($1::bigint[], $2::varchar[], $3::int[], $4::varchar[], $5::int[], $6::int[], $7::numeric[], $8::numeric[], $9::numeric[], $10::numeric[], $11::varchar[], $12::varchar[], $13::varchar[])`,
        e,
      );
    }
    return postings.map((p): BatchResult => {
      if (prior.has(p.commandId)) return { ok: true, eventSeq: prior.get(p.commandId)!, duplicate: true };
      const own = results.get(p);
      if (own) return own;
      const earlier = results.get(first.get(p.commandId)!)!;
      return earlier.ok ? { ...earlier, duplicate: true } : earlier;
    });
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
      const created = await manager.query(
        `INSERT INTO balances (owner_type, owner_id, account_type, currency_id) VALUES ($1, $2, $3, $4)
         ON CONFLICT (owner_type, owner_id, account_type, currency_id) DO NOTHING RETURNING id`,
        params.slice(2),
      );
      if (created.length) rows = await updateReturning<{ available: string; frozen: string }>(manager, update, params);
    }
    if (!rows.length) throw new BusinessError(ErrorCode.INSUFFICIENT_BALANCE);
    return { available: moneyString(rows[0].available), frozen: moneyString(rows[0].frozen) };
  }

  private assertBalanced(posting: Posting): void {
    if (!posting.commandId || posting.commandId.length > 100) throw new UnbalancedPostingError('a posting needs a command id of at most 100 characters');
    if (!posting.movements.length) throw new UnbalancedPostingError('a posting needs at least one movement');
    const sums = new Map<number, Money>();
    for (const m of posting.movements) {
      for (const v of [m.available ?? '0', m.frozen ?? '0']) {
        if (!isDecimalString(v)) throw new UnbalancedPostingError(`not a decimal amount: ${v}`);
        sums.set(m.currencyId, (sums.get(m.currencyId) ?? money(0)).plus(v));
      }
    }
    for (const [currency, sum] of sums) {
      if (!sum.isZero()) throw new UnbalancedPostingError(`posting ${posting.commandId} does not balance in currency ${currency}: ${sum.toString()}`);
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
