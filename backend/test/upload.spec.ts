import { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { Server, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BusinessError } from '../src/infra/http/business-error';
import { REDIS } from '../src/infra/redis/redis.module';
import { ImagePool, ImagePoolBusyError } from '../src/modules/upload/image-pool';
import { UploadService } from '../src/modules/upload/upload.service';
import { adminToken, registerByEmail } from './support/accounts';
import { hugeJpegHeader, jpegWithExif, makePng, pngWithText } from './support/images';
import { ADMIN, startTestApp, TestApp } from './support/test-app';

/** Reads the whole body of a binary answer (supertest's parser hook; the response is a Node stream). */
const binary = (res: unknown, cb: (err: Error | null, body: Buffer) => void) => {
  const stream = res as NodeJS.ReadableStream;
  const chunks: Buffer[] = [];
  stream.on('data', (c: Buffer) => chunks.push(c));
  stream.on('end', () => cb(null, Buffer.concat(chunks)));
};

describe('image uploads', () => {
  let t: TestApp;
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kestrel-uploads-'));
    t = await startTestApp({ uploadDir: dir });
  });
  afterAll(async () => {
    await t.close();
    await rm(dir, { recursive: true, force: true });
  });

  const upload = (token: string, bytes: Buffer, filename = 'id.jpg', contentType = 'image/jpeg') =>
    t.http().post('/api/upload/image').set('Authorization', token).attach('file', bytes, { filename, contentType });
  const fetchImage = (token: string | undefined, id: string) => {
    const req = t.http().get(`/api/upload/${id}`).buffer(true).parse(binary);
    return token ? req.set('Authorization', token) : req;
  };
  /** The envelope a refused read answers with. */
  const refusal = async (token: string | undefined, id: string) => {
    const req = t.http().get(`/api/upload/${id}`);
    return (await (token ? req.set('Authorization', token) : req)).body;
  };
  const storedFiles = async (): Promise<string[]> =>
    (await readdir(dir, { recursive: true, withFileTypes: true })).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
  const count = async (userId: number) => Number((await t.ds.query('SELECT count(*) FROM uploads WHERE user_id = $1', [userId]))[0].count);

  it('stores a JPEG without its EXIF (GPS, camera) or comments, upright, and serves it to its owner', async () => {
    const u = await registerByEmail(t);
    const src = jpegWithExif(40, 20, 6, 'GPS 51.5074N 0.1278W Pixel 9', ['taken at home']);
    const res = await upload(u.token, src);
    expect(res.body).toMatchObject({ type: 'ok', code: 1, message: 'Upload successful', data: { mime: 'image/jpeg', width: 20, height: 40 } });
    const { id, url } = res.body.data;
    expect(url).toBe(`/api/upload/${id}`);

    const [row] = await t.ds.query('SELECT * FROM uploads WHERE id = $1', [id]);
    expect(row).toMatchObject({ user_id: u.user.id, mime: 'image/jpeg', width: 20, height: 40 });
    const onDisk = await readFile(join(dir, row.storage_key));
    expect(onDisk.length).toBe(row.bytes);
    for (const marker of ['Exif', '51.5074N', 'taken at home']) expect(onDisk.includes(marker)).toBe(false);
    expect(onDisk.subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));

    const got = await fetchImage(u.token, id);
    expect(got.status).toBe(200);
    expect(got.headers['content-type']).toBe('image/jpeg');
    expect(got.headers['cache-control']).toBe('private');
    expect(Buffer.compare(got.body, onDisk)).toBe(0);
  });

  it('stores a PNG without its text chunks', async () => {
    const u = await registerByEmail(t);
    const res = await upload(u.token, pngWithText(12, 6, 'Location', '48.8566N 2.3522E'), 'id.png', 'image/png');
    expect(res.body).toMatchObject({ code: 1, data: { mime: 'image/png', width: 12, height: 6 } });
    const got = await fetchImage(u.token, res.body.data.id);
    expect(got.headers['content-type']).toBe('image/png');
    expect(got.body.includes('tEXt')).toBe(false);
    expect(got.body.includes('48.8566N')).toBe(false);
  });

  it('refuses what is not a JPEG or PNG by its content, whatever its name or declared type, and stores nothing', async () => {
    const u = await registerByEmail(t);
    const before = (await storedFiles()).length;
    const cases: Array<[Buffer, string, string]> = [
      [Buffer.from('this is a text file, not a photo'), 'passport.jpg', 'image/jpeg'],
      [Buffer.concat([makePng(4, 4).subarray(0, 33), Buffer.alloc(500, 0x41)]), 'front.png', 'image/png'],
      [Buffer.concat([jpegWithExif(8, 8, 1, 'x').subarray(0, 120), Buffer.alloc(500, 0x41)]), 'front.jpg', 'image/jpeg'],
      [Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1'), 'x.jpg', 'image/jpeg'],
      [Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), 'x.png', 'image/png'],
    ];
    for (const [bytes, name, type] of cases) {
      const res = await upload(u.token, bytes, name, type);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ type: 'error', code: 2300, message: 'Only JPEG or PNG images can be uploaded', data: null });
    }
    expect(await count(u.user.id)).toBe(0);
    expect((await storedFiles()).length).toBe(before);
  });

  it('refuses absurd dimensions, files over 5 MB and a missing file, with their own messages', async () => {
    const u = await registerByEmail(t);
    const huge = await upload(u.token, hugeJpegHeader(9000, 9000));
    expect(huge.body).toMatchObject({ code: 2302, message: 'The image is too large: at most 8000 pixels a side and 40 megapixels' });
    const big = await upload(u.token, Buffer.concat([makePng(2, 2), Buffer.alloc(5 * 1024 * 1024)]), 'big.png', 'image/png');
    expect(big.body).toMatchObject({ type: 'error', code: 1004, message: 'The request is too large: at most 5 MB' });
    const none = await t.http().post('/api/upload/image').set('Authorization', u.token).field('x', '1');
    expect(none.body).toMatchObject({ code: 1000, message: 'Choose an image to upload' });
    const wrongField = await t.http().post('/api/upload/image').set('Authorization', u.token).attach('photo', makePng(), 'a.png');
    expect(wrongField.body).toMatchObject({ code: 1000, message: 'Choose an image to upload' });
    const zh = await upload(u.token, Buffer.from('plain text')).set('lang', 'zh');
    expect(zh.body.message).toBe('仅支持上传 JPEG 或 PNG 图片');
    expect(await count(u.user.id)).toBe(0);
  });

  it('needs a user token to upload', async () => {
    expect((await t.http().post('/api/upload/image').attach('file', makePng(), 'a.png')).body).toMatchObject({ type: '999', code: 401 });
    const admin = await adminToken(t, ADMIN.email, ADMIN.password);
    expect((await upload(admin, makePng(), 'a.png', 'image/png')).body.code).toBe(401);
  });

  it("one user cannot read or claim another's image; an operator can read any; anyone else gets 'not found'", async () => {
    const a = await registerByEmail(t);
    const b = await registerByEmail(t);
    const { id } = (await upload(a.token, makePng(), 'a.png', 'image/png')).body.data;

    const notFound = { type: 'error', code: 2301, message: 'The image was not found. Please upload it again', data: null };
    expect(await refusal(b.token, id)).toEqual(notFound);
    expect(await refusal(b.token, 'not-a-uuid')).toEqual(notFound);
    expect(await refusal(a.token, '00000000-0000-4000-8000-000000000000')).toEqual(notFound);
    expect(await refusal(undefined, id)).toMatchObject({ type: '999', code: 401 });

    const admin = await adminToken(t, ADMIN.email, ADMIN.password);
    const asAdmin = await fetchImage(admin, id);
    expect(asAdmin.headers['content-type']).toBe('image/png');
    expect(asAdmin.body.subarray(1, 4).toString()).toBe('PNG');

    const uploads = t.app.get(UploadService);
    await expect(t.ds.transaction((m) => uploads.claim(m, a.user.id, id))).resolves.toBeUndefined();
    for (const [userId, uploadId] of [
      [b.user.id, id],
      [a.user.id, '00000000-0000-4000-8000-000000000000'],
      [a.user.id, 'nope'],
    ] as Array<[number, string]>) {
      const err = await t.ds.transaction((m) => uploads.claim(m, userId, uploadId)).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BusinessError);
      expect(err).toMatchObject({ code: 2301, messageKey: 'upload.not_found' });
    }
  });

  /**
   * Declares a 5 MB upload, sends its first kilobyte and waits (at most 5 s): only an answer that
   * needs none of the rest can arrive.
   */
  const answerToPartialUpload = async (token: string): Promise<{ code: number; connection?: string }> => {
    const server = t.app.getHttpServer() as Server;
    if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return new Promise((resolve, reject) => {
      const req = httpRequest({
        host: '127.0.0.1',
        port,
        path: '/api/upload/image',
        method: 'POST',
        headers: { 'Content-Type': 'multipart/form-data; boundary=b', 'Content-Length': String(5 * 1024 * 1024), Authorization: token },
      });
      const timer = setTimeout(() => {
        req.destroy();
        reject(new Error('no answer before the body was sent'));
      }, 5000);
      req.on('response', (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => {
          clearTimeout(timer);
          req.destroy();
          resolve({ ...(JSON.parse(body) as { code: number }), connection: res.headers.connection });
        });
      });
      req.on('error', reject);
      req.write(`--b\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n${'x'.repeat(1024)}`);
    });
  };

  it('counts an upload against the rate limit before its file is read: over it, 1002 at once, nothing read or stored (regression: the file was read first)', async () => {
    const u = await registerByEmail(t);
    const before = (await storedFiles()).length;
    // The window already holds the limit (as after RATE_LIMIT_UPLOAD_USER uploads).
    await t.app.get<Redis>(REDIS).set(`rl:upload:user:${u.user.id}`, String(t.config.uploadRateLimit.limit), 'EX', 3600);
    expect(await answerToPartialUpload(u.token)).toEqual({ code: 1002, connection: 'close', type: 'error', message: expect.any(String), data: null });
    expect((await upload(u.token, makePng(), 'a.png', 'image/png')).body.code).toBe(1002);
    expect(await count(u.user.id)).toBe(0);
    expect((await storedFiles()).length).toBe(before);
    // A caller without a token is answered 401 and counts nothing.
    await t.app.get<Redis>(REDIS).del(`rl:upload:user:${u.user.id}`);
    expect((await answerToPartialUpload('')).code).toBe(401);
    expect((await upload(u.token, makePng(), 'a.png', 'image/png')).body.code).toBe(1);
    expect(await t.app.get<Redis>(REDIS).get(`rl:upload:user:${u.user.id}`)).toBe('1');
  });

  it('takes one file a request: a second is refused (1004) and nothing is stored (regression: four were read, one used)', async () => {
    const u = await registerByEmail(t);
    const two = await t
      .http()
      .post('/api/upload/image')
      .set('Authorization', u.token)
      .attach('file', makePng(), { filename: 'a.png', contentType: 'image/png' })
      .attach('file', makePng(), { filename: 'b.png', contentType: 'image/png' });
    expect(two.body.code).toBe(1004);
    expect(await count(u.user.id)).toBe(0);
  });

  it('keeps a user within UPLOAD_USER_BYTES_PER_DAY of uploads over the last 24 hours: past it 1002 and nothing stored (regression: no cap)', async () => {
    const u = await registerByEmail(t);
    const cap = t.config.uploadUserBytesPerDay;
    const earlier = randomUUID();
    // An upload of an hour ago that leaves 10 bytes of the day's budget.
    await t.ds.query(
      `INSERT INTO uploads (id, user_id, mime, bytes, width, height, storage_key, created_at) VALUES ($1, $2, 'image/png', $3, 1, 1, 'x/y.png', now() - interval '1 hour')`,
      [earlier, u.user.id, cap - 10],
    );
    const before = (await storedFiles()).length;
    expect((await upload(u.token, makePng(), 'a.png', 'image/png')).body.code).toBe(1002);
    expect(await count(u.user.id)).toBe(1);
    expect((await storedFiles()).length).toBe(before);

    // Full to the byte: refused before the file is read.
    await t.ds.query('UPDATE uploads SET bytes = $2 WHERE id = $1', [earlier, cap]);
    expect((await answerToPartialUpload(u.token)).code).toBe(1002);

    // Once that upload is over 24 hours old it no longer counts.
    await t.ds.query(`UPDATE uploads SET created_at = now() - interval '25 hours' WHERE id = $1`, [earlier]);
    expect((await upload(u.token, makePng(), 'a.png', 'image/png')).body.code).toBe(1);
    expect(await count(u.user.id)).toBe(2);
  });

  it('refuses an image (1002) when every decoder is busy and enough images already wait for one, storing nothing', async () => {
    const u = await registerByEmail(t);
    const busy = jest.spyOn(ImagePool.prototype, 'sanitize').mockRejectedValueOnce(new ImagePoolBusyError('every image decoder is busy'));
    try {
      expect((await upload(u.token, makePng(), 'a.png', 'image/png')).body.code).toBe(1002);
    } finally {
      busy.mockRestore();
    }
    expect(await count(u.user.id)).toBe(0);
    expect((await upload(u.token, makePng(), 'a.png', 'image/png')).body.code).toBe(1);
  });
});
