import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { moduleWorker } from '../../../test/support/module-worker';

/** A thread's nice value as the kernel has it (field 19 of /proc/<pid>/task/<tid>/stat). */
function niceOf(tid: number): number {
  const stat = readFileSync(`/proc/${process.pid}/task/${tid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
}

/**
 * Runs `lowerThreadPriority(nice)` on a new worker thread (the module compiled from its source,
 * as the built app runs it there) and answers what it returned and the thread's id.
 */
async function inWorker(...nices: number[]): Promise<{ answers: Array<number | null>; tid: number; kernel: number }> {
  const worker = moduleWorker(
    join(__dirname, 'thread-priority.ts'),
    `const answers = workerData.nices.map((n) => mod.lowerThreadPriority(n) ?? null);
     const tid = Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop());
     parentPort.postMessage({ answers, tid });
     parentPort.once('message', () => process.exit(0));`,
    { nices },
  );
  try {
    const m = await new Promise<{ answers: Array<number | null>; tid: number }>((ok, fail) => worker.once('message', ok).once('error', fail));
    // Read while the thread still lives.
    return { ...m, kernel: niceOf(m.tid) };
  } finally {
    worker.postMessage('done');
    await worker.terminate();
  }
}

const linux = process.platform === 'linux';

(linux ? describe : describe.skip)('lowerThreadPriority (the projector thread)', () => {
  it('lowers the calling thread only, not the process', async () => {
    const before = niceOf(process.pid);
    const { answers, tid, kernel } = await inWorker(10);
    expect(tid).not.toBe(process.pid);
    expect(answers).toEqual([Math.max(10, before)]);
    expect(kernel).toBe(Math.max(10, before));
    expect(niceOf(process.pid)).toBe(before);
  });

  it('never raises a priority, caps at 19, and leaves the thread alone for 0', async () => {
    const base = niceOf(process.pid);
    expect((await inWorker(0)).answers).toEqual([null]);
    expect((await inWorker(0)).kernel).toBe(base);
    const { answers, kernel } = await inWorker(12, 5, 40);
    expect(answers).toEqual([Math.max(12, base), Math.max(12, base), 19]);
    expect(kernel).toBe(19);
  });
});
