import { Injectable, Logger } from '@nestjs/common';
import { buildTree, type LiabilityProof, type MerkleSumTree, type ProofRoot, proofFor, type TreeLeaf } from '@kestrel/contracts';
import { randomBytes, randomInt } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { EventStoreService } from '../../infra/event-store/event-store.service';
import { BusinessError } from '../../infra/http/business-error';
import { ErrorCode } from '../../infra/http/error-codes';
import type { Page } from '../../infra/http/page.dto';
import { units } from '../../infra/money';
import { ProofRootRow } from './proof.entities';

/** What started a build. */
export type ProofTrigger = 'startup' | 'daily' | 'operator';

/** Serializes builds across processes (an API process answering an operator, a worker's daily job). */
const BUILD_LOCK = 0x70726f6f; // 'proo'
/** Leaves are kept for the latest roots only (each user's proof of those can be served); every root is kept. */
export const LEAVES_KEPT_FOR_ROOTS = 30;
const INSERT_CHUNK = 5000;

interface Watermark {
  seq: string;
  ledgerEntryId: string;
}

interface LoadedTree {
  rootId: string;
  root: ProofRootRow;
  tree: MerkleSumTree;
  /** position → the leaf (salt and balances) as built. */
  leaves: TreeLeaf[];
}

export function rootView(r: ProofRootRow): ProofRoot {
  return {
    root: r.root,
    currencies: r.currencies.map(Number),
    totals: r.totals,
    watermark: { seq: String(r.watermarkSeq), ledgerEntryId: String(r.watermarkEntryId) },
    time: new Date(r.createdAt).toISOString(),
  };
}

/**
 * Proof of liabilities (issue "Verifiable honesty", item 1; docs/integrity.md). A build reads, in
 * one REPEATABLE READ snapshot, the projector's watermark, the last ledger entry id and every
 * user's balances (all accounts, available + frozen, per currency, in units of 1e-18), gives each
 * user without one a random 32-byte salt, shuffles the leaves, builds the Merkle sum tree
 * (contracts/src/proof.ts) and stores the root with its totals and watermark and the leaves.
 * A user's proof is rebuilt from the stored leaves (the tree is cached in memory per root).
 */
@Injectable()
export class ProofService {
  private readonly logger = new Logger('Proof');
  private loaded?: Promise<LoadedTree>;
  private loadedId?: string;

  constructor(
    private readonly dataSource: DataSource,
    private readonly events: EventStoreService,
  ) {}

  /**
   * The watermark as of now: the journal batch the read tables reflect and the highest ledger entry
   * id. A trade's legs, in its row, end at its `ledger_id + 7` at most; an order's freeze and release,
   * in its row, are below the projection's highest id (`sequencer_projection.ledger_id`, the first
   * of its block of 8).
   */
  async watermark(m: EntityManager = this.dataSource.manager): Promise<Watermark> {
    const [w] = await m.query(
      `SELECT COALESCE((SELECT seq FROM sequencer_projection WHERE id = 1), 0)::text AS seq,
              GREATEST(COALESCE((SELECT MAX(id) FROM ledger_entries), 0), COALESCE((SELECT MAX(ledger_id) + 7 FROM trades), 0),
                       COALESCE((SELECT ledger_id + 7 FROM sequencer_projection WHERE id = 1), 0))::text AS entry`,
    );
    return { seq: w.seq, ledgerEntryId: w.entry };
  }

  async latestRoot(): Promise<ProofRootRow | null> {
    return this.dataSource.getRepository(ProofRootRow).findOne({ where: {}, order: { id: 'DESC' } });
  }

  /**
   * At start-up: build only when no root was taken at the current watermark, and only once there
   * is a user. Checked under the build lock, in the build's own snapshot, so that processes
   * starting together publish one root.
   */
  async buildIfStale(trigger: ProofTrigger): Promise<ProofRoot | null> {
    return this.build(trigger, 'system:proof', undefined, true);
  }

  /** Builds and publishes a root now; `actor` is `system:proof` or `admin:<id>` (the latter also records an event). */
  async build(trigger: ProofTrigger, actor: string, reason?: string): Promise<ProofRoot>;
  async build(trigger: ProofTrigger, actor: string, reason: string | undefined, onlyIfStale: true): Promise<ProofRoot | null>;
  async build(trigger: ProofTrigger, actor: string, reason?: string, onlyIfStale = false): Promise<ProofRoot | null> {
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    try {
      // One build at a time (every process): the snapshot is taken after the lock, so roots follow the books' order.
      await runner.query('SELECT pg_advisory_lock($1)', [BUILD_LOCK]);
      await runner.startTransaction('REPEATABLE READ');
      try {
        const row = await this.buildIn(runner.manager, trigger, actor, reason, onlyIfStale);
        await runner.commitTransaction();
        if (!row) return null;
        this.logger.log(`root ${row.root} (${row.leafCount} users, ${trigger}) at journal ${row.watermarkSeq} / ledger entry ${row.watermarkEntryId}`);
        return rootView(row);
      } catch (err) {
        await runner.rollbackTransaction();
        throw err;
      }
    } finally {
      await runner.query('SELECT pg_advisory_unlock($1)', [BUILD_LOCK]).catch(() => undefined);
      await runner.release();
    }
  }

  private async buildIn(m: EntityManager, trigger: ProofTrigger, actor: string, reason: string | undefined, onlyIfStale: boolean): Promise<ProofRootRow | null> {
    // The first statement fixes the snapshot: watermark, users, salts and balances are one consistent state.
    const watermark = await this.watermark(m);
    if (onlyIfStale) {
      const latest = await m.getRepository(ProofRootRow).findOne({ where: {}, order: { id: 'DESC' } });
      if (latest && String(latest.watermarkSeq) === watermark.seq && String(latest.watermarkEntryId) === watermark.ledgerEntryId) return null;
    }
    const sums: Array<{ user_id: number; currency_id: number; total: string }> = await m.query(
      `SELECT owner_id AS user_id, currency_id, SUM(available + frozen)::text AS total
       FROM balances WHERE owner_type = 'user' GROUP BY owner_id, currency_id`,
    );
    const users: Array<{ id: number; salt: string | null }> = await m.query(
      `SELECT ids.id, s.salt FROM (SELECT id FROM users UNION SELECT DISTINCT owner_id FROM balances WHERE owner_type = 'user') ids
       LEFT JOIN proof_salts s ON s.user_id = ids.id ORDER BY ids.id`,
    );
    if (onlyIfStale && users.length === 0) return null;
    const coins: Array<{ id: number }> = await m.query(`SELECT id FROM coins`);
    const currencies = [...new Set([...coins.map((c) => Number(c.id)), ...sums.map((s) => Number(s.currency_id))])].sort((a, b) => a - b);
    const column = new Map(currencies.map((c, i) => [c, i]));

    // Salts: created once per user (only builds create them, and builds hold the lock).
    const missing = users.filter((u) => !u.salt);
    for (const u of missing) u.salt = randomBytes(32).toString('hex');
    for (let i = 0; i < missing.length; i += INSERT_CHUNK) {
      const chunk = missing.slice(i, i + INSERT_CHUNK);
      await m.query(`INSERT INTO proof_salts (user_id, salt) SELECT * FROM unnest($1::int[], $2::varchar[]) ON CONFLICT (user_id) DO NOTHING`, [
        chunk.map((u) => u.id),
        chunk.map((u) => u.salt),
      ]);
    }

    const balances = new Map<number, bigint[]>(users.map((u) => [Number(u.id), new Array<bigint>(currencies.length).fill(0n)]));
    for (const s of sums) {
      const v = units(s.total);
      if (v < 0n) throw new BusinessError(ErrorCode.PROOF_AMOUNT_INVALID);
      balances.get(Number(s.user_id))![column.get(Number(s.currency_id))!] = v;
    }
    // Shuffled, so that a position says nothing about who is next to whom.
    const order = users.map((u) => Number(u.id));
    for (let i = order.length - 1; i > 0; i--) {
      const j = randomInt(i + 1);
      [order[i], order[j]] = [order[j], order[i]];
    }
    const salts = new Map(users.map((u) => [Number(u.id), u.salt!]));
    const leaves: TreeLeaf[] = order.map((id) => ({ salt: salts.get(id)!, balances: balances.get(id)! }));
    let tree: MerkleSumTree;
    try {
      tree = buildTree(leaves, currencies.length);
    } catch (err) {
      if (err instanceof RangeError) throw new BusinessError(ErrorCode.PROOF_AMOUNT_INVALID);
      throw err;
    }

    const repo = m.getRepository(ProofRootRow);
    const row = await repo.save(
      repo.create({
        root: tree.root,
        currencies,
        totals: tree.totals.map(String),
        watermarkSeq: watermark.seq,
        watermarkEntryId: watermark.ledgerEntryId,
        leafCount: leaves.length,
        trigger,
        actor,
      }),
    );
    for (let i = 0; i < order.length; i += INSERT_CHUNK) {
      const ids = order.slice(i, i + INSERT_CHUNK);
      await m.query(
        `INSERT INTO proof_leaves (root_id, position, user_id, balances)
         SELECT $1, p, u, b FROM unnest($2::int[], $3::int[], $4::jsonb[]) AS x(p, u, b)`,
        [row.id, ids.map((_, k) => i + k), ids, ids.map((id) => JSON.stringify(balances.get(id)!.map(String)))],
      );
    }
    await m.query(`DELETE FROM proof_leaves WHERE root_id IN (SELECT id FROM proof_roots ORDER BY id DESC OFFSET $1)`, [LEAVES_KEPT_FOR_ROOTS]);
    if (actor.startsWith('admin:')) await this.recordOperatorBuild(m, Number(actor.slice('admin:'.length)), row, reason);
    const [saved] = await m.query(`SELECT created_at FROM proof_roots WHERE id = $1`, [row.id]);
    row.createdAt = saved.created_at;
    return row;
  }

  /** An operator's request is an event with the operator (and the reason, when given). */
  private async recordOperatorBuild(m: EntityManager, adminId: number, row: ProofRootRow, given?: string): Promise<void> {
    await this.events.append(m, { streamId: `proof-root:${row.id}`, metadata: { actor: `admin:${adminId}`, reason: given ?? '' } }, [
      { type: 'ProofRootPublished', payload: { rootId: row.id, root: row.root, leafCount: row.leafCount, watermarkSeq: row.watermarkSeq, watermarkEntryId: row.watermarkEntryId } },
    ]);
  }

  /** Every published root, the latest first. */
  async roots(page: number, limit: number): Promise<Page<ProofRoot>> {
    const [rows, total] = await this.dataSource.getRepository(ProofRootRow).findAndCount({ order: { id: 'DESC' }, skip: (page - 1) * limit, take: limit });
    return { items: rows.map(rootView), total, page, limit };
  }

  /** The user's proof for the latest root that contains them. */
  async mine(userId: number): Promise<LiabilityProof> {
    const [leaf] = await this.dataSource.query(`SELECT root_id::text AS root_id, position FROM proof_leaves WHERE user_id = $1 ORDER BY proof_leaves.root_id DESC LIMIT 1`, [userId]);
    if (!leaf) {
      const any = await this.dataSource.getRepository(ProofRootRow).exists();
      throw new BusinessError(any ? ErrorCode.PROOF_NOT_INCLUDED : ErrorCode.PROOF_NO_ROOT);
    }
    const t = await this.tree(leaf.root_id);
    return proofFor(t.tree, leaf.position, t.root.currencies.map(Number), t.leaves[leaf.position]);
  }

  /** The tree of a stored root, rebuilt from its leaves once and kept (the latest one asked for). */
  private tree(rootId: string): Promise<LoadedTree> {
    if (this.loadedId !== rootId || !this.loaded) {
      this.loadedId = rootId;
      this.loaded = this.load(rootId).catch((err: unknown) => {
        if (this.loadedId === rootId) this.loaded = undefined;
        throw err;
      });
    }
    return this.loaded;
  }

  private async load(rootId: string): Promise<LoadedTree> {
    const root = await this.dataSource.getRepository(ProofRootRow).findOneByOrFail({ id: rootId });
    const rows: Array<{ position: number; salt: string; balances: string[] }> = await this.dataSource.query(
      `SELECT l.position, s.salt, l.balances FROM proof_leaves l JOIN proof_salts s ON s.user_id = l.user_id WHERE l.root_id = $1 ORDER BY l.position`,
      [rootId],
    );
    const leaves = rows.map((r) => ({ salt: r.salt, balances: r.balances.map((b) => BigInt(b)) }));
    const tree = buildTree(leaves, root.currencies.length);
    // The stored leaves must give the published root back; anything else is a defect to report, not to serve.
    if (tree.root !== root.root || leaves.length !== root.leafCount) throw new Error(`proof root ${rootId}: the stored leaves do not rebuild the published root`);
    return { rootId, root, tree, leaves };
  }
}
