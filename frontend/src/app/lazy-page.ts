import { lazy, type ComponentType } from 'react';

/** Spec §8: a screen's chunk that has not loaded after 120 s fails (the error screen offers a retry). */
export const CHUNK_TIMEOUT_MS = 120_000;

export function lazyPage<P extends object>(load: () => Promise<ComponentType<P>>) {
  return lazy(async () => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('chunk load timeout')), CHUNK_TIMEOUT_MS);
    });
    try {
      return { default: await Promise.race([load(), timeout]) };
    } finally {
      clearTimeout(timer);
    }
  });
}
