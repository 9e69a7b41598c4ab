import { useCallback, useRef, useState } from 'react';
import { useSessionStore } from '../stores/session.store';

/** A client-generated id for a command that moves money or sends a message (DESIGN §1 principle 4): a retry with it has one effect. */
export function newClientId(): string {
  const c = globalThis.crypto;
  if (c?.randomUUID) return c.randomUUID().replace(/-/g, '');
  const bytes = new Uint8Array(16);
  c.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * Answers after which the command's fate is unknown (no answer; 2105 busy, 2106 catching up, 2107
 * result unknown): the server may have acted, so a retry of the same request must carry the same id.
 */
const FATE_UNKNOWN = new Set([0, 2105, 2106, 2107]);

/** Whether a command that failed with `err` may still have happened (see FATE_UNKNOWN). */
export function fateUnknown(err: unknown): boolean {
  return FATE_UNKNOWN.has((err as { code?: number }).code ?? -1);
}

/**
 * A submit that must have one effect (a money-moving command; a help-centre message or feedback), on
 * the screen `scope` names:
 * one at a time (a second press while the first is in flight is ignored),
 * each attempt carrying a client id. `run(request, send)`: `request` is what the command asks for
 * (its fields without the id). After an answer whose fate is unknown, the id is kept for a retry of
 * the same request only: the server deduplicates by id alone, so an edited request (another amount,
 * side or price) must not reuse it, or the server would answer with the first command's result and
 * the edited one would never be placed. Any other answer (success or a refusal) renews it.
 *
 * `derive` (optional) works out the fields the app adds to the request at the moment of sending,
 * such as a market order's worst price taken from the book: worked out once per id, so a retry with
 * a kept id sends them unchanged (the server refuses an id sent again with other fields), while the
 * request the user sees and edits decides, as above, whether the id is kept. `keptFor(request)` is
 * what a retry of `request` would send (undefined when it would work it out anew), for the screen to
 * show what is sent.
 */
export function useMoneySubmit(scope: string) {
  const [busy, setBusy] = useState(false);
  const inFlight = useRef(false);
  const at = useRef(scope);
  at.current = scope;
  const run = useCallback(
    async <T, D = undefined>(request: unknown, send: (clientId: string, derived: D) => Promise<T>, derive?: () => D): Promise<T | undefined> => {
      if (inFlight.current) return undefined;
      inFlight.current = true;
      setBusy(true);
      const key = JSON.stringify(request);
      const scope = at.current;
      const retry = keptOf(scope, key);
      const id = retry ? retry.id : newClientId();
      const derived = retry ? (retry.derived as D) : (derive?.() as D);
      kept.delete(scope);
      try {
        return await send(id, derived);
      } catch (e) {
        if (fateUnknown(e)) kept.set(scope, { id, request: key, derived, at: Date.now() });
        throw e;
      } finally {
        inFlight.current = false;
        setBusy(false);
      }
    },
    [],
  );
  const keptFor = useCallback((request: unknown): unknown => keptOf(at.current, JSON.stringify(request))?.derived, []);
  /** Whether sending `request` now would be the retry of an unanswered one (with its kept id): a screen must not refuse it on its own checks, which the first may have changed. */
  const holds = useCallback((request: unknown): boolean => keptOf(at.current, JSON.stringify(request)) !== undefined, []);
  return { busy, run, keptFor, holds };
}

/**
 * The id kept after an unknown fate, per screen (`scope`): the screen left and opened again (the
 * order list looked at, another market and back) still retries with it (regression: the form's own
 * memory went with it, and the retry was placed as a second order). For KEPT_MS: the same request
 * sent later is a new one the user means (with the old id the server would answer with the first,
 * and place nothing). In memory only (a request may hold a fund password), and forgotten when the
 * session changes (a logout, another login).
 */
const kept = new Map<string, { id: string; request: string; derived: unknown; at: number }>();
export const KEPT_MS = 5 * 60_000;
useSessionStore.subscribe((s, before) => {
  if (s.token !== before.token) kept.clear();
});

function keptOf(scope: string, request: string) {
  const k = kept.get(scope);
  return k && k.request === request && Date.now() - k.at <= KEPT_MS ? k : undefined;
}

/** Forgets every kept id (tests: each starts with none). */
export function forgetKeptIds(): void {
  kept.clear();
}
