import { hugeJpegHeader, jpegWithExif } from '../../../test/support/images';
import { ImageTooLargeError, NotAnImageError, sanitizeImage } from './image';
import { ImagePool, ImagePoolBusyError, ImageTimeoutError } from './image-pool';

describe('image worker pool', () => {
  it('gives the same result as decoding in-process, off the event loop', async () => {
    const src = jpegWithExif(30, 10, 8, 'GPS 1.2N');
    const pool = new ImagePool(1);
    const [a, b] = await Promise.all([pool.sanitize(src), pool.sanitize(src)]);
    const local = sanitizeImage(src);
    expect(a).toMatchObject({ mime: 'image/jpeg', width: 10, height: 30 });
    expect(Buffer.compare(a.bytes, local.bytes)).toBe(0);
    expect(Buffer.compare(b.bytes, local.bytes)).toBe(0);
  });

  it('passes refusals back as their own errors, and stops a decode that runs too long', async () => {
    const pool = new ImagePool();
    await expect(pool.sanitize(Buffer.from('text'))).rejects.toBeInstanceOf(NotAnImageError);
    await expect(pool.sanitize(hugeJpegHeader(9000, 10))).rejects.toBeInstanceOf(ImageTooLargeError);
    await expect(new ImagePool(1, 1).sanitize(jpegWithExif(400, 400, 1, 'x'))).rejects.toBeInstanceOf(ImageTimeoutError);
  });

  it('lets at most maxWaiting images wait for a decoder and refuses the next one at once', async () => {
    const src = jpegWithExif(30, 10, 1, 'x');
    const pool = new ImagePool(1, 30_000, 2);
    const accepted = [pool.sanitize(src), pool.sanitize(src), pool.sanitize(src)]; // one decoding, two waiting
    await expect(pool.sanitize(src)).rejects.toBeInstanceOf(ImagePoolBusyError);
    await expect(Promise.all(accepted)).resolves.toHaveLength(3);
    // Once the queue drains, images are taken again; the default is four waiting a decoder.
    await expect(pool.sanitize(src)).resolves.toMatchObject({ width: 30, height: 10 });
    const byDefault = new ImagePool(1);
    const queued = Array.from({ length: 5 }, () => byDefault.sanitize(src));
    await expect(byDefault.sanitize(src)).rejects.toBeInstanceOf(ImagePoolBusyError);
    await Promise.all(queued);
  });
});
