import { runLoadScript } from './support/load-script';

// The backup and restore drill (load-tests/backup-drill.mjs, docs/operations.md) kept as a test:
// pg_dump during order load, restore into a new database, start the built stack on it: the
// journal replays to the dump's head, the trial balance is exact, the held totals are the dump's,
// and the replay hash equals an independent replay of the dumped journal.
it('a dump taken under load restores to a stack with the same books and journal head', async () => {
  const r = await runLoadScript('backup-drill.mjs', [], { ...process.env, API_URL: '' });
  const last = r.stdout.trim().split('\n').pop() ?? '';
  const m = /^backup drill: journal (\d+) restored to batch (\d+), trial balance (ok|NOT ok), replay hash ([0-9a-f]{64}), independent replay (same|DIFFERENT)$/.exec(last);
  expect({ code: r.code, last, stderr: r.code === 0 ? '' : r.stderr }).toEqual({ code: 0, last, stderr: '' });
  expect(m).not.toBeNull();
  expect(m![2]).toBe(m![1]);
  expect(m![3]).toBe('ok');
  expect(m![5]).toBe('same');
}, 120_000);
