import { join } from 'node:path';
import { moduleWorker } from '../../../test/support/module-worker';
import { JournalSignal } from './journal-signal';

describe('JournalSignal: the host wakes the projector thread only while it waits for work', () => {
  it('one wakeup per wait; a working projector reads the head itself', () => {
    const host = new JournalSignal();
    const projector = new JournalSignal(host.buffer);
    expect(host.publish(1)).toBe(false); // working (not waiting yet): no message
    expect(projector.waiting()).toBe(1); // it reads the head before it waits: there is work
    projector.working();
    expect(host.publish(2)).toBe(false);
    expect(projector.waiting()).toBe(2); // nothing new past 2: it waits
    expect(host.publish(3)).toBe(true); // wake it, once
    expect(host.publish(4)).toBe(false);
    projector.working();
    expect(projector.waiting()).toBe(4);
  });

  it('keeps batch numbers past 32 bits', () => {
    const host = new JournalSignal();
    host.publish(2 ** 40 + 7);
    expect(new JournalSignal(host.buffer).waiting()).toBe(2 ** 40 + 7);
  });

  it('across two threads no head is missed, with far fewer wakeups than batches', async () => {
    // The projector's side, as the replica runs it: read the head before waiting, wait only for a message.
    const body = `
      const signal = new mod.JournalSignal(workerData.buffer);
      let seen = 0, woken = 0;
      const work = () => { const end = performance.now() + Math.random() * 0.05; while (performance.now() < end); };
      (async () => {
        while (seen < workerData.n) {
          const head = signal.waiting();
          if (head <= seen) {
            await new Promise((r) => parentPort.once('message', r)); // no timer: a lost wakeup hangs here
            woken++;
          }
          signal.working();
          seen = Math.max(seen, head);
          work();
        }
        parentPort.postMessage({ seen, woken });
      })();`;
    const host = new JournalSignal();
    const n = 10_000;
    const worker = moduleWorker(join(__dirname, 'journal-signal.ts'), body, { buffer: host.buffer, n });
    try {
      const done = new Promise<{ seen: number; woken: number }>((ok, fail) => worker.once('message', ok).once('error', fail));
      let messages = 0;
      for (let seq = 1; seq <= n; seq++) {
        if (host.publish(seq)) {
          messages++;
          worker.postMessage(seq);
        }
        // Now and then the host pauses, so the projector catches up and waits; else it runs back to back.
        if (seq % 50 === 0) await new Promise((r) => setTimeout(r, 1));
      }
      // A lost wakeup leaves the projector waiting for good: fail instead of hanging.
      const lost = new Promise<never>((_, fail) => setTimeout(() => fail(new Error('the projector was not woken')), 5000).unref());
      const { seen, woken } = await Promise.race([done, lost]);
      expect(seen).toBe(n);
      expect(woken).toBeGreaterThan(0); // it did wait, and was woken every time
      expect(woken).toBeLessThanOrEqual(messages);
      expect(messages).toBeLessThan(n / 2);
    } finally {
      await worker.terminate();
    }
  }, 20_000);
});
