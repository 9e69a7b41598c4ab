import { transformSync } from '@swc/core';
import { readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';

/**
 * A worker thread running `body` (CommonJS JavaScript) with `mod` bound to the exports of the
 * TypeScript module at `modulePath`, compiled as the build compiles it: a test of code that must
 * run on a thread of its own (as the projector thread runs it), against the sources. `data` is
 * the body's `workerData`.
 */
export function moduleWorker(modulePath: string, body: string, data: Record<string, unknown> = {}): Worker {
  const { code } = transformSync(readFileSync(modulePath, 'utf8'), {
    jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
    module: { type: 'commonjs' },
  });
  const prelude = `
    const { parentPort, workerData } = require('node:worker_threads');
    const module = { exports: {} };
    new Function('module', 'exports', 'require', workerData.__code)(module, module.exports, require);
    const mod = module.exports;`;
  return new Worker(prelude + body, { eval: true, workerData: { ...data, __code: code } });
}
