import type { LiabilityProof, ProofRoot } from '@kestrel/contracts';
import { useSessionStore } from '../stores/session.store';
import { ApiError, get } from './client';
import type { Page } from './trading';

/** A published root as `GET proof/roots` answers it (docs/integrity.md); `decimals` per currency when the server gives them. */
export type PublishedRoot = ProofRoot & { decimals?: number[] };

export const proofApi = {
  /** Public: the latest published roots, the latest first (the first page: the user's proof is for the latest root). Quiet: the screen shows its own failure line. */
  roots: () => get<Page<PublishedRoot>>('proof/roots', { page: 1, limit: 20 }, { quiet: true }).then((p) => p.items),
  /** The user's inclusion proof in the latest root. */
  mine: () => get<LiabilityProof>('proof/mine', undefined, { quiet: true }),
};

/** The name `Content-Disposition` gives, else a default. */
function fileName(disposition: string | null): string {
  const m = /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(disposition ?? '');
  return m ? decodeURIComponent(m[1]) : 'kestrel-proof.json';
}

/** `GET proof/mine?download=1` needs the Authorization header, which a plain link cannot send: fetched, then saved. */
export async function downloadProof(): Promise<string> {
  const token = useSessionStore.getState().token;
  const res = await fetch('./api/proof/mine?download=1', { headers: token ? { Authorization: token } : {} });
  if (!res.ok) throw new ApiError(res.statusText, res.status);
  const name = fileName(res.headers.get('content-disposition'));
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
  return name;
}
