/**
 * Spec §5 form rules, checked before a call (the server checks them again). Each returns the
 * catalogue key of the first broken rule per field, so the message shows in the user's language.
 */
export type Errors<F extends string> = Partial<Record<F, string>>;

export const PASSWORD_MIN = 6;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]{2,}$/;

/**
 * 5–15 digits once spaces, dashes, dots and brackets are dropped, as the server reads it (docs/api.md):
 * a leading + is refused there, as the calling code goes in `area_code`.
 */
export const normalisePhone = (phone: string) => phone.replace(/[\s\-().]/g, '');
export const isPhone = (phone: string) => /^\d{5,15}$/.test(normalisePhone(phone));
export const isEmail = (email: string) => EMAIL.test(email.trim());
export const isFundPassword = (v: string) => /^\d{6}$/.test(v);

export function contactErrors(type: 'phone' | 'email', contact: string): string | undefined {
  if (type === 'phone') return !contact.trim() ? 'validation.phoneRequired' : !isPhone(contact) ? 'validation.phoneInvalid' : undefined;
  return !contact.trim() ? 'validation.emailRequired' : !isEmail(contact) ? 'validation.emailInvalid' : undefined;
}

function passwordPair(password: string, confirm: string, errors: Errors<'password' | 'confirm'>) {
  if (!password) errors.password = 'validation.passwordRequired';
  else if (password.length < PASSWORD_MIN) errors.password = 'validation.passwordMin';
  if (!confirm) errors.confirm = 'validation.confirmRequired';
  else if (password && confirm !== password) errors.confirm = 'validation.mismatch';
}

export interface RegisterForm {
  type: 'phone' | 'email';
  contact: string;
  code: string;
  password: string;
  confirm: string;
  agreement: boolean;
}
export type RegisterField = 'contact' | 'code' | 'password' | 'confirm' | 'agreement';

export function validateRegister(f: RegisterForm): Errors<RegisterField> {
  const errors: Errors<RegisterField> = {};
  const contact = contactErrors(f.type, f.contact);
  if (contact) errors.contact = contact;
  if (!f.code.trim()) errors.code = 'validation.codeRequired';
  passwordPair(f.password, f.confirm, errors);
  if (!f.agreement) errors.agreement = 'validation.agreement';
  return errors;
}

/** Recovery: the same contact, code and password rules as registration, without the agreement. */
export function validateForget(f: Omit<RegisterForm, 'agreement'>): Errors<Exclude<RegisterField, 'agreement'>> {
  const { agreement: _unused, ...errors } = validateRegister({ ...f, agreement: true });
  return errors;
}

export function validateLogin(f: { account: string; password: string }): Errors<'account' | 'password'> {
  const errors: Errors<'account' | 'password'> = {};
  if (!f.account.trim()) errors.account = 'validation.accountRequired';
  if (!f.password) errors.password = 'validation.passwordRequired';
  return errors;
}

export function validateChangePassword(f: { old: string; password: string; confirm: string }): Errors<'old' | 'password' | 'confirm'> {
  const errors: Errors<'old' | 'password' | 'confirm'> = {};
  if (!f.old) errors.old = 'validation.oldRequired';
  if (!f.password) errors.password = 'validation.newRequired';
  else if (f.password.length < PASSWORD_MIN) errors.password = 'validation.passwordMin';
  if (!f.confirm) errors.confirm = 'validation.confirmRequired';
  else if (f.password && f.confirm !== f.password) errors.confirm = 'validation.mismatch';
  return errors;
}

export function validateFundPassword(f: { password: string; confirm: string; code: string }): Errors<'password' | 'confirm' | 'code'> {
  const errors: Errors<'password' | 'confirm' | 'code'> = {};
  if (!isFundPassword(f.password)) errors.password = 'validation.fundPassword';
  if (!f.confirm) errors.confirm = 'validation.confirmRequired';
  else if (f.confirm !== f.password) errors.confirm = 'validation.mismatch';
  if (!f.code.trim()) errors.code = 'validation.codeRequired';
  return errors;
}

export const hasErrors = (errors: object) => Object.keys(errors).length > 0;
