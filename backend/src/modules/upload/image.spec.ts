import * as jpeg from 'jpeg-js';
import { PNG } from 'pngjs';
import { hugeJpegHeader, jpegWithExif, makePng, pngWithText } from '../../../test/support/images';
import { exifOrientation, ImageTooLargeError, NotAnImageError, orient, readHeader, sanitizeImage } from './image';

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
});
