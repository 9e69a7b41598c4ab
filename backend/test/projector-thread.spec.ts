import { join } from 'node:path';
import type { ReplicaEvent } from '../src/modules/engine/projection-replica';
import type { ProjectorThread as Thread } from '../src/modules/engine/projector-thread';

/**
 * The projector thread of the built app (tests on the sources run the replica in-process, so this
 * one loads `backend/dist`, which `npm test` builds first).
 */
describe('ProjectorThread (the built app)', () => {
  it('a thread that fails before it starts (its database cannot be reached) fails its start: recovery does not wait forever', async () => {
    const { ProjectorThread } = require(join(__dirname, '..', 'dist', 'modules', 'engine', 'projector-thread.js')) as { ProjectorThread: typeof Thread };
    const events: ReplicaEvent[] = [];
    const thread = new ProjectorThread(
      {
        databaseUrl: 'postgres://nobody@127.0.0.1:1/none',
        markets: [],
        projectBatch: 100,
        projectLingerMs: 0,
        snapshotEvery: 1_000_000,
        idleTransactionMs: 3_000,
        nice: 0,
      },
      (e) => events.push(e),
    );
    // Regression: the failure went to the event handler only, and `start()` never settled.
    await expect(thread.start()).rejects.toThrow(/^projector thread: .*ECONNREFUSED/);
    const t0 = performance.now();
    await thread.stop();
    expect(performance.now() - t0).toBeLessThan(1_000); // an ended thread is not waited for
    expect(events).toEqual([]);
  }, 20_000);
});
