import express, { NextFunction, Request, RequestHandler, Response } from 'express';
import multer from 'multer';
import { errorEnvelope } from './error-envelope';
import { BusinessError } from './business-error';
import { ErrorCode, ErrorCodeValue } from './error-codes';
import { requestLang } from './request-context';

/** Upload limits: proof images and ID photos, compressed by the app before sending; one file a request. */
export const UPLOAD_LIMITS = { fileSize: 5 * 1024 * 1024, files: 1, fields: 50 };

/**
 * The routes that take a file (one, in the `file` field: an image). Any other route reads a multipart body
 * for its fields only, within the form limit: a file there is refused before it is buffered.
 */
export const FILE_ROUTES: ReadonlySet<string> = new Set(['/api/upload/image', '/api/admin/nft/images', '/api/admin/news/images']);

/** Whether this request's route is one of FILE_ROUTES. */
export function takesFiles(req: Request): boolean {
  return FILE_ROUTES.has(req.path.toLowerCase());
}

/** "1048576" → "1 MB", as the too-large message names the cap. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KB`;
  return `${bytes} bytes`;
}

/** multer's limit errors: the request is over a cap (too large), not a broken upload. */
const MULTER_TOO_LARGE = new Set(['LIMIT_FILE_SIZE', 'LIMIT_FILE_COUNT', 'LIMIT_FIELD_COUNT', 'LIMIT_FIELD_VALUE', 'LIMIT_FIELD_KEY', 'LIMIT_PART_COUNT']);

/** multer for the file routes: the files' caps, and fields within `limitBytes`. */
export function fileParser(limitBytes: number): RequestHandler {
  return multer({ storage: multer.memoryStorage(), limits: { ...UPLOAD_LIMITS, fieldSize: limitBytes } }).any();
}

/**
 * A parser's error as the client's refusal: over a cap is code 1004 naming `max` (and the
 * connection closes after the answer: nothing more is read from the body), anything else `code`.
 */
export function parserRefusal(err: unknown, res: Response, code: ErrorCodeValue, key: 'error.validation' | 'error.upload_failed', max: number): BusinessError {
  const e = err as { type?: string; code?: string };
  const tooLarge = e.type === 'entity.too.large' || (e.code !== undefined && MULTER_TOO_LARGE.has(e.code));
  if (!tooLarge) return new BusinessError(code, key);
  res.setHeader('Connection', 'close');
  return new BusinessError(ErrorCode.BODY_TOO_LARGE, 'error.body_too_large', { max: formatBytes(max) });
}

/**
 * Body parsers for form-encoded, JSON and multipart bodies. A body the parser cannot read is a
 * client error: answered here with the envelope (these run before Nest's filters can). A body over
 * its cap (`limitBytes` for JSON and forms, UPLOAD_LIMITS for multipart) is code 1004 naming the
 * cap, never a 413 page.
 *
 * A multipart body's size is checked against what its route takes, from the declared length,
 * before anything is read (a body with no declared length, i.e. chunked, is refused: browsers and
 * the app always declare it for a form): on FILE_ROUTES the files' caps plus `limitBytes` of
 * fields, elsewhere `limitBytes`. Elsewhere its fields are read here. On FILE_ROUTES nothing is
 * read here: `FileUploadInterceptor` reads the files after the route's login check, so a caller
 * with no token never has a file held in memory.
 */
export function bodyParsers(limitBytes = 1024 * 1024): RequestHandler[] {
  const guard =
    (parser: RequestHandler, code: ErrorCodeValue, key: 'error.validation' | 'error.upload_failed', max: number | ((req: Request) => number)): RequestHandler =>
    (req: Request, res: Response, next: NextFunction) =>
      parser(req, res, (err?: unknown) => {
        if (!err) return next();
        const refused = parserRefusal(err, res, code, key, typeof max === 'number' ? max : max(req));
        res.status(200).json(errorEnvelope(requestLang(req), refused.code, refused.messageKey, refused.params));
      });
  const fieldsOnly = multer({ storage: multer.memoryStorage(), limits: { files: 0, fields: UPLOAD_LIMITS.fields, fieldSize: limitBytes } }).any();
  const multipart: RequestHandler = (req, res, next) => {
    if (!req.is('multipart/form-data')) return next();
    const files = takesFiles(req);
    const declared = Number(req.headers['content-length']);
    const cap = files ? UPLOAD_LIMITS.files * UPLOAD_LIMITS.fileSize + limitBytes : limitBytes;
    if (!req.headers['content-length'] || !(declared <= cap)) return next({ type: 'entity.too.large' });
    return files ? next() : fieldsOnly(req, res, next);
  };
  return [
    guard(express.json({ limit: limitBytes }), ErrorCode.VALIDATION, 'error.validation', limitBytes),
    guard(express.urlencoded({ extended: false, limit: limitBytes }), ErrorCode.VALIDATION, 'error.validation', limitBytes),
    guard(multipart, ErrorCode.UPLOAD_FAILED, 'error.upload_failed', (req) => (takesFiles(req) ? UPLOAD_LIMITS.fileSize : limitBytes)),
  ];
}
