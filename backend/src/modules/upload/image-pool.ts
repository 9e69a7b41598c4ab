import { extname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { CleanImage, ImageTooLargeError, NotAnImageError } from './image';

/** Decoding a phone photo in pure JS takes seconds; it must never stall the API's event loop. */
const IMAGE_MODULE = join(__dirname, `image${extname(__filename)}`);

// The worker loads image.js (built) or, when running from sources (tests), compiles image.ts with swc.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Module = require('node:module');
const path = require('node:path');
function load(file) {
  if (!file.endsWith('.ts')) return require(file);
  const { code } = require('@swc/core').transformFileSync(file, { swcrc: false, jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } });
  const m = new Module(file);
  m.filename = file;
  m.paths = Module._nodeModulePaths(path.dirname(file));
  m._compile(code, file);
  return m.exports;
}
const image = load(workerData.module);
try {
  const out = image.sanitizeImage(Buffer.from(workerData.bytes));
  parentPort.postMessage({ ok: true, mime: out.mime, width: out.width, height: out.height, bytes: out.bytes });
} catch (err) {
  const kind = err instanceof image.ImageTooLargeError ? 'too_large' : err instanceof image.NotAnImageError ? 'not_image' : 'error';
  parentPort.postMessage({ ok: false, kind, message: String(err && err.message) });
}
`;

type Answer =
  | { ok: true; mime: CleanImage['mime']; width: number; height: number; bytes: Uint8Array }
  | { ok: false; kind: 'too_large' | 'not_image' | 'error'; message: string };

export class ImageTimeoutError extends Error {}
/** Every decoder is busy and `maxWaiting` images already wait for one: the image is refused, not queued. */
export class ImagePoolBusyError extends Error {}

/**
 * Runs `sanitizeImage` in worker threads, at most `concurrency` at a time (each decode holds up to
 * 4 bytes a pixel, so this also bounds memory); a decode that runs past `timeoutMs` is stopped. At
 * most `maxWaiting` images (each up to 5 MB, held in memory) wait for a decoder (default four for
 * each decoder); past that `sanitize` refuses at once with ImagePoolBusyError.
 */
export class ImagePool {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly concurrency = 2,
    private readonly timeoutMs = 30_000,
    private readonly maxWaiting = 4 * concurrency,
  ) {}

  async sanitize(bytes: Buffer): Promise<CleanImage> {
    if (this.active >= this.concurrency) {
      if (this.waiting.length >= this.maxWaiting) throw new ImagePoolBusyError('every image decoder is busy');
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    this.active += 1;
    try {
      return await this.run(bytes);
    } finally {
      this.active -= 1;
      this.waiting.shift()?.();
    }
  }

  private run(bytes: Buffer): Promise<CleanImage> {
    return new Promise((resolve, reject) => {
      const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { module: IMAGE_MODULE, bytes } });
      let settled = false;
      const settle = (fn: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        void worker.terminate();
        fn();
      };
      const timer = setTimeout(() => settle(() => reject(new ImageTimeoutError('image decoding timed out'))), this.timeoutMs);
      worker.once('message', (a: Answer) =>
        settle(() => {
          if (a.ok) resolve({ mime: a.mime, width: a.width, height: a.height, bytes: Buffer.from(a.bytes.buffer, a.bytes.byteOffset, a.bytes.byteLength) });
          else if (a.kind === 'too_large') reject(new ImageTooLargeError(a.message));
          else if (a.kind === 'not_image') reject(new NotAnImageError(a.message));
          else reject(new Error(a.message));
        }),
      );
      worker.once('error', (err) => settle(() => reject(err)));
      worker.once('exit', (code) => settle(() => reject(new Error(`image worker exited with code ${code}`))));
    });
  }
}
