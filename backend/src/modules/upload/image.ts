import * as jpeg from 'jpeg-js';
import { constants as zlibConstants, inflateSync } from 'node:zlib';
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
/** The most bytes a PNG's pixels may take at their own depth: 40 megapixels of 8-bit RGBA. */
const MAX_DECODED_BYTES = MAX_IMAGE_MEGAPIXELS * 1_000_000 * 4;
/**
 * What jpeg-js may allocate for one decode (its own count: coefficient blocks, lines, output). Enough
 * for a 40-megapixel photo with the usual 4:2:0 colour; a file asking for more is refused, not decoded.
 */
const JPEG_MAX_MEMORY_MB = 512;
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

/** Channels of each PNG colour type (grey, RGB, palette index, grey + alpha, RGBA) and the bit depths there are. */
const PNG_CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };
const PNG_DEPTHS = new Set([1, 2, 4, 8, 16]);
/** A palette holds at most 256 RGB entries. */
const PNG_MAX_PALETTE_BYTES = 256 * 3;
/** Adam7's seven passes: first column, first row, column step, row step. */
export const ADAM7 = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
] as const;

/**
 * The exact size a PNG's pixel data inflates to: a filter byte and the packed pixels for every row,
 * of the whole image, or of each of Adam7's passes when it is interlaced.
 */
export function pngDataBytes(width: number, height: number, bitsPerPixel: number, interlaced: boolean): number {
  const rows = (w: number, h: number) => (w > 0 && h > 0 ? h * (1 + Math.ceil((w * bitsPerPixel) / 8)) : 0);
  if (!interlaced) return rows(width, height);
  return ADAM7.reduce((sum, [x0, y0, dx, dy]) => sum + rows(Math.ceil((width - x0) / dx), Math.ceil((height - y0) / dy)), 0);
}

/**
 * Walks a PNG's chunks as pngjs reads them (IHDR first and only once, the IDAT data joined, up to
 * IEND) and inflates the pixel data with a cap at the size IHDR implies, refusing a stream that
 * would inflate past it. pngjs caps only a non-interlaced image (and uses the last IHDR it reads):
 * a 1×1 interlaced PNG whose IDAT is a zlib bomb would otherwise hold gigabytes before failing.
 * Palettes are held to the 256 entries the format allows (pngjs keeps an array for each entry).
 */
export function checkPngData(buf: Buffer): void {
  const ihdr = buf.subarray(16, 29);
  const [depth, colorType, interlace] = [ihdr[8], ihdr[9], ihdr[12]];
  if (!PNG_DEPTHS.has(depth) || !(colorType in PNG_CHANNELS) || (interlace !== 0 && interlace !== 1)) throw new NotAnImageError('unsupported PNG format');
  // pngjs holds the pixels at their own depth while it decodes (and more beside them): a 16-bit image
  // takes twice the bytes of an 8-bit one, so its pixels are held to what 40 megapixels of 8-bit
  // RGBA take (an 8000×5000 16-bit RGBA image of 300 KB held over a gigabyte).
  const [width, height] = [ihdr.readUInt32BE(0), ihdr.readUInt32BE(4)];
  if ((width * height * PNG_CHANNELS[colorType] * Math.max(depth, 8)) / 8 > MAX_DECODED_BYTES) throw new ImageTooLargeError(`${width}x${height} at ${depth} bits`);
  const idat: Buffer[] = [];
  let palettes = 0;
  // The signature, then IHDR (readHeader checked it is the first chunk and 13 bytes long).
  let pos = 8 + 12 + 13;
  while (pos + 12 <= buf.length) {
    const length = buf.readUInt32BE(pos);
    const type = buf.toString('latin1', pos + 4, pos + 8);
    const end = pos + 12 + length;
    if (end > buf.length) throw new NotAnImageError('PNG chunk past the end of the file');
    if (type === 'IHDR') throw new NotAnImageError('PNG with a second IHDR');
    if (type === 'PLTE') {
      palettes += 1;
      if (palettes > 1 || length > PNG_MAX_PALETTE_BYTES) throw new NotAnImageError('PNG palette too large');
    }
    if (type === 'IDAT') idat.push(buf.subarray(pos + 8, pos + 8 + length));
    if (type === 'IEND') {
      const bound = pngDataBytes(ihdr.readUInt32BE(0), ihdr.readUInt32BE(4), PNG_CHANNELS[colorType] * depth, interlace === 1);
      try {
        // A truncated stream is left for pngjs to judge; only the size is checked here.
        inflateSync(Buffer.concat(idat), { maxOutputLength: bound, finishFlush: zlibConstants.Z_SYNC_FLUSH });
      } catch {
        throw new NotAnImageError('PNG pixel data larger than its header says, or broken');
      }
      return;
    }
    pos = end;
  }
  throw new NotAnImageError('PNG without IEND');
}

function cleanPng(buf: Buffer): CleanImage {
  checkPngData(buf);
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
    decoded = jpeg.decode(buf, {
      formatAsRGBA: true,
      tolerantDecoding: false,
      maxResolutionInMP: MAX_IMAGE_MEGAPIXELS,
      maxMemoryUsageInMB: JPEG_MAX_MEMORY_MB,
    });
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
