import express, { NextFunction, Request, RequestHandler, Response } from 'express';
import multer from 'multer';
import { errorEnvelope } from './error-envelope';
import { ErrorCode } from './error-codes';
import { requestLang } from './request-context';

/** Upload limits: proof images and ID photos, compressed by the app before sending. */
export const UPLOAD_LIMITS = { fileSize: 5 * 1024 * 1024, files: 4, fields: 50 };

/** "1048576" → "1 MB", as the too-large message names the cap. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KB`;
  return `${bytes} bytes`;
}

/** multer's limit errors: the request is over a cap (too large), not a broken upload. */
const MULTER_TOO_LARGE = new Set(['LIMIT_FILE_SIZE', 'LIMIT_FILE_COUNT', 'LIMIT_FIELD_COUNT', 'LIMIT_FIELD_VALUE', 'LIMIT_FIELD_KEY', 'LIMIT_PART_COUNT']);

/**
 * Body parsers for form-encoded, JSON and multipart bodies. A body the parser cannot read is a
 * client error: answered here with the envelope (these run before Nest's filters can). A body over
 * its cap (`limitBytes` for JSON and forms, UPLOAD_LIMITS for multipart) is code 1004 naming the
 * cap, never a 413 page.
 */
export function bodyParsers(limitBytes = 1024 * 1024): RequestHandler[] {
  const guard =
    (parser: RequestHandler, code: number, key: 'error.validation' | 'error.upload_failed', max: number): RequestHandler =>
    (req: Request, res: Response, next: NextFunction) =>
      parser(req, res, (err?: unknown) => {
        if (err) {
          const e = err as { type?: string; code?: string };
          const tooLarge = e.type === 'entity.too.large' || (e.code !== undefined && MULTER_TOO_LARGE.has(e.code));
          // Nothing more is read from a refused body: the connection closes after the answer.
          if (tooLarge) res.setHeader('Connection', 'close');
          res
            .status(200)
            .json(tooLarge ? errorEnvelope(requestLang(req), ErrorCode.BODY_TOO_LARGE, 'error.body_too_large', { max: formatBytes(max) }) : errorEnvelope(requestLang(req), code, key));
          return;
        }
        next();
      });
  const upload = multer({ storage: multer.memoryStorage(), limits: UPLOAD_LIMITS }).any();
  return [
    guard(express.json({ limit: limitBytes }), ErrorCode.VALIDATION, 'error.validation', limitBytes),
    guard(express.urlencoded({ extended: false, limit: limitBytes }), ErrorCode.VALIDATION, 'error.validation', limitBytes),
    guard((req, res, next) => (req.is('multipart/form-data') ? upload(req, res, next) : next()), ErrorCode.UPLOAD_FAILED, 'error.upload_failed', UPLOAD_LIMITS.fileSize),
  ];
}
