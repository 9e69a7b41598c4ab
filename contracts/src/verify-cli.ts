/**
 * The standalone verifier (`npx kestrel-verify-proof proof.json [--roots <url|file>]`): reads a
 * proof downloaded from the app (`GET /api/proof/mine?download=1`), recomputes it step by step with
 * the same pure code as the app, prints every step and `verified` or `FAILED at step N: reason`.
 * With --roots it also checks that the root is a published one (`GET /api/proof/roots`, a saved
 * copy of its answer, or a JSON list of roots). Exit code 0 when everything holds, 1 otherwise.
 * Node only (fs, fetch); no server code.
 */
import { readFileSync } from 'node:fs';
import { formatUnits, isPublishedRoot, type LiabilityProof, type ProofRoot, verifyProof } from './proof';

const USAGE = 'usage: kestrel-verify-proof <proof.json> [--roots <url|file>]';

type Out = (line: string) => void;

/** The roots from a /api/proof/roots answer (envelope or data), a page `{items}`, or a plain list. */
function rootsOf(body: unknown): { roots: ProofRoot[]; total?: number } {
  const b = body as { data?: unknown; items?: unknown; total?: unknown } | unknown[];
  if (Array.isArray(b)) return { roots: b as ProofRoot[] };
  if (b && typeof b === 'object' && 'data' in b && b.data !== undefined) return rootsOf(b.data);
  if (b && typeof b === 'object' && 'items' in b && Array.isArray(b.items)) return { roots: b.items as ProofRoot[], total: typeof b.total === 'number' ? b.total : undefined };
  throw new Error('the roots are not a list, a page {items} or an /api envelope');
}

/** Every published root from a URL (following pages) or a file. */
async function loadRoots(source: string, proof: LiabilityProof): Promise<ProofRoot[]> {
  if (!/^https?:\/\//i.test(source)) return rootsOf(JSON.parse(readFileSync(source, 'utf8'))).roots;
  const all: ProofRoot[] = [];
  for (let page = 1; page <= 1000; page++) {
    const url = new URL(source);
    url.searchParams.set('page', String(page));
    if (!url.searchParams.has('limit')) url.searchParams.set('limit', '100');
    const res = await fetch(url, { headers: { accept: 'application/json' } });
    if (!res.ok) throw new Error(`${url.href}: HTTP ${res.status}`);
    const { roots, total } = rootsOf(await res.json());
    all.push(...roots);
    if (isPublishedRoot(proof, roots) || roots.length === 0 || total === undefined || all.length >= total) break;
  }
  return all;
}

export async function main(args: string[], out: Out = (l) => process.stdout.write(l + '\n'), err: Out = (l) => process.stderr.write(l + '\n')): Promise<number> {
  let file: string | undefined;
  let rootsSource: string | undefined;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--roots') rootsSource = args[++i];
    else if (args[i] === '-h' || args[i] === '--help') {
      out(USAGE);
      return 0;
    } else if (!file) file = args[i];
    else {
      err(USAGE);
      return 1;
    }
  }
  if (!file || (args.includes('--roots') && !rootsSource)) {
    err(USAGE);
    return 1;
  }
  let proof: LiabilityProof;
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as { type?: unknown; data?: unknown };
    // A saved /api answer (the envelope) is accepted as well as the downloaded file.
    proof = (parsed && typeof parsed === 'object' && 'type' in parsed && parsed.data ? parsed.data : parsed) as LiabilityProof;
  } catch (e) {
    err(`cannot read ${file}: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  }
  const v = verifyProof(proof);
  const amounts = (sums: string[]) => sums.map((s, i) => `${proof.currencies?.[i] ?? '?'}:${formatUnits(s)}`).join(' ');
  out(`proof for root ${String(proof.root)}`);
  out(`currencies (ids, amounts in units of 1e-18): ${Array.isArray(proof.currencies) ? proof.currencies.join(', ') : '?'}`);
  if (v.leaf) out(`step 0  leaf          hash ${v.leaf.hash}  sums ${amounts(v.leaf.sums)}`);
  for (const s of v.steps) {
    out(`step ${s.level}  sibling ${s.side.padEnd(5)}  hash ${s.hash}  sums ${amounts(s.sums)}`);
    out(`        parent        hash ${s.resultHash}  sums ${amounts(s.resultSums)}`);
  }
  if (!v.ok) {
    out(`FAILED at step ${v.failedStep}: ${v.detail ?? v.reason}`);
    return 1;
  }
  out(`computed root ${v.root} equals the proof's root`);
  if (rootsSource) {
    let roots: ProofRoot[];
    try {
      roots = await loadRoots(rootsSource, proof);
    } catch (e) {
      err(`cannot read the published roots from ${rootsSource}: ${e instanceof Error ? e.message : String(e)}`);
      return 1;
    }
    if (!isPublishedRoot(proof, roots)) {
      out(`FAILED at step ${v.steps.length}: root ${v.root} is not among the ${roots.length} published roots of ${rootsSource}`);
      return 1;
    }
    const published = roots.find((r) => r.root === v.root)!;
    out(`the root is published (${published.time}, watermark journal ${published.watermark?.seq} / ledger entry ${published.watermark?.ledgerEntryId}); totals ${amounts(published.totals)}`);
  }
  out('verified');
  return 0;
}
