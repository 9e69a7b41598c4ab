import { Inject, Injectable, Logger } from '@nestjs/common';
import { createHash, randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { AuthContext } from '../../infra/auth/guards';
import { APP_CONFIG, AppConfig } from '../../infra/config/config';
import { BusinessError } from '../../infra/http/business-error';
import { UPLOAD_LIMITS } from '../../infra/http/body-parsers';
import { ErrorCode } from '../../infra/http/error-codes';
import { RateLimitService } from '../../infra/http/rate-limit.service';
import { EventStoreService } from '../../infra/event-store/event-store.service';
import { FileStorage } from './file-storage';
import { checkDimensions, CleanImage, ImageTooLargeError, MAX_IMAGE_MEGAPIXELS, MAX_IMAGE_SIDE, NotAnImageError, readHeader } from './image';
import { ImagePool, ImagePoolBusyError, ImageTimeoutError } from './image-pool';
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

/** How long to come back after the image decoders were all busy with a queue behind them (1002). */
const BUSY_RETRY_SECONDS = 5;
/** A user's upload budget (UPLOAD_USER_BYTES_PER_DAY) covers the uploads of this window. */
const BUDGET_WINDOW = "interval '24 hours'";

/** The file's bytes; 1000 without one. */
function received(file: IncomingFile | undefined): Buffer {
  if (!file || file.size === 0) throw new BusinessError(ErrorCode.VALIDATION, 'upload.file_required');
  // The body parser already stops larger bodies; this keeps the rule when a file arrives another way.
  if (file.size > UPLOAD_LIMITS.fileSize) throw new BusinessError(ErrorCode.UPLOAD_FAILED);
  return file.buffer;
}

/**
 * Image uploads (ID photos, deposit proofs): checked by content, cleaned of metadata, stored
 * through FileStorage, owned by the uploader. Other features refer to an upload by id and call
 * `claim()` inside their transaction to make sure it is the caller's.
 *
 * Users upload through `upload/image`: `admit()` runs in UploadAdmissionGuard before the file is
 * read, then `uploadUserImage()`. Operators' images (owned by the house) come through
 * `uploadImage()`, counted against the same rate limit for the house, outside the users' budget.
 */
/** The event an operator's read of a user's image records (EventStoreService.recordOperatorRead). */
export const UPLOAD_READ_EVENT = 'UploadRead';

@Injectable()
export class UploadService {
  private readonly logger = new Logger(UploadService.name);
  private readonly images = new ImagePool();

  constructor(
    private readonly dataSource: DataSource,
    private readonly events: EventStoreService,
    private readonly storage: FileStorage,
    private readonly rateLimit: RateLimitService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Before a user's file is read: counts the upload against RATE_LIMIT_UPLOAD_USER and refuses a
   * user whose uploads of the last 24 hours already fill UPLOAD_USER_BYTES_PER_DAY (both 1002).
   */
  async admit(userId: number): Promise<void> {
    await this.rateLimit.hit(`upload:user:${userId}`, this.config.uploadRateLimit);
    await this.checkBudget(this.dataSource.manager, userId, 0);
  }

  /** A user's image, admitted by `admit()`; stored only within the user's daily budget. */
  async uploadUserImage(userId: number, file: IncomingFile | undefined): Promise<UploadedImage> {
    return this.store(userId, await this.clean(received(file)), true);
  }

  /** An image that did not come through `upload/image` (operators' images, owned by the house). */
  async uploadImage(ownerId: number, file: IncomingFile | undefined): Promise<UploadedImage> {
    const bytes = received(file);
    await this.rateLimit.hit(`upload:user:${ownerId}`, this.config.uploadRateLimit);
    return this.store(ownerId, await this.clean(bytes), false);
  }

  /** The image checked by its bytes and decoded again without metadata. */
  private async clean(bytes: Buffer): Promise<CleanImage> {
    try {
      // The header check is cheap and runs here, so most bad files never reach a worker.
      checkDimensions(readHeader(bytes));
      return await this.images.sanitize(bytes);
    } catch (err) {
      if (err instanceof ImageTooLargeError)
        throw new BusinessError(ErrorCode.UPLOAD_TOO_LARGE, undefined, { side: MAX_IMAGE_SIDE, megapixels: MAX_IMAGE_MEGAPIXELS });
      if (err instanceof NotAnImageError) throw new BusinessError(ErrorCode.UPLOAD_NOT_IMAGE);
      if (err instanceof ImageTimeoutError) throw new BusinessError(ErrorCode.UPLOAD_FAILED);
      if (err instanceof ImagePoolBusyError) throw new BusinessError(ErrorCode.RATE_LIMITED, 'error.rate_limited', { seconds: BUSY_RETRY_SECONDS });
      throw err;
    }
  }

  /**
   * Writes the bytes and the row. Within a user's budget, uploads of one user are stored one at a
   * time (a transaction lock), so parallel ones cannot each fit the budget on their own.
   */
  private async store(ownerId: number, image: CleanImage, withinBudget: boolean): Promise<UploadedImage> {
    const id = randomUUID();
    const storageKey = `${ownerId}/${id}.${EXTENSION[image.mime]}`;
    let written = false;
    try {
      await this.dataSource.transaction(async (m) => {
        if (withinBudget) {
          await m.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`upload:user:${ownerId}`]);
          await this.checkBudget(m, ownerId, image.bytes.length);
        }
        await this.storage.put(storageKey, image.bytes);
        written = true;
        await m.getRepository(Upload).insert({
          id,
          userId: ownerId,
          mime: image.mime,
          bytes: image.bytes.length,
          width: image.width,
          height: image.height,
          sha256: createHash('sha256').update(image.bytes).digest(),
          storageKey,
        });
      });
    } catch (err) {
      if (written) await this.storage.delete(storageKey).catch((e: unknown) => this.logger.warn({ err: e, storageKey }, 'could not remove an orphaned upload'));
      throw err;
    }
    return { id, url: uploadUrl(id), mime: image.mime, width: image.width, height: image.height, bytes: image.bytes.length };
  }

  /**
   * Refuses (1002) when the user's uploads of the last 24 hours and `adding` more bytes (at least
   * one: nothing more once the budget is full) would pass UPLOAD_USER_BYTES_PER_DAY, naming the
   * seconds until enough of them have left the window.
   */
  private async checkBudget(m: EntityManager, userId: number, adding: number): Promise<void> {
    const cap = this.config.uploadUserBytesPerDay;
    const need = Math.max(adding, 1);
    const [{ used }] = (await m.query(
      `SELECT coalesce(sum(bytes), 0)::bigint AS used FROM uploads WHERE user_id = $1 AND created_at > now() - ${BUDGET_WINDOW}`,
      [userId],
    )) as Array<{ used: string }>;
    const over = Number(used) + need - cap;
    if (over <= 0) return;
    // The oldest uploads leave the window first: wait until those that free `over` bytes have left.
    const [row] = (await m.query(
      `SELECT greatest(1, ceil(extract(epoch FROM created_at + ${BUDGET_WINDOW} - now())))::int AS seconds
       FROM (SELECT created_at, sum(bytes) OVER (ORDER BY created_at, id) AS freed FROM uploads WHERE user_id = $1 AND created_at > now() - ${BUDGET_WINDOW}) x
       WHERE freed >= $2 ORDER BY created_at LIMIT 1`,
      [userId, over],
    )) as Array<{ seconds: number }>;
    throw new BusinessError(ErrorCode.RATE_LIMITED, 'error.rate_limited', { seconds: row?.seconds ?? 24 * 3600 });
  }

  /**
   * The stored image for its owner or any operator; 2301 for anyone else, as if it did not exist. An
   * operator's read (identity documents, payment proofs) is recorded first (`UploadRead`, stream
   * `admin:<id>`): no record, no image.
   */
  async read(auth: AuthContext, id: string): Promise<{ mime: string; bytes: Buffer }> {
    const upload = UUID_RE.test(id) ? await this.dataSource.getRepository(Upload).findOne({ where: { id } }) : null;
    const operator = auth.subjectType === 'admin';
    const allowed = upload && (operator || upload.userId === auth.subjectId);
    if (!upload || !allowed) throw new BusinessError(ErrorCode.UPLOAD_NOT_FOUND);
    const bytes = await this.storage.get(upload.storageKey);
    if (!bytes) {
      this.logger.error({ uploadId: id, storageKey: upload.storageKey }, 'upload row without stored bytes');
      throw new BusinessError(ErrorCode.UPLOAD_NOT_FOUND);
    }
    if (operator)
      await this.dataSource.transaction((m) =>
        this.events.recordOperatorRead(m, auth.subjectId, UPLOAD_READ_EVENT, { uploadId: upload.id, userId: upload.userId }),
      );
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

  /**
   * A payment proof (a deposit report, a loan repayment by transfer), inside the caller's
   * transaction: the user's own upload (2301) that is no other report's proof yet (2303), by id or
   * by content (the same picture uploaded again as a new file), so one picture of a transfer is not
   * reported twice (a rejected report keeps its image too: a new report takes a new picture). The
   * operator's check of the transfer itself stays the defence against an edited picture.
   */
  async claimProof(manager: EntityManager, userId: number, uploadId: string): Promise<void> {
    await this.lockProof(manager, userId, uploadId);
    await this.refuseUsedProof(manager, uploadId);
  }

  /**
   * claimProof's first half: the user's own upload (2301), its row locked for update, so two
   * reports naming the same image take turns and the second sees the first's row once it commits
   * (a caller that answers a retry with its first report looks for it between the two halves).
   */
  async lockProof(manager: EntityManager, userId: number, uploadId: string): Promise<void> {
    const rows: Array<{ sha256: string | null }> = UUID_RE.test(uploadId)
      ? await manager.query(`SELECT encode(sha256, 'hex') AS sha256 FROM uploads WHERE id = $1 AND user_id = $2 FOR UPDATE`, [uploadId, userId])
      : [];
    if (rows.length === 0) throw new BusinessError(ErrorCode.UPLOAD_NOT_FOUND);
    // Two uploads of one picture reported at once take turns too (by content, across users).
    if (rows[0].sha256) await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`proof:${rows[0].sha256}`]);
  }

  /** claimProof's second half: 2303 when the image, or an upload of the same picture, is some deposit report's or transfer repayment's proof already. */
  async refuseUsedProof(manager: EntityManager, uploadId: string): Promise<void> {
    const used: unknown[] = await manager.query(
      `WITH same AS (SELECT $1::uuid AS id UNION SELECT id FROM uploads WHERE sha256 = (SELECT sha256 FROM uploads WHERE id = $1::uuid))
       SELECT 1 FROM deposits WHERE proof_upload_id IN (SELECT id FROM same)
       UNION ALL SELECT 1 FROM loan_repayments WHERE image IN (SELECT lower(id::text) FROM same) LIMIT 1`,
      [uploadId],
    );
    if (used.length > 0) throw new BusinessError(ErrorCode.UPLOAD_PROOF_USED);
  }
}
