#!/usr/bin/env node
// `npm run size`: the JavaScript the first route (home, `/`) needs, gzipped. Reads Vite's manifest:
// the entry chunk, the home screen's chunk, and every chunk they import statically. Chunks loaded
// later (other screens, other languages) are not counted. Last line: `initial-js-gzip: <N> KB`.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');
const manifest = JSON.parse(readFileSync(join(dist, '.vite', 'manifest.json'), 'utf8'));
const HOME = 'src/pages/index/index/home.page.tsx';

const entry = Object.keys(manifest).find((k) => manifest[k].isEntry);
if (!entry || !manifest[HOME]) throw new Error('manifest without the entry or the home screen: run the build first');

const files = new Set();
const visit = (key) => {
  const chunk = manifest[key];
  if (!chunk || files.has(chunk.file)) return;
  files.add(chunk.file);
  for (const dep of chunk.imports ?? []) visit(dep);
};
visit(entry);
visit(HOME);

let total = 0;
for (const file of [...files].sort()) {
  const bytes = gzipSync(readFileSync(join(dist, file)), { level: 9 }).length;
  total += bytes;
  console.log(`${(bytes / 1024).toFixed(1).padStart(8)} KB  ${file}`);
}
console.log(`initial-js-gzip: ${(total / 1024).toFixed(1)} KB`);
