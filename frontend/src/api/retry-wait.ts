/**
 * The wait before a retry: `base` × 2^`failures` (the retries in a row before this one), at most
 * `max`, drawn between half and all of it, so that many clients refused at once (a server
 * restarting, its database away) do not all come back in step.
 */
export const retryWait = (base: number, max: number, failures: number): number => Math.round(Math.min(max, base * 2 ** failures) * (0.5 + Math.random() / 2));
