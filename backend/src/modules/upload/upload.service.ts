import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { AuthContext } from '../../infra/auth/guards';
import { APP_CONFIG, AppConfig } from '../../infra/config/config';
import { BusinessError } from '../../infra/http/business-error';
import { UPLOAD_LIMITS } from '../../infra/http/body-parsers';
import { ErrorCode } from '../../infra/http/error-codes';
import { RateLimitService } from '../../infra/http/rate-limit.service';
import { FileStorage } from './file-storage';
import { checkDimensions, CleanImage, ImageTooLargeError, MAX_IMAGE_MEGAPIXELS, MAX_IMAGE_SIDE, NotAnImageError, readHeader } from './image';
import { ImagePool, ImageTimeoutError } from './image-pool';
import { Upload } from './upload.entity';

/** One multipart file as multer's memory storage hands it over. */
export interface IncomingFile {
  fieldname: string;
  size: number;
  buffer: Buffer;
}

export interface UploadedImage {
  id: string;
  url: string;
  mime: string;
  width: number;
  height: number;
  bytes: number;
}

/** An upload's id: a UUID (what the images' tables store). */
export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const EXTENSION: Record<string, string> = { 'image/jpeg': 'jpg', 'image/png': 'png' };

/** The API path an image is served at (needs the owner's or an operator's token). */
export function uploadUrl(id: string): string {
  return `/api/upload/${id}`;
}

/**
 * Image uploads (ID photos, deposit proofs): checked by content, cleaned of metadata, stored
 * through FileStorage, owned by the uploader. Other features refer to an upload by id and call
 * `claim()` inside their transaction to make sure it is the caller's.
 */
@Injectable()
export class UploadService {
  private readonly logger = new Logger(UploadService.name);
  private readonly images = new ImagePool();

  constructor(
    private readonly dataSource: DataSource,
    private readonly storage: FileStorage,
    private readonly rateLimit: RateLimitService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async uploadImage(userId: number, file: IncomingFile | undefined): Promise<UploadedImage> {
    if (!file || file.size === 0) throw new BusinessError(ErrorCode.VALIDATION, 'upload.file_required');
    // The body parser already stops larger bodies; this keeps the rule when a file arrives another way.
    if (file.size > UPLOAD_LIMITS.fileSize) throw new BusinessError(ErrorCode.UPLOAD_FAILED);
    await this.rateLimit.hit(`upload:user:${userId}`, this.config.uploadRateLimit);

    let image: CleanImage;
    try {
      // The header check is cheap and runs here, so most bad files never reach a worker.
      checkDimensions(readHeader(file.buffer));
      image = await this.images.sanitize(file.buffer);
    } catch (err) {
      if (err instanceof ImageTooLargeError)
        throw new BusinessError(ErrorCode.UPLOAD_TOO_LARGE, undefined, { side: MAX_IMAGE_SIDE, megapixels: MAX_IMAGE_MEGAPIXELS });
      if (err instanceof NotAnImageError) throw new BusinessError(ErrorCode.UPLOAD_NOT_IMAGE);
      if (err instanceof ImageTimeoutError) throw new BusinessError(ErrorCode.UPLOAD_FAILED);
      throw err;
    }

    const id = randomUUID();
    const storageKey = `${userId}/${id}.${EXTENSION[image.mime]}`;
    await this.storage.put(storageKey, image.bytes);
    try {
      await this.dataSource
        .getRepository(Upload)
        .insert({ id, userId, mime: image.mime, bytes: image.bytes.length, width: image.width, height: image.height, storageKey });
    } catch (err) {
      await this.storage.delete(storageKey).catch((e: unknown) => this.logger.warn({ err: e, storageKey }, 'could not remove an orphaned upload'));
      throw err;
    }
    return { id, url: uploadUrl(id), mime: image.mime, width: image.width, height: image.height, bytes: image.bytes.length };
  }

  /** The stored image for its owner or any operator; 2301 for anyone else, as if it did not exist. */
  async read(auth: AuthContext, id: string): Promise<{ mime: string; bytes: Buffer }> {
    const upload = UUID_RE.test(id) ? await this.dataSource.getRepository(Upload).findOne({ where: { id } }) : null;
    const allowed = upload && (auth.subjectType === 'admin' || upload.userId === auth.subjectId);
    if (!upload || !allowed) throw new BusinessError(ErrorCode.UPLOAD_NOT_FOUND);
    const bytes = await this.storage.get(upload.storageKey);
    if (!bytes) {
      this.logger.error({ uploadId: id, storageKey: upload.storageKey }, 'upload row without stored bytes');
      throw new BusinessError(ErrorCode.UPLOAD_NOT_FOUND);
    }
    return { mime: upload.mime, bytes };
  }

  /**
   * Checks, inside the caller's transaction, that the upload exists and belongs to the user
   * (locking the row, so it cannot disappear before the caller commits). Throws 2301 otherwise.
   */
  async claim(manager: EntityManager, userId: number, uploadId: string): Promise<void> {
    const rows: unknown[] = UUID_RE.test(uploadId)
      ? await manager.query('SELECT 1 FROM uploads WHERE id = $1 AND user_id = $2 FOR SHARE', [uploadId, userId])
      : [];
    if (rows.length === 0) throw new BusinessError(ErrorCode.UPLOAD_NOT_FOUND);
  }
}
