// A preload for any benchmark: V8's sampling heap profiler on the main thread over a window of
// the run, then the window's allocation in all and by function (self size, every object counted,
// whether collected by the young or the old generation's collector or still alive). Usage:
//   HEAP_PROFILE_AT=24 HEAP_PROFILE_SECONDS=8 BENCH_RATE=5000 node --max-semi-space-size=64 \
//     --import ./load-tests/lib/heap-profile.mjs load-tests/bench-core.mjs
// HEAP_PROFILE_SURVIVORS=1 leaves out what the young-generation collector frees: what is promoted
// (or allocated old) is what makes a scavenge long. The profile is written to
// $TMPDIR/kestrel-heap.heapprofile (open it in Chrome's DevTools).
import { Session } from 'node:inspector/promises';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMainThread } from 'node:worker_threads';

const AT = Number(process.env.HEAP_PROFILE_AT ?? 24) * 1000;
const SECONDS = Number(process.env.HEAP_PROFILE_SECONDS ?? 8);
const SURVIVORS = process.env.HEAP_PROFILE_SURVIVORS === '1';

if (isMainThread) {
  const session = new Session();
  session.connect();
  setTimeout(async () => {
    await session.post('HeapProfiler.startSampling', {
      samplingInterval: 4096,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: !SURVIVORS,
    });
    setTimeout(async () => {
      const { profile } = await session.post('HeapProfiler.stopSampling');
      const file = join(tmpdir(), 'kestrel-heap.heapprofile');
      writeFileSync(file, JSON.stringify(profile));
      report(profile, file);
    }, SECONDS * 1000).unref();
  }, AT).unref();
}

function report(profile, file) {
  const bySite = new Map();
  let total = 0;
  const walk = (node) => {
    const f = node.callFrame;
    const site = `${f.functionName || '(anonymous)'} ${f.url.split('/').slice(-2).join('/')}:${f.lineNumber + 1}`;
    total += node.selfSize;
    if (node.selfSize) bySite.set(site, (bySite.get(site) ?? 0) + node.selfSize);
    for (const c of node.children) walk(c);
  };
  walk(profile.head);
  const mb = (n) => (n / 1048576).toFixed(1);
  console.error(
    `[heap] ${SURVIVORS ? 'survived a scavenge' : 'allocated'}: ${mb(total)} MB in ${SECONDS} s (${mb(total / SECONDS)} MB/s) on the main thread; profile in ${file}`,
  );
  for (const [site, n] of [...bySite].sort((a, b) => b[1] - a[1]).slice(0, 15))
    console.error(`[heap] ${mb(n).padStart(7)} MB ${((100 * n) / total).toFixed(1).padStart(5)} % ${site}`);
}
