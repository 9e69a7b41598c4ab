import { useCallback, useRef, useState } from 'react';

/** A client-generated id for a command that moves money (DESIGN §1 principle 4): a retry with it has one effect. */
export function newClientId(): string {
  const c = globalThis.crypto;
  if (c?.randomUUID) return c.randomUUID().replace(/-/g, '');
  const bytes = new Uint8Array(16);
  c.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * A money-moving submit: one at a time (a second press while the first is in flight is ignored),
 * each attempt carrying a client id. The id is kept after a network failure (the server may have
 * acted: the retry must not act twice) and renewed after an answer (success or a refusal), so the
 * next, different request gets a new one.
 */
export function useMoneySubmit() {
  const [busy, setBusy] = useState(false);
  const inFlight = useRef(false);
  const id = useRef<string>(newClientId());
  const run = useCallback(async <T>(action: (clientId: string) => Promise<T>): Promise<T | undefined> => {
    if (inFlight.current) return undefined;
    inFlight.current = true;
    setBusy(true);
    try {
      const result = await action(id.current);
      id.current = newClientId();
      return result;
    } catch (e) {
      // code 0: no answer (network, timeout): keep the id for the retry.
      if ((e as { code?: number }).code !== 0) id.current = newClientId();
      throw e;
    } finally {
      inFlight.current = false;
      setBusy(false);
    }
  }, []);
  return { busy, run };
}
