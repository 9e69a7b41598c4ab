import { Transform } from 'class-transformer';
import { normalizeAreaCode, normalizeEmail, normalizePhone } from '../../verification-code/contact';

// Transforms run before validation; they only touch strings so bad types still fail validation cleanly.
const onString = (fn: (v: string) => string) => Transform(({ value }) => (typeof value === 'string' ? fn(value) : value));
export const NormalizePhone = () => onString(normalizePhone);
export const NormalizeAreaCode = () => onString((v) => normalizeAreaCode(v));
export const NormalizeEmail = () => onString(normalizeEmail);
/** Form posts send checkboxes as "1"/"on"/"true"; JSON may send true. */
export const ToFlag = () => Transform(({ value }) => value === true || (typeof value === 'string' && ['1', 'on', 'true', 'yes'].includes(value.toLowerCase())));
