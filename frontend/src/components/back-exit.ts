/** Spec §2: at the root, the first back press warns and a second one within this window exits. */
export const EXIT_WINDOW_MS = 2000;

/** The decision alone (no history): `press()` answers whether this back press should leave the app. */
export function createBackExit(now: () => number = Date.now) {
  let last = -Infinity;
  return {
    press(): 'warn' | 'exit' {
      const at = now();
      if (at - last <= EXIT_WINDOW_MS) return 'exit';
      last = at;
      return 'warn';
    },
  };
}
