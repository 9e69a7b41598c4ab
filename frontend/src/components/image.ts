/** Longest side after compression: enough to read an ID card or a transfer receipt. */
export const MAX_SIDE = 1600;
export const JPEG_QUALITY = 0.85;

/**
 * Compresses a photo in the browser before it is uploaded: drawn on a canvas at most 1600 px a
 * side and encoded as JPEG (the server accepts JPEG/PNG up to 5 MB and re-encodes anyway). The
 * browser applies the EXIF orientation when it decodes, so the result is upright.
 */
export async function compressImage(file: Blob): Promise<Blob> {
  const bitmap = await createImageBitmap(file);
  try {
    const scale = Math.min(1, MAX_SIDE / Math.max(bitmap.width, bitmap.height));
    const width = Math.max(1, Math.round(bitmap.width * scale));
    const height = Math.max(1, Math.round(bitmap.height * scale));
    const canvas = document.createElement('canvas');
    canvas.width = width;
    canvas.height = height;
    const ctx = canvas.getContext('2d')!;
    ctx.fillStyle = '#ffffff'; // transparent PNG areas become white, not black
    ctx.fillRect(0, 0, width, height);
    ctx.drawImage(bitmap, 0, 0, width, height);
    return await new Promise<Blob>((resolve, reject) =>
      canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('encode failed'))), 'image/jpeg', JPEG_QUALITY),
    );
  } finally {
    bitmap.close();
  }
}
