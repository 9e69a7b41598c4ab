/**
 * A millisecond time as ISO text, the last one's text kept: a batch's orders share its time, so
 * most calls are a comparison (order answers give two per order).
 */
let lastIso: [number, string] = [Number.NaN, ''];
export function isoTime(ts: number): string {
  if (lastIso[0] !== ts) lastIso = [ts, new Date(ts).toISOString()];
  return lastIso[1];
}
