import { lastCode, registerByEmail, uniqueEmail } from './support/accounts';
import { inOpenTransaction } from './support/open-transaction';
import { startTestApp, TestApp } from './support/test-app';
import { hashPassword } from '../src/infra/auth/password';

/** Spec §5 registration rules: each answers its own message and creates nothing. */
describe('registration rules (real PostgreSQL + Redis)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const counts = async () => {
    const [u] = await t.ds.query('SELECT COUNT(*)::int AS n FROM users');
    const [e] = await t.ds.query(`SELECT COUNT(*)::int AS n FROM events WHERE type = 'UserRegistered'`);
    return { users: u.n, events: e.n };
  };

  async function freshCode(email: string): Promise<string> {
    await t.http().post('/api/sms_mail').type('form').send({ email, purpose: 'register' });
    return lastCode(t.ds, email);
  }

  const valid = (email: string, code: string) => ({ type: 'email', email, code, password: 'secret1', re_password: 'secret1', agreement: '1' });

  it.each([
    [
      'phone route without phone',
      { type: 'phone', area_code: '86', code: '123456', password: 'secret1', re_password: 'secret1', agreement: '1' },
      1000,
      'Phone number is required',
    ],
    [
      'phone route with a bad phone',
      { type: 'phone', phone: '12ab', area_code: '86', code: '123456', password: 'secret1', re_password: 'secret1', agreement: '1' },
      1000,
      'Please enter a valid phone number',
    ],
    ['e-mail route without e-mail', { type: 'email', code: '123456', password: 'secret1', re_password: 'secret1', agreement: '1' }, 1000, 'E-mail is required'],
    [
      'e-mail route with a bad e-mail',
      { type: 'email', email: 'not-an-email', code: '123456', password: 'secret1', re_password: 'secret1', agreement: '1' },
      1000,
      'Please enter a valid e-mail address',
    ],
    ['no code', { type: 'email', email: 'a@b.co', password: 'secret1', re_password: 'secret1', agreement: '1' }, 1000, 'Verification code is required'],
    ['no password', { type: 'email', email: 'a@b.co', code: '123456', re_password: 'secret1', agreement: '1' }, 1000, 'Password is required'],
    [
      'short password',
      { type: 'email', email: 'a@b.co', code: '123456', password: 'abc12', re_password: 'abc12', agreement: '1' },
      1000,
      'Password must be at least 6 characters',
    ],
    ['no confirmation', { type: 'email', email: 'a@b.co', code: '123456', password: 'secret1', agreement: '1' }, 1000, 'Please confirm the password'],
    [
      'passwords differ',
      { type: 'email', email: 'a@b.co', code: '123456', password: 'secret1', re_password: 'secret2', agreement: '1' },
      1100,
      'The two passwords do not match',
    ],
    [
      'agreement not ticked',
      { type: 'email', email: 'a@b.co', code: '123456', password: 'secret1', re_password: 'secret1' },
      1101,
      'You have not agreed to the user agreement',
    ],
    [
      'neither route',
      { type: 'fax', code: '123456', password: 'secret1', re_password: 'secret1', agreement: '1' },
      1000,
      'Choose registration by phone or by e-mail',
    ],
    [
      'an unknown field',
      { type: 'email', email: 'a@b.co', code: '123456', password: 'secret1', re_password: 'secret1', agreement: '1', role: 'admin' },
      1001,
      'Unknown field: role',
    ],
  ])('%s → its message, nothing created', async (_name, body, code, message) => {
    const before = await counts();
    const res = await t.http().post('/api/user/register').type('form').send(body);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ type: 'error', code, message, data: null });
    expect(await counts()).toEqual(before);
  });

  it('answers in the language of the lang header', async () => {
    const res = await t
      .http()
      .post('/api/user/register')
      .set('lang', 'zh')
      .type('form')
      .send({ type: 'email', email: 'a@b.co', code: '123456', password: 'secret1', re_password: 'secret2', agreement: '1' });
    expect(res.body.message).toBe('两次输入的密码不一致');
    const kr = await t
      .http()
      .post('/api/user/register')
      .set('lang', 'kr')
      .type('form')
      .send({ type: 'email', code: '123456', password: 'secret1', re_password: 'secret1', agreement: '1' });
    expect(kr.body.message).toBe('이메일을 입력해 주세요');
  });

  it('refuses a wrong code and an unknown invite code without creating anything', async () => {
    const email = uniqueEmail('wrong');
    const code = await freshCode(email);
    const before = await counts();
    const wrong = code === '000000' ? '111111' : '000000';
    expect((await t.http().post('/api/user/register').type('form').send(valid(email, wrong))).body.code).toBe(1102);
    expect(
      (
        await t
          .http()
          .post('/api/user/register')
          .type('form')
          .send({ ...valid(email, code), invite_code: 'NOPE1234' })
      ).body.code,
    ).toBe(1109);
    expect(await counts()).toEqual(before);
  });

  it('registers, records the referral link, and refuses the same account twice', async () => {
    const inviter = await registerByEmail(t);
    const email = uniqueEmail('invitee');
    const code = await freshCode(email);
    const res = await t
      .http()
      .post('/api/user/register')
      .type('form')
      .send({ ...valid(email, code), invite_code: inviter.user.invite_code.toLowerCase() });
    expect(res.body).toMatchObject({ type: 'ok', code: 1, message: 'Registration successful' });
    const [row] = await t.ds.query('SELECT inviter_id FROM users WHERE email = $1', [email]);
    expect(row.inviter_id).toBe(inviter.user.id);

    const again = await t.http().post('/api/sms_mail').type('form').send({ email, purpose: 'register' });
    expect(again.body.code).toBe(1105);
    // The used code cannot register a second time either.
    const before = await counts();
    expect((await t.http().post('/api/user/register').type('form').send(valid(email, code))).body.code).toBe(1105);
    expect(await counts()).toEqual(before);
  });

  it('registers by phone and logs in with the number', async () => {
    const sent = await t.http().post('/api/sms_send').type('form').send({ phone: '138 0013 8000', area_code: '+86', purpose: 'register' });
    expect(sent.body.code).toBe(1);
    const code = await lastCode(t.ds, '+86 13800138000');
    const res = await t
      .http()
      .post('/api/user/register')
      .type('form')
      .send({ type: 'phone', phone: '13800138000', area_code: '86', code, password: 'secret1', re_password: 'secret1', agreement: 'on' });
    expect(res.body.code).toBe(1);
    expect(res.body.data.user).toMatchObject({ account: '13800138000', phone: '13800138000', area_code: '86', nickname: '138****8000' });
    const login = await t.http().post('/api/user/login').type('form').send({ account: '13800138000', password: 'secret1' });
    expect(login.body.code).toBe(1);
    expect((await t.http().post('/api/user/check_mobile').type('form').send({ phone: '13800138000' })).body.data).toEqual({ registered: true });
  });

  it('codes: 60 s resend guard, 10 min expiry, burnt after 5 wrong tries', async () => {
    const email = uniqueEmail('codes');
    const code = await freshCode(email);
    const resend = await t.http().post('/api/sms_mail').type('form').send({ email, purpose: 'register' });
    expect(resend.body.code).toBe(1104);
    expect(resend.body.message).toMatch(/wait \d+ seconds/);

    const wrong = code === '000000' ? '111111' : '000000';
    for (let i = 0; i < 4; i++) expect((await t.http().post('/api/user/register').type('form').send(valid(email, wrong))).body.code).toBe(1102);
    expect((await t.http().post('/api/user/register').type('form').send(valid(email, wrong))).body.code).toBe(1103);
    // Burnt: even the right code no longer works.
    expect((await t.http().post('/api/user/register').type('form').send(valid(email, code))).body.code).toBe(1103);

    const email2 = uniqueEmail('expired');
    const code2 = await freshCode(email2);
    await t.ds.query(`UPDATE verification_codes SET expires_at = now() - interval '1 second' WHERE target = $1`, [email2]);
    expect((await t.http().post('/api/user/register').type('form').send(valid(email2, code2))).body.code).toBe(1102);
  });

  it('change login password: old, new and confirm required; new = confirm; old must be right', async () => {
    const u = await registerByEmail(t);
    const send = (body: object) => t.http().post('/api/safe/update_password').set('Authorization', u.token).type('form').send(body);
    expect((await send({ password: 'newpass1', re_password: 'newpass1' })).body.message).toBe('Current password is required');
    expect((await send({ old_password: u.password, re_password: 'newpass1' })).body.message).toBe('Password is required');
    expect((await send({ old_password: u.password, password: 'newpass1' })).body.message).toBe('Please confirm the password');
    expect((await send({ old_password: u.password, password: 'newpass1', re_password: 'newpass2' })).body.code).toBe(1100);
    expect((await send({ old_password: 'wrong-old', password: 'newpass1', re_password: 'newpass1' })).body.code).toBe(1110);
    expect((await send({ old_password: u.password, password: 'newpass1', re_password: 'newpass1' })).body.code).toBe(1);
    expect((await t.http().post('/api/user/login').type('form').send({ account: u.email, password: u.password })).body.code).toBe(1106);
    expect((await t.http().post('/api/user/login').type('form').send({ account: u.email, password: 'newpass1' })).body.code).toBe(1);
  });

  it('a password change overlapping the owner’s reset does not write the old password back (regression: it did, and the reset password stopped working)', async () => {
    const u = await registerByEmail(t);
    const login = (password: string) => t.http().post('/api/user/login').type('form').send({ account: u.email, password });
    const reset = await hashPassword('reset-pass-1');
    await inOpenTransaction(t.ds, async (owner) => {
      // The owner's reset, not committed yet: the new password, every session ended.
      await owner.query('UPDATE users SET password_hash = $2 WHERE id = $1', [u.user.id, reset]);
      await owner.query(`UPDATE auth_tokens SET revoked_at = now() WHERE subject_type = 'user' AND subject_id = $1 AND revoked_at IS NULL`, [u.user.id]);
      // Meanwhile the holder of an old session changes the password, knowing the old one.
      const change = t
        .http()
        .post('/api/safe/update_password')
        .set('Authorization', u.token)
        .type('form')
        .send({ old_password: u.password, password: 'taken-over-1', re_password: 'taken-over-1' })
        .then((r) => r);
      await new Promise((r) => setTimeout(r, 1500));
      await owner.commitTransaction();
      expect((await change).body.code).toBe(401);
    });
    expect((await login('taken-over-1')).body.code).toBe(1106);
    expect((await login('reset-pass-1')).body.code).toBe(1);
  });

  it('fund password: exactly 6 digits, needs a code, then has_password is true', async () => {
    const u = await registerByEmail(t);
    const auth = { Authorization: u.token };
    expect((await t.http().post('/api/user/has_password').set(auth)).body.data).toEqual({ has_password: false });
    await t.http().post('/api/sms_mail').set(auth).type('form').send({ purpose: 'fund_password' });
    const code = await lastCode(t.ds, u.email);
    for (const bad of ['12345', '1234567', 'abcdef', '12 456']) {
      const res = await t.http().post('/api/user/e_pwd').set(auth).type('form').send({ password: bad, re_password: bad, code });
      expect(res.body).toMatchObject({ code: 1000, message: 'The fund password must be exactly 6 digits' });
    }
    expect((await t.http().post('/api/user/e_pwd').set(auth).type('form').send({ password: '246810', re_password: '246810' })).body.message).toBe(
      'Verification code is required',
    );
    expect((await t.http().post('/api/user/e_pwd').set(auth).type('form').send({ password: '246810', re_password: '246810', code })).body.code).toBe(1);
    expect((await t.http().post('/api/user/has_password').set(auth)).body.data).toEqual({ has_password: true });
  });

  it('a login whose password check overlaps a reset that commits meanwhile is refused, never a session the reset missed (regression: it kept a 7-day token)', async () => {
    const u = await registerByEmail(t);
    // The reset, written and not yet committed: the new hash and every session ended, as user/forget does in one transaction.
    await inOpenTransaction(t.ds, async (reset) => {
      await reset.query(`UPDATE users SET password_hash = 'replaced' WHERE id = $1`, [u.user.id]);
      await reset.query(`UPDATE auth_tokens SET revoked_at = now() WHERE subject_type = 'user' AND subject_id = $1 AND revoked_at IS NULL`, [u.user.id]);
      const login = t
        .http()
        .post('/api/user/login')
        .type('form')
        .send({ account: u.email, password: u.password })
        .then((r) => r.body);
      await new Promise((r) => setTimeout(r, 300));
      await reset.commitTransaction();
      expect(await login).toMatchObject({ code: 1106 });
    });
    const [{ n }] = await t.ds.query(`SELECT COUNT(*)::int AS n FROM auth_tokens WHERE subject_type = 'user' AND subject_id = $1 AND revoked_at IS NULL`, [
      u.user.id,
    ]);
    expect(n).toBe(0);
  });

  it('forgot password: resets with a code and ends every session', async () => {
    const u = await registerByEmail(t);
    await t.http().post('/api/sms_mail').type('form').send({ email: u.email, purpose: 'forget' });
    const code = await lastCode(t.ds, u.email);
    const res = await t
      .http()
      .post('/api/user/forget')
      .type('form')
      .send({ type: 'email', email: u.email, code, password: 'brand-new', re_password: 'brand-new' });
    expect(res.body.code).toBe(1);
    expect((await t.http().get('/api/user/center').set('Authorization', u.token)).body.code).toBe(401);
    expect((await t.http().post('/api/user/login').type('form').send({ account: u.email, password: 'brand-new' })).body.code).toBe(1);
    expect(
      (
        await t
          .http()
          .post('/api/sms_mail')
          .type('form')
          .send({ email: uniqueEmail('nobody'), purpose: 'forget' })
      ).body.code,
    ).toBe(1107);
  });

  it('an e-mail address past the 200 characters an account holds is refused by its rule before any code is sent or counted (regression: 1000 "Invalid request" from the database, the quota spent)', async () => {
    const long = `${'a'.repeat(64)}@${'b'.repeat(60)}.${'c'.repeat(60)}.${'d'.repeat(30)}.com`;
    expect(long.length).toBeGreaterThan(200);
    for (const [path, body] of [
      ['/api/sms_mail', { email: long, purpose: 'register' }],
      ['/api/user/check_email', { email: long }],
    ] as const)
      expect((await t.http().post(path).type('form').send(body)).body).toMatchObject({
        code: 1000,
        message: 'Please enter a valid e-mail address',
      });
    const [{ n }] = await t.ds.query('SELECT COUNT(*)::int AS n FROM verification_codes WHERE length(target) > 200');
    expect(n).toBe(0);
  });

  it('a code used ends the codes sent before it for the same purpose: an older one still in its time authorises nothing (regression: it became the latest and reset the password again)', async () => {
    const u = await registerByEmail(t);
    const forget = (code: string, password: string) =>
      t.http().post('/api/user/forget').type('form').send({ type: 'email', email: u.email, code, password, re_password: password });
    await t.http().post('/api/sms_mail').type('form').send({ email: u.email, purpose: 'forget' });
    const older = await lastCode(t.ds, u.email);
    // Past the resend guard, a second code.
    await t.ds.query(`UPDATE verification_codes SET created_at = created_at - interval '2 minutes' WHERE target = $1 AND purpose = 'forget'`, [u.email]);
    expect((await t.http().post('/api/sms_mail').type('form').send({ email: u.email, purpose: 'forget' })).body.code).toBe(1);
    const newer = await lastCode(t.ds, u.email);
    expect(newer).not.toBe(older);
    expect((await forget(newer, 'second-pass')).body.code).toBe(1);
    expect((await forget(older, 'third-pass')).body.code).toBe(1102);
    expect((await t.http().post('/api/user/login').type('form').send({ account: u.email, password: 'second-pass' })).body.code).toBe(1);
  });
});
