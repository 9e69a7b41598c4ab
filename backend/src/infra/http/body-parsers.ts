import express, { NextFunction, Request, RequestHandler, Response } from 'express';
import multer from 'multer';
import { errorEnvelope } from './error-envelope';
import { ErrorCode } from './error-codes';
import { requestLang } from './request-context';

/** Upload limits: proof images and ID photos, compressed by the app before sending. */
export const UPLOAD_LIMITS = { fileSize: 5 * 1024 * 1024, files: 4, fields: 50 };

/**
 * Body parsers for form-encoded, JSON and multipart bodies. A body the parser cannot read is a
 * client error: answered here with the envelope (these run before Nest's filters can).
 */
export function bodyParsers(): RequestHandler[] {
  const guard =
    (parser: RequestHandler, code: number, key: 'error.validation' | 'error.upload_failed'): RequestHandler =>
    (req: Request, res: Response, next: NextFunction) =>
      parser(req, res, (err?: unknown) => {
        if (err) {
          res.status(200).json(errorEnvelope(requestLang(req), code, key));
          return;
        }
        next();
      });
  const upload = multer({ storage: multer.memoryStorage(), limits: UPLOAD_LIMITS }).any();
  return [
    guard(express.json({ limit: '1mb' }), ErrorCode.VALIDATION, 'error.validation'),
    guard(express.urlencoded({ extended: false, limit: '1mb' }), ErrorCode.VALIDATION, 'error.validation'),
    guard((req, res, next) => (req.is('multipart/form-data') ? upload(req, res, next) : next()), ErrorCode.UPLOAD_FAILED, 'error.upload_failed'),
  ];
}
