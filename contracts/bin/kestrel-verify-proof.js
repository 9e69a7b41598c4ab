#!/usr/bin/env node
// Standalone proof-of-liabilities verifier: `npx kestrel-verify-proof proof.json [--roots <url|file>]`.
// Runs the compiled contracts package (no server code); compiles it first when dist/ is missing or older than src/.
'use strict';
const { existsSync, readdirSync, statSync } = require('node:fs');
const { join } = require('node:path');
const { spawnSync } = require('node:child_process');

const pkg = join(__dirname, '..');
const out = join(pkg, 'dist', 'verify-cli.js');
const newest = (dir) => Math.max(...readdirSync(dir).filter((f) => f.endsWith('.ts') && !f.endsWith('.spec.ts')).map((f) => statSync(join(dir, f)).mtimeMs));
if (!existsSync(out) || statSync(out).mtimeMs < newest(join(pkg, 'src'))) {
  const tsc = require.resolve('typescript/bin/tsc', { paths: [pkg] });
  const r = spawnSync(process.execPath, [tsc, '-p', join(pkg, 'tsconfig.build.json')], { stdio: 'inherit' });
  if (r.status !== 0) {
    console.error('kestrel-verify-proof: could not compile the verifier (npm install first?)');
    process.exit(1);
  }
}
require(out)
  .main(process.argv.slice(2))
  .then((code) => process.exit(code), (err) => {
    console.error(`kestrel-verify-proof: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  });
