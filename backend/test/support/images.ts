import * as jpeg from 'jpeg-js';
import { PNG } from 'pngjs';

/** Test images, made in memory: small JPEGs and PNGs, with or without metadata. */

/** RGBA pixels: a left-to-right red ramp, a top-to-bottom green ramp (so orientation is visible). */
export function pixels(width: number, height: number): Buffer {
  const data = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      data[i] = Math.round((255 * x) / Math.max(width - 1, 1));
      data[i + 1] = Math.round((255 * y) / Math.max(height - 1, 1));
      data[i + 2] = 128;
      data[i + 3] = 255;
    }
  return data;
}

export function makeJpeg(width = 16, height = 8, comments?: string[]): Buffer {
  return jpeg.encode({ width, height, data: pixels(width, height), comments }, 90).data;
}

export function makePng(width = 16, height = 8): Buffer {
  const png = new PNG({ width, height });
  png.data = pixels(width, height);
  return PNG.sync.write(png);
}

let made = 0;
/** A PNG whose pixels differ from every other this process made: a new picture (payment proofs are refused by content when one backs another report). */
export function uniquePng(width = 16, height = 8): Buffer {
  const png = new PNG({ width, height });
  png.data = pixels(width, height);
  made++;
  // The first pixel's colour counts the pictures (up to 2^24 of them).
  png.data[0] = made & 255;
  png.data[1] = (made >> 8) & 255;
  png.data[2] = (made >> 16) & 255;
  return PNG.sync.write(png);
}

/**
 * An APP1 "Exif" segment written by hand: big-endian TIFF with IFD0 holding the orientation and
 * an ImageDescription (standing in for the GPS position and camera details phones record).
 */
export function exifSegment(orientation: number, description: string): Buffer {
  const text = Buffer.from(`${description}\0`, 'latin1');
  const tiff = Buffer.alloc(8 + 2 + 2 * 12 + 4 + text.length);
  tiff.write('MM', 0, 'latin1');
  tiff.writeUInt16BE(42, 2);
  tiff.writeUInt32BE(8, 4);
  tiff.writeUInt16BE(2, 8);
  // 0x010E ImageDescription, ASCII, pointing at the text after the IFD.
  tiff.writeUInt16BE(0x010e, 10);
  tiff.writeUInt16BE(2, 12);
  tiff.writeUInt32BE(text.length, 14);
  tiff.writeUInt32BE(38, 18);
  // 0x0112 Orientation, SHORT, inline.
  tiff.writeUInt16BE(0x0112, 22);
  tiff.writeUInt16BE(3, 24);
  tiff.writeUInt32BE(1, 26);
  tiff.writeUInt16BE(orientation, 30);
  tiff.writeUInt32BE(0, 34);
  text.copy(tiff, 38);
  const payload = Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), tiff]);
  const header = Buffer.from([0xff, 0xe1, 0, 0]);
  header.writeUInt16BE(payload.length + 2, 2);
  return Buffer.concat([header, payload]);
}

/** A JPEG with an EXIF segment right after the start-of-image marker. */
export function jpegWithExif(width: number, height: number, orientation: number, description: string, comments?: string[]): Buffer {
  const plain = makeJpeg(width, height, comments);
  return Buffer.concat([plain.subarray(0, 2), exifSegment(orientation, description), plain.subarray(2)]);
}

function crc32(buf: Buffer): number {
  let c = ~0;
  for (const byte of buf) {
    c ^= byte;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
  }
  return ~c >>> 0;
}

/** One PNG chunk: length, type, data, CRC (right, so pngjs reads it). */
export function pngChunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const out = Buffer.alloc(body.length + 8);
  out.writeUInt32BE(data.length, 0);
  body.copy(out, 4);
  out.writeUInt32BE(crc32(body), body.length + 4);
  return out;
}

/** A PNG with a tEXt chunk (e.g. a location) before IEND. */
export function pngWithText(width: number, height: number, keyword: string, text: string): Buffer {
  const plain = makePng(width, height);
  const iend = plain.length - 12;
  return Buffer.concat([plain.subarray(0, iend), pngChunk('tEXt', Buffer.from(`${keyword}\0${text}`, 'latin1')), plain.subarray(iend)]);
}

/** A JPEG whose frame header claims a huge size, followed by junk: must be refused before decoding. */
export function hugeJpegHeader(width: number, height: number): Buffer {
  const sof = Buffer.from([0xff, 0xc0, 0x00, 0x11, 0x08, 0, 0, 0, 0, 0x03, 0x01, 0x22, 0x00, 0x02, 0x11, 0x01, 0x03, 0x11, 0x01]);
  sof.writeUInt16BE(height, 5);
  sof.writeUInt16BE(width, 7);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), sof, Buffer.alloc(2048, 0x5a)]);
}
