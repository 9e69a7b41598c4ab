/** Phone and e-mail normal forms, shared by registration, login and code sending. */
export const PHONE_RE = /^\d{5,15}$/;
export const AREA_CODE_RE = /^\d{1,4}$/;

/** "138-0013 8000" → "13800138000": the separators (spaces, `-`, `(`, `)`, `.`) dropped; a leading `+` stays. */
export function normalizePhone(raw: string): string {
  return raw.replace(/[\s\-().]/g, '');
}

export function normalizeAreaCode(raw: string | undefined): string {
  return (raw ?? '').replace(/^\+/, '').trim();
}

export function normalizeEmail(raw: string): string {
  return raw.trim().toLowerCase();
}

export function phoneTarget(areaCode: string, phone: string): string {
  return `+${areaCode} ${phone}`;
}
