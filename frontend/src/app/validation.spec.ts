import { isPhone, normalisePhone, validateChangePassword, validateForget, validateFundPassword, validateLogin, validateRegister } from './validation';

const ok = { type: 'email' as const, contact: 'a@b.co', code: '123456', password: 'secret1', confirm: 'secret1', agreement: true };

describe('spec §5 rules', () => {
  it('register: every field in turn', () => {
    expect(validateRegister(ok)).toEqual({});
    expect(validateRegister({ ...ok, contact: '' })).toEqual({ contact: 'validation.emailRequired' });
    expect(validateRegister({ ...ok, contact: 'nope' })).toEqual({ contact: 'validation.emailInvalid' });
    expect(validateRegister({ ...ok, type: 'phone', contact: '' })).toEqual({ contact: 'validation.phoneRequired' });
    expect(validateRegister({ ...ok, type: 'phone', contact: '12ab' })).toEqual({ contact: 'validation.phoneInvalid' });
    expect(validateRegister({ ...ok, type: 'phone', contact: '(555) 010.0100' })).toEqual({});
    expect(validateRegister({ ...ok, type: 'phone', contact: '+1 555-0100' })).toEqual({ contact: 'validation.phoneInvalid' });
    expect(validateRegister({ ...ok, code: ' ' })).toEqual({ code: 'validation.codeRequired' });
    expect(validateRegister({ ...ok, password: '', confirm: '' })).toEqual({ password: 'validation.passwordRequired', confirm: 'validation.confirmRequired' });
    expect(validateRegister({ ...ok, password: '12345', confirm: '12345' })).toEqual({ password: 'validation.passwordMin' });
    expect(validateRegister({ ...ok, confirm: 'secret2' })).toEqual({ confirm: 'validation.mismatch' });
    expect(validateRegister({ ...ok, agreement: false })).toEqual({ agreement: 'validation.agreement' });
  });

  it('recovery has no agreement; login needs both fields', () => {
    expect(validateForget({ ...ok })).toEqual({});
    expect(validateLogin({ account: '', password: '' })).toEqual({ account: 'validation.accountRequired', password: 'validation.passwordRequired' });
  });

  it('change password: old, new and confirm required; new and confirm match', () => {
    expect(validateChangePassword({ old: '', password: '', confirm: '' })).toEqual({ old: 'validation.oldRequired', password: 'validation.newRequired', confirm: 'validation.confirmRequired' });
    expect(validateChangePassword({ old: 'a', password: 'secret1', confirm: 'secret2' })).toEqual({ confirm: 'validation.mismatch' });
  });

  it('fund password: exactly 6 digits', () => {
    expect(validateFundPassword({ password: '123456', confirm: '123456', code: '1' })).toEqual({});
    for (const bad of ['12345', '1234567', '12345a', ' 123456']) expect(validateFundPassword({ password: bad, confirm: bad, code: '1' }).password).toBe('validation.fundPassword');
  });

  it('phones: 5–15 digits after spaces, dashes, dots and brackets; a leading + refused (the server rule)', () => {
    expect(isPhone('13800138000')).toBe(true);
    expect(isPhone(' 138-0013 8000 ')).toBe(true);
    expect(isPhone('(0)138.0013.8000')).toBe(true);
    expect(normalisePhone('(020) 7946-0958')).toBe('02079460958');
    expect(isPhone('+8613800138000')).toBe(false);
    expect(isPhone('138/0013/8000')).toBe(false);
    expect(isPhone('1234')).toBe(false);
    expect(isPhone('1234567890123456')).toBe(false);
  });
});
