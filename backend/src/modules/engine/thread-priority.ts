import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/**
 * Lowers the calling thread's CPU priority to `nice` (Linux, where a thread's nice value is its
 * own and raising it needs no privilege: `/proc/thread-self` names the thread, and setpriority
 * with a thread id changes that thread only). Answers the thread's nice value after, or undefined
 * where it cannot be set (another OS, no /proc): the thread then runs at the process's priority.
 *
 * The projector thread calls it: on a machine whose cores are busy, the scheduler then runs the
 * event loop that answers orders first, and the projector, whose lag is bounded by backpressure,
 * takes the CPU that is left (docs/performance.md, "Nineteenth sitting").
 */
export function lowerThreadPriority(nice: number): number | undefined {
  if (!(nice > 0)) return undefined;
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isSafeInteger(tid) || tid <= 0) return undefined;
    // Never raises a priority: a thread already nicer keeps its value.
    if (getPriority(tid) < nice) setPriority(tid, Math.min(19, nice));
    return getPriority(tid);
  } catch {
    return undefined;
  }
}
