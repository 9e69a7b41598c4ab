import * as jpeg from 'jpeg-js';
import { PNG } from 'pngjs';

/**
 * Image intake for uploads: recognise the format by its bytes, read the dimensions from the
 * header (so an absurd size is refused before any pixel is decoded), then decode and re-encode,
 * which drops every metadata segment (EXIF, GPS, XMP, comments, text chunks). Pure functions:
 * no I/O, easy to test.
 */

export type ImageMime = 'image/jpeg' | 'image/png';

/** At most this many pixels on either side, and this many pixels in all (decoding holds 4 bytes a pixel). */
export const MAX_IMAGE_SIDE = 8000;
export const MAX_IMAGE_MEGAPIXELS = 40;
const JPEG_QUALITY = 90;

export class NotAnImageError extends Error {}
export class ImageTooLargeError extends Error {}

export interface ImageHeader {
  mime: ImageMime;
  width: number;
  height: number;
}

export interface CleanImage extends ImageHeader {
  bytes: Buffer;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** The format and dimensions from the first bytes; NotAnImageError unless a JPEG or PNG header is there. */
export function readHeader(buf: Buffer): ImageHeader {
  if (buf.length >= 24 && buf.subarray(0, 8).equals(PNG_SIGNATURE)) {
    // The first chunk must be IHDR: width and height are its first two fields.
    if (buf.readUInt32BE(8) !== 13 || buf.toString('latin1', 12, 16) !== 'IHDR') throw new NotAnImageError('PNG without IHDR');
    return { mime: 'image/png', width: buf.readUInt32BE(16), height: buf.readUInt32BE(20) };
  }
  if (buf.length >= 4 && buf[0] === 0xff && buf[1] === 0xd8 && buf[2] === 0xff) return { mime: 'image/jpeg', ...jpegSize(buf) };
  throw new NotAnImageError('not a JPEG or PNG');
}

/** Walks the JPEG segments up to the first start-of-frame marker. */
function jpegSize(buf: Buffer): { width: number; height: number } {
  let pos = 2;
  while (pos + 4 <= buf.length) {
    if (buf[pos] !== 0xff) throw new NotAnImageError('broken JPEG marker');
    const marker = buf[pos + 1];
    if (marker === 0xff) {
      pos += 1; // fill byte
      continue;
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd8)) {
      pos += 2; // markers without a length
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) break; // end of image or scan data before any frame header
    const length = buf.readUInt16BE(pos + 2);
    if (length < 2) throw new NotAnImageError('broken JPEG segment');
    // SOF0–SOF15, except DHT (C4), JPG (C8) and DAC (CC), carry the frame size.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      if (pos + 9 > buf.length) break;
      return { height: buf.readUInt16BE(pos + 5), width: buf.readUInt16BE(pos + 7) };
    }
    pos += 2 + length;
  }
  throw new NotAnImageError('JPEG without a frame header');
}

export function checkDimensions(h: ImageHeader): void {
  if (h.width < 1 || h.height < 1) throw new NotAnImageError('empty image');
  if (h.width > MAX_IMAGE_SIDE || h.height > MAX_IMAGE_SIDE || h.width * h.height > MAX_IMAGE_MEGAPIXELS * 1_000_000) {
    throw new ImageTooLargeError(`${h.width}x${h.height}`);
  }
}

/**
 * The image decoded and encoded again in the same format, without metadata. A JPEG's EXIF
 * orientation is applied to the pixels first, since the tag that carried it is dropped.
 */
export function sanitizeImage(buf: Buffer): CleanImage {
  const header = readHeader(buf);
  checkDimensions(header);
  return header.mime === 'image/png' ? cleanPng(buf) : cleanJpeg(buf);
}

function cleanPng(buf: Buffer): CleanImage {
  let decoded: PNG;
  try {
    decoded = PNG.sync.read(buf);
  } catch {
    throw new NotAnImageError('PNG does not decode');
  }
  const out = new PNG({ width: decoded.width, height: decoded.height });
  out.data = decoded.data;
  return { mime: 'image/png', width: decoded.width, height: decoded.height, bytes: PNG.sync.write(out, { colorType: 6 }) };
}

function cleanJpeg(buf: Buffer): CleanImage {
  let decoded: { width: number; height: number; data: Buffer };
  try {
    decoded = jpeg.decode(buf, { formatAsRGBA: true, tolerantDecoding: false, maxResolutionInMP: MAX_IMAGE_MEGAPIXELS, maxMemoryUsageInMB: 512 });
  } catch {
    throw new NotAnImageError('JPEG does not decode');
  }
  const upright = orient(decoded, exifOrientation(buf));
  return { mime: 'image/jpeg', width: upright.width, height: upright.height, bytes: jpeg.encode(upright, JPEG_QUALITY).data };
}

/** The EXIF orientation tag (1–8) of a JPEG, 1 when absent or unreadable. */
export function exifOrientation(buf: Buffer): number {
  let pos = 2;
  while (pos + 4 <= buf.length && buf[pos] === 0xff) {
    const marker = buf[pos + 1];
    if (marker === 0xda || marker === 0xd9) break;
    const length = buf.readUInt16BE(pos + 2);
    const start = pos + 4;
    const end = Math.min(pos + 2 + length, buf.length);
    if (marker === 0xe1 && end - start > 14 && buf.toString('latin1', start, start + 6) === 'Exif\0\0') return tiffOrientation(buf.subarray(start + 6, end));
    if (length < 2) break;
    pos += 2 + length;
  }
  return 1;
}

function tiffOrientation(tiff: Buffer): number {
  const order = tiff.toString('latin1', 0, 2);
  if (order !== 'II' && order !== 'MM') return 1;
  const u16 = (o: number) => (order === 'II' ? tiff.readUInt16LE(o) : tiff.readUInt16BE(o));
  const u32 = (o: number) => (order === 'II' ? tiff.readUInt32LE(o) : tiff.readUInt32BE(o));
  const ifd = u32(4);
  if (ifd + 2 > tiff.length) return 1;
  const count = u16(ifd);
  for (let i = 0; i < count; i++) {
    const entry = ifd + 2 + i * 12;
    if (entry + 12 > tiff.length) return 1;
    if (u16(entry) === 0x0112) {
      const value = u16(entry + 8);
      return value >= 1 && value <= 8 ? value : 1;
    }
  }
  return 1;
}

/** Where source pixel (x, y) of a w × h image lands, per EXIF orientation. */
const PLACE: Record<number, (w: number, h: number) => (x: number, y: number) => number> = {
  // Each returns the output pixel index; the output is w wide for 2–4 and h wide for 5–8.
  2: (w) => (x, y) => y * w + (w - 1 - x),
  3: (w, h) => (x, y) => (h - 1 - y) * w + (w - 1 - x),
  4: (w, h) => (x, y) => (h - 1 - y) * w + x,
  5: (_w, h) => (x, y) => x * h + y,
  6: (_w, h) => (x, y) => x * h + (h - 1 - y),
  7: (w, h) => (x, y) => (w - 1 - x) * h + (h - 1 - y),
  8: (w, h) => (x, y) => (w - 1 - x) * h + y,
};

/** Applies an EXIF orientation to RGBA pixels (2/4 mirror, 3 rotate 180, 5/7 transpose, 6 rotate 90° clockwise, 8 anticlockwise). */
export function orient(img: { width: number; height: number; data: Buffer }, orientation: number): { width: number; height: number; data: Buffer } {
  if (!PLACE[orientation]) return img;
  const { width: w, height: h } = img;
  // Copy into aligned 32-bit views: one pixel per element.
  const src = new Uint32Array(new Uint8Array(img.data).buffer);
  const dst = new Uint32Array(src.length);
  const place = PLACE[orientation](w, h);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) dst[place(x, y)] = src[y * w + x];
  const swap = orientation >= 5;
  return { width: swap ? h : w, height: swap ? w : h, data: Buffer.from(dst.buffer) };
}
