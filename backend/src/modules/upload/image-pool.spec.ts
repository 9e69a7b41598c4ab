import { hugeJpegHeader, jpegWithExif } from '../../../test/support/images';
import { ImageTooLargeError, NotAnImageError, sanitizeImage } from './image';
import { ImagePool, ImageTimeoutError } from './image-pool';

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
});
