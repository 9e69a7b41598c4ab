import * as jpeg from 'jpeg-js';
import { once } from 'node:events';
import { createDeflate, deflateSync } from 'node:zlib';
import { PNG } from 'pngjs';
import { hugeJpegHeader, jpegWithExif, makePng, pixels, pngChunk as chunk, pngWithText } from '../../../test/support/images';
import { ADAM7, exifOrientation, ImageTooLargeError, NotAnImageError, orient, pngDataBytes, readHeader, sanitizeImage } from './image';

function ihdr(width: number, height: number, interlace: 0 | 1, colorType = 6, depth = 8): Buffer {
  const data = Buffer.alloc(13);
  data.writeUInt32BE(width, 0);
  data.writeUInt32BE(height, 4);
  data[8] = depth;
  data[9] = colorType;
  data[12] = interlace;
  return chunk('IHDR', data);
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** An RGBA PNG written by hand around the given zlib stream (pngjs writes no interlaced PNG). */
function rawPng(width: number, height: number, interlace: 0 | 1, zdata: Buffer, extra: Buffer[] = []): Buffer {
  return Buffer.concat([PNG_SIGNATURE, ihdr(width, height, interlace), ...extra, chunk('IDAT', zdata), chunk('IEND', Buffer.alloc(0))]);
}

/** Adam7's scanlines of RGBA pixels (filter 0): the seven passes' rows one after another. */
function adam7Rows(width: number, height: number, rgba: Buffer): Buffer {
  const out: number[] = [];
  for (const [x0, y0, dx, dy] of ADAM7)
    for (let y = y0; y < height; y += dy) {
      if (x0 >= width) break;
      out.push(0);
      for (let x = x0; x < width; x += dx) out.push(...rgba.subarray((y * width + x) * 4, (y * width + x) * 4 + 4));
    }
  return Buffer.from(out);
}

/** A zlib stream of `bytes` zero bytes, made in 1 MB steps (so the test never holds what it inflates to). */
async function deflatedZeros(bytes: number): Promise<Buffer> {
  const z = createDeflate({ level: 9 });
  const parts: Buffer[] = [];
  z.on('data', (c: Buffer) => parts.push(c));
  const step = Buffer.alloc(1024 * 1024);
  for (let n = 0; n < bytes; n += step.length) if (!z.write(step)) await once(z, 'drain');
  z.end();
  await once(z, 'end');
  return Buffer.concat(parts);
}

describe('image intake', () => {
  it('reads the format and size from the header bytes, whatever the file is called', () => {
    expect(readHeader(makePng(7, 3))).toEqual({ mime: 'image/png', width: 7, height: 3 });
    expect(readHeader(jpegWithExif(9, 5, 1, 'x'))).toEqual({ mime: 'image/jpeg', width: 9, height: 5 });
    expect(() => readHeader(Buffer.from('hello, I am a text file'))).toThrow(NotAnImageError);
    expect(() => readHeader(Buffer.from('GIF89a......................'))).toThrow(NotAnImageError);
  });

  it('refuses absurd dimensions from the header alone', () => {
    expect(() => sanitizeImage(hugeJpegHeader(9000, 100))).toThrow(ImageTooLargeError);
    expect(() => sanitizeImage(hugeJpegHeader(7000, 7000))).toThrow(ImageTooLargeError); // 49 MP
    const png = makePng(2, 2);
    png.writeUInt32BE(100_000, 16); // IHDR width (CRC now wrong too, but the size check comes first)
    expect(() => sanitizeImage(png)).toThrow(ImageTooLargeError);
    // Within 40 megapixels, but 16 bits a channel: twice the bytes to decode (regression: over a gigabyte held).
    const deep = Buffer.concat([PNG_SIGNATURE, ihdr(8000, 5000, 0, 6, 16), chunk('IDAT', deflateSync(Buffer.alloc(16))), chunk('IEND', Buffer.alloc(0))]);
    expect(() => sanitizeImage(deep)).toThrow(ImageTooLargeError);
    const rgb16 = Buffer.concat([PNG_SIGNATURE, ihdr(6000, 6000, 0, 2, 16), chunk('IDAT', deflateSync(Buffer.alloc(16))), chunk('IEND', Buffer.alloc(0))]);
    expect(() => sanitizeImage(rgb16)).toThrow(ImageTooLargeError); // 36 MP × 6 bytes
  });

  it('refuses a real header followed by garbage', () => {
    expect(() => sanitizeImage(Buffer.concat([makePng(4, 4).subarray(0, 33), Buffer.alloc(200, 7)]))).toThrow(NotAnImageError);
    expect(() => sanitizeImage(Buffer.concat([jpegWithExif(8, 8, 1, 'x').subarray(0, 200), Buffer.alloc(50, 1)]))).toThrow(NotAnImageError);
  });

  it('drops EXIF and comments from a JPEG and applies its orientation', () => {
    const src = jpegWithExif(4, 2, 6, 'GPS 51.5074N 0.1278W', ['secret comment']);
    expect(src.includes('Exif') && src.includes('51.5074N')).toBe(true);
    expect(exifOrientation(src)).toBe(6);
    const clean = sanitizeImage(src);
    expect(clean).toMatchObject({ mime: 'image/jpeg', width: 2, height: 4 });
    expect(clean.bytes.includes('Exif')).toBe(false);
    expect(clean.bytes.includes('51.5074N')).toBe(false);
    expect(clean.bytes.includes('secret comment')).toBe(false);
    expect(jpeg.decode(clean.bytes)).toMatchObject({ width: 2, height: 4 });
  });

  it('drops text chunks from a PNG and keeps the pixels', () => {
    const src = pngWithText(5, 3, 'Location', '51.5074N');
    expect(PNG.sync.read(src).width).toBe(5);
    expect(src.includes('tEXt')).toBe(true);
    const clean = sanitizeImage(src);
    expect(clean.bytes.includes('tEXt')).toBe(false);
    expect(clean.bytes.includes('51.5074N')).toBe(false);
    expect(PNG.sync.read(clean.bytes).data.equals(PNG.sync.read(src).data)).toBe(true);
  });

  it('orientations move pixels where EXIF says', () => {
    // 2×1: pixel A then B.
    const img = { width: 2, height: 1, data: Buffer.from([1, 1, 1, 1, 2, 2, 2, 2]) };
    const px = (o: { data: Buffer }) => [...o.data].filter((_, i) => i % 4 === 0);
    expect(orient(img, 1)).toBe(img);
    expect(px(orient(img, 2))).toEqual([2, 1]);
    expect(orient(img, 6)).toMatchObject({ width: 1, height: 2 });
    expect(px(orient(img, 6))).toEqual([1, 2]); // clockwise: A on top
    expect(px(orient(img, 8))).toEqual([2, 1]); // anticlockwise: B on top
  });

  it("knows how many bytes a PNG's pixel data inflates to, per row and per Adam7 pass", () => {
    expect(pngDataBytes(3, 3, 32, false)).toBe(3 * (1 + 12));
    // 3×3 interlaced: passes 1, 4, 5, 6, 7 hold 1, 1, 2 (one row), 2 (two rows), 3 pixels.
    expect(pngDataBytes(3, 3, 32, true)).toBe(5 + 5 + 9 + 2 * 5 + 13);
    expect(pngDataBytes(1, 1, 32, true)).toBe(5);
    expect(pngDataBytes(9, 1, 1, false)).toBe(1 + 2);
    expect(adam7Rows(3, 3, pixels(3, 3)).length).toBe(pngDataBytes(3, 3, 32, true));
  });

  it('decodes an interlaced PNG whose data is the size its header says, and refuses one byte more', () => {
    const rows = adam7Rows(5, 3, pixels(5, 3));
    const clean = sanitizeImage(rawPng(5, 3, 1, deflateSync(rows)));
    expect(clean).toMatchObject({ mime: 'image/png', width: 5, height: 3 });
    expect(PNG.sync.read(clean.bytes).data.equals(pixels(5, 3))).toBe(true);
    expect(() => sanitizeImage(rawPng(5, 3, 1, deflateSync(Buffer.concat([rows, Buffer.alloc(1)]))))).toThrow(NotAnImageError);
  });

  it('refuses a PNG whose data would inflate past its header (a zlib bomb) quickly, without holding what it inflates to', async () => {
    const bomb = await deflatedZeros(256 * 1024 * 1024); // ~250 KB that inflate to 256 MB
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const before = process.resourceUsage().maxRSS; // KB, the process's high-water mark
    const started = Date.now();
    expect(() => sanitizeImage(rawPng(1, 1, 1, bomb))).toThrow(NotAnImageError); // interlaced: pngjs has no cap of its own
    expect(() => sanitizeImage(rawPng(1, 1, 0, bomb))).toThrow(NotAnImageError);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(process.resourceUsage().maxRSS - before).toBeLessThan(32 * 1024);
  });

  it('refuses a PNG with a second IHDR (pngjs would decode at the size it claims) or an oversized palette', () => {
    const rows = Buffer.alloc(pngDataBytes(1, 1, 32, false));
    expect(sanitizeImage(rawPng(1, 1, 0, deflateSync(rows))).width).toBe(1);
    expect(() => sanitizeImage(rawPng(1, 1, 0, deflateSync(rows), [ihdr(8000, 5000, 0)]))).toThrow(NotAnImageError);
    expect(() => sanitizeImage(rawPng(1, 1, 0, deflateSync(rows), [chunk('PLTE', Buffer.alloc(257 * 3))]))).toThrow(NotAnImageError);
  });
});
