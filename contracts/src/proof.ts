/**
 * Proof of liabilities (issue "Verifiable honesty", item 1): a Merkle sum tree over every user's
 * balances, its published root and each user's inclusion proof. Pure (no Node or DOM APIs, no
 * floats): the server builds with it, the app and the standalone verifier
 * (`npx kestrel-verify-proof`) verify with it. The encoding is fixed; docs/integrity.md describes
 * it with a worked example so that anyone can write their own verifier.
 *
 * - currencies in the order of the root's `currencies` list;
 * - an amount is its integer units at the currency's precision, a 16-byte big-endian unsigned integer;
 * - sums(x) = the concatenation of the amounts of all currencies;
 * - leaf hash = SHA-256(0x00 ‖ salt (32 bytes) ‖ sums(user's balances));
 * - node hash = SHA-256(0x01 ‖ left hash ‖ sums(left) ‖ right hash ‖ sums(right)), sums = left + right;
 * - an odd node at the end of a level is carried up unchanged (no hash, no step in the path);
 * - every amount is non-negative and below 2^128, else building refuses and verification fails;
 * - a tree of no leaves has the root SHA-256 of nothing (e3b0c442…) and zero totals.
 */
import { sha256 } from '@noble/hashes/sha2';
import { bytesToHex, concatBytes, hexToBytes } from '@noble/hashes/utils';

/** One step of a path, from the leaf up: the sibling's hash and sums; `side` = where the sibling sits. */
export interface ProofStep {
  side: 'left' | 'right';
  /** Lowercase hex, 32 bytes. */
  hash: string;
  /** Units per currency as decimal strings, in the root's currency order. */
  sums: string[];
}

/** A user's inclusion proof: `GET /api/proof/mine` (and the file `?download=1` serves). */
export interface LiabilityProof {
  /** The published root this proof leads to (lowercase hex). */
  root: string;
  /** Currency ids, in the order of every amount list. */
  currencies: number[];
  /** The user's 32-byte salt (lowercase hex), shown only to that user. */
  salt: string;
  /** The user's balances (all accounts, available + frozen) in units at each currency's precision. */
  balances: string[];
  /** Sibling steps from the leaf up to the root. */
  path: ProofStep[];
}

/** Where in the books a root was taken: the journal batch the read tables reflect and the last ledger entry. */
export interface ProofWatermark {
  /** Sequencer journal batch (`sequencer_projection.seq`), decimal string. */
  seq: string;
  /** The highest ledger entry id at that moment (the view `ledger`: a trade's legs in its row count up to its `ledger_id + 7`), decimal string ("0" for none). */
  ledgerEntryId: string;
}

/** A published root: `GET /api/proof/roots` (latest first) and `POST /api/admin/proof/build`. */
export interface ProofRoot {
  root: string;
  currencies: number[];
  /** Units per currency: the sum of every user's balances (the root's sums). */
  totals: string[];
  watermark: ProofWatermark;
  /** ISO 8601 time of the build. */
  time: string;
}

/** A leaf to build from: the user's salt (64 hex digits) and balances in units, in the currency order. */
export interface TreeLeaf {
  salt: string;
  balances: readonly bigint[];
}

export interface MerkleSumTree {
  /** Lowercase hex. */
  root: string;
  /** The root's sums (every leaf added up). */
  totals: bigint[];
  leafCount: number;
  /** The inclusion path of leaf `index` (in the order the leaves were given), from the leaf up. */
  path(index: number): ProofStep[];
}

/** Why a verification failed (the app translates the code; `detail` is English). */
export type ProofFailure = 'malformed' | 'negative' | 'overflow' | 'length' | 'root-mismatch';

/** One recomputed level: the sibling of the step and the parent it gives. */
export interface VerifiedStep {
  /** 1 for the step next to the leaf. */
  level: number;
  side: 'left' | 'right';
  hash: string;
  sums: string[];
  resultHash: string;
  resultSums: string[];
}

export interface ProofVerification {
  ok: boolean;
  /** The recomputed leaf (level 0); absent when the leaf itself could not be read. */
  leaf?: { hash: string; sums: string[] };
  /** The recomputed root (the last result), when every step could be computed. */
  root?: string;
  steps: VerifiedStep[];
  /** The level that failed: 0 = the leaf, n = path step n (a root mismatch fails at the last step). */
  failedStep?: number;
  reason?: ProofFailure;
  detail?: string;
}

/**
 * Decimals of every proof amount: a unit is 10^-18 of the currency, the scale at which the ledger
 * records balances (numeric(36,18)), so that the totals equal the books exactly (no truncation).
 */
export const PROOF_DECIMALS = 18;

/** Units (a decimal string or bigint) as a plain decimal amount, e.g. 1500000000000000000 → "1.5". */
export function formatUnits(value: string | bigint, decimals = PROOF_DECIMALS): string {
  const v = BigInt(value);
  const neg = v < 0n;
  const digits = (neg ? -v : v).toString().padStart(decimals + 1, '0');
  const int = digits.slice(0, digits.length - decimals);
  const frac = digits.slice(digits.length - decimals).replace(/0+$/, '');
  return `${neg ? '-' : ''}${int}${frac ? `.${frac}` : ''}`;
}

/** Bytes per amount. */
export const AMOUNT_BYTES = 16;
/** Amounts must be below this (16 bytes unsigned). */
export const AMOUNT_LIMIT = 1n << 128n;
const LEAF_PREFIX = Uint8Array.of(0x00);
const NODE_PREFIX = Uint8Array.of(0x01);
const HASH_RE = /^[0-9a-fA-F]{64}$/;
const UNITS_RE = /^-?\d+$/;

/** An amount as 16 bytes big-endian; refuses a negative amount or one of 2^128 or more. */
export function amountBytes(value: bigint): Uint8Array {
  if (value < 0n) throw new RangeError(`negative amount: ${value}`);
  if (value >= AMOUNT_LIMIT) throw new RangeError(`amount does not fit 16 bytes: ${value}`);
  const out = new Uint8Array(AMOUNT_BYTES);
  let v = value;
  for (let i = AMOUNT_BYTES - 1; i >= 0 && v > 0n; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

/** sums(x): the amounts of all currencies, concatenated. */
export function encodeSums(sums: readonly bigint[]): Uint8Array {
  return concatBytes(...sums.map(amountBytes));
}

/** SHA-256(0x00 ‖ salt ‖ sums(balances)). */
export function leafHash(salt: Uint8Array, balances: readonly bigint[]): Uint8Array {
  if (salt.length !== 32) throw new RangeError('the salt must be 32 bytes');
  return sha256(concatBytes(LEAF_PREFIX, salt, encodeSums(balances)));
}

/** SHA-256(0x01 ‖ left hash ‖ sums(left) ‖ right hash ‖ sums(right)). */
export function nodeHash(leftHash: Uint8Array, leftSums: readonly bigint[], rightHash: Uint8Array, rightSums: readonly bigint[]): Uint8Array {
  return sha256(concatBytes(NODE_PREFIX, leftHash, encodeSums(leftSums), rightHash, encodeSums(rightSums)));
}

function addSums(a: readonly bigint[], b: readonly bigint[]): bigint[] {
  const out = a.map((x, i) => x + b[i]);
  for (const x of out) if (x >= AMOUNT_LIMIT) throw new RangeError(`sum does not fit 16 bytes: ${x}`);
  return out;
}

const toStrings = (xs: readonly bigint[]): string[] => xs.map((x) => x.toString());

/** The root of a tree of no leaves: SHA-256 of nothing. */
export const EMPTY_ROOT = bytesToHex(sha256(new Uint8Array(0)));

interface TreeNode {
  hash: Uint8Array;
  sums: bigint[];
}

/**
 * Build the tree over `leaves` (every leaf with the same number of balances, `currencyCount` when
 * there are none). Throws a RangeError on a negative or oversized amount, a bad salt or a length
 * mismatch: such a set has no valid root.
 */
export function buildTree(leaves: readonly TreeLeaf[], currencyCount = leaves[0]?.balances.length ?? 0): MerkleSumTree {
  const levels: TreeNode[][] = [
    leaves.map((leaf, i) => {
      if (leaf.balances.length !== currencyCount) throw new RangeError(`leaf ${i} has ${leaf.balances.length} balances, expected ${currencyCount}`);
      if (!HASH_RE.test(leaf.salt)) throw new RangeError(`leaf ${i}: the salt must be 64 hex digits`);
      return { hash: leafHash(hexToBytes(leaf.salt.toLowerCase()), leaf.balances), sums: [...leaf.balances] };
    }),
  ];
  while (levels[levels.length - 1].length > 1) {
    const level = levels[levels.length - 1];
    const next: TreeNode[] = [];
    for (let i = 0; i < level.length; i += 2) {
      if (i + 1 === level.length) {
        next.push(level[i]); // the odd node at the end is carried up unchanged
        break;
      }
      const l = level[i];
      const r = level[i + 1];
      next.push({ hash: nodeHash(l.hash, l.sums, r.hash, r.sums), sums: addSums(l.sums, r.sums) });
    }
    levels.push(next);
  }
  const top = levels[levels.length - 1][0];
  return {
    root: top ? bytesToHex(top.hash) : EMPTY_ROOT,
    totals: top ? [...top.sums] : new Array<bigint>(currencyCount).fill(0n),
    leafCount: leaves.length,
    path(index: number): ProofStep[] {
      if (!Number.isInteger(index) || index < 0 || index >= leaves.length) throw new RangeError(`no leaf ${index}`);
      const steps: ProofStep[] = [];
      let i = index;
      for (let h = 0; h < levels.length - 1; h++) {
        const level = levels[h];
        const sibling = i % 2 === 0 ? i + 1 : i - 1;
        if (sibling < level.length) {
          const s = level[sibling];
          steps.push({ side: sibling < i ? 'left' : 'right', hash: bytesToHex(s.hash), sums: toStrings(s.sums) });
        }
        i >>= 1;
      }
      return steps;
    },
  };
}

/** A user's proof from a built tree. */
export function proofFor(tree: MerkleSumTree, index: number, currencies: readonly number[], leaf: TreeLeaf): LiabilityProof {
  return { root: tree.root, currencies: [...currencies], salt: leaf.salt.toLowerCase(), balances: toStrings(leaf.balances), path: tree.path(index) };
}

class Refused extends Error {
  constructor(
    readonly reason: ProofFailure,
    message: string,
  ) {
    super(message);
  }
}

function readAmounts(value: unknown, count: number, what: string): bigint[] {
  if (!Array.isArray(value)) throw new Refused('malformed', `${what} is not a list`);
  if (value.length !== count) throw new Refused('length', `${what} has ${value.length} amounts for ${count} currencies`);
  return value.map((x, i) => {
    if (typeof x !== 'string' || !UNITS_RE.test(x)) throw new Refused('malformed', `${what}[${i}] is not a whole number of units as a string`);
    const v = BigInt(x);
    if (v < 0n) throw new Refused('negative', `${what}[${i}] is negative (${x})`);
    if (v >= AMOUNT_LIMIT) throw new Refused('overflow', `${what}[${i}] does not fit 16 bytes`);
    return v;
  });
}

function readHash(value: unknown, what: string): Uint8Array {
  if (typeof value !== 'string' || !HASH_RE.test(value)) throw new Refused('malformed', `${what} is not 64 hex digits`);
  return hexToBytes(value.toLowerCase());
}

/**
 * Recompute `proof` from the leaf up and compare the result with `proof.root`. Never throws: a
 * malformed proof fails with reason 'malformed' at the level where it could not be read.
 */
export function verifyProof(proof: LiabilityProof | unknown): ProofVerification {
  const steps: VerifiedStep[] = [];
  const p = (proof ?? {}) as Partial<Record<keyof LiabilityProof, unknown>>;
  let level = 0;
  let leaf: ProofVerification['leaf'];
  try {
    if (typeof proof !== 'object' || proof === null) throw new Refused('malformed', 'the proof is not a JSON object');
    const expected = readHash(p.root, 'root');
    if (!Array.isArray(p.currencies) || p.currencies.length === 0) throw new Refused('malformed', 'currencies is not a non-empty list');
    const count = p.currencies.length;
    const salt = readHash(p.salt, 'salt');
    let sums = readAmounts(p.balances, count, 'balances');
    let hash = leafHash(salt, sums);
    leaf = { hash: bytesToHex(hash), sums: toStrings(sums) };
    if (!Array.isArray(p.path)) throw new Refused('malformed', 'path is not a list');
    for (const raw of p.path as unknown[]) {
      level++;
      const step = (raw ?? {}) as Partial<ProofStep>;
      if (step.side !== 'left' && step.side !== 'right') throw new Refused('malformed', `step ${level}: side is neither "left" nor "right"`);
      const sibling = readHash(step.hash, `step ${level} hash`);
      const siblingSums = readAmounts(step.sums, count, `step ${level} sums`);
      const nextSums = sums.map((x, i) => x + siblingSums[i]);
      if (nextSums.some((x) => x >= AMOUNT_LIMIT)) throw new Refused('overflow', `step ${level}: a sum does not fit 16 bytes`);
      hash = step.side === 'left' ? nodeHash(sibling, siblingSums, hash, sums) : nodeHash(hash, sums, sibling, siblingSums);
      sums = nextSums;
      steps.push({ level, side: step.side, hash: bytesToHex(sibling), sums: toStrings(siblingSums), resultHash: bytesToHex(hash), resultSums: toStrings(sums) });
    }
    const computed = bytesToHex(hash);
    if (computed !== bytesToHex(expected)) {
      return { ok: false, leaf, root: computed, steps, failedStep: level, reason: 'root-mismatch', detail: `computed root ${computed} differs from the proof's root ${bytesToHex(expected)}` };
    }
    return { ok: true, leaf, root: computed, steps };
  } catch (e) {
    if (!(e instanceof Refused)) throw e;
    return { ok: false, leaf, steps, failedStep: level, reason: e.reason, detail: e.message };
  }
}

/** Whether `proof.root` is one of the published roots (`GET /api/proof/roots`), with matching currencies. */
export function isPublishedRoot(proof: Pick<LiabilityProof, 'root' | 'currencies'>, roots: readonly Pick<ProofRoot, 'root' | 'currencies'>[]): boolean {
  const root = String(proof.root).toLowerCase();
  return roots.some((r) => r.root === root && r.currencies.length === proof.currencies.length && r.currencies.every((c, i) => c === proof.currencies[i]));
}
