import { DataSource } from 'typeorm';
import { TestApp } from './test-app';

/** The code in the newest outbox message to a recipient (the default notifier's table). */
export async function lastCode(ds: DataSource, recipient: string): Promise<string> {
  const [row] = await ds.query('SELECT body FROM outbox WHERE recipient = $1 ORDER BY id DESC LIMIT 1', [recipient]);
  const code = /\b(\d{6})\b/.exec(row?.body ?? '')?.[1];
  if (!code) throw new Error(`no code was sent to ${recipient}`);
  return code;
}

let counter = 0;
export function uniqueEmail(tag = 'u'): string {
  counter += 1;
  return `${tag}${counter}.${process.pid}@kestrel.test`;
}

/** Registers by e-mail the way the app does (form-encoded), returning the token and user. */
export async function registerByEmail(t: TestApp, email = uniqueEmail(), password = 'secret-pass', extra: Record<string, string> = {}) {
  const sent = await t.http().post('/api/sms_mail').type('form').send({ email, purpose: 'register' });
  if (sent.body.code !== 1) throw new Error(`sms_mail failed: ${JSON.stringify(sent.body)}`);
  const code = await lastCode(t.ds, email);
  const res = await t
    .http()
    .post('/api/user/register')
    .type('form')
    .send({ type: 'email', email, code, password, re_password: password, agreement: '1', ...extra });
  if (res.body.code !== 1) throw new Error(`register failed: ${JSON.stringify(res.body)}`);
  return { email, password, token: res.body.data.token as string, user: res.body.data.user as { id: number; invite_code: string } };
}

export async function adminToken(t: TestApp, email: string, password: string): Promise<string> {
  const res = await t.http().post('/api/admin/login').type('form').send({ email, password });
  if (res.body.code !== 1) throw new Error(`admin login failed: ${JSON.stringify(res.body)}`);
  return res.body.data.token;
}

/** Sets the fund password through the API (code by e-mail, then user/e_pwd). */
export async function setFundPassword(t: TestApp, user: { email: string; token: string }, password = '135790'): Promise<void> {
  await t.http().post('/api/sms_mail').set('Authorization', user.token).type('form').send({ purpose: 'fund_password' });
  const code = await lastCode(t.ds, user.email);
  const res = await t.http().post('/api/user/e_pwd').set('Authorization', user.token).type('form').send({ password, re_password: password, code });
  if (res.body.code !== 1) throw new Error(`e_pwd failed: ${JSON.stringify(res.body)}`);
}

/** Basic identity verification the real way: three photos uploaded, the form sent, an operator approves. */
export async function verifyBasic(t: TestApp, user: { token: string }, operatorToken: string): Promise<void> {
  const { uniquePng } = await import('./images');
  // Three pictures: one picture uploaded three times is refused (kyc.images_distinct).
  const upload = async () =>
    (await t.http().post('/api/upload/image').set('Authorization', user.token).attach('file', uniquePng(), { filename: 'id.png', contentType: 'image/png' }))
      .body.data.id as string;
  const [front, back, hand] = [await upload(), await upload(), await upload()];
  const sent = await t.http().post('/api/user/real_name').set('Authorization', user.token).type('form').send({
    country: 'PT',
    name: 'Ana Silva',
    id_number: 'X1234567',
    address: 'Rua Augusta 1, Lisboa',
    front_image: front,
    back_image: back,
    hand_image: hand,
  });
  if (sent.body.code !== 1) throw new Error(`real_name failed: ${JSON.stringify(sent.body)}`);
  const me = (await t.http().get('/api/user/center').set('Authorization', user.token)).body.data;
  const list = await t.http().get('/api/admin/real_name').set('Authorization', operatorToken).query({ user_id: me.id, status: 'review' });
  const id = list.body.data.items[0].id;
  const ok = await t.http().post(`/api/admin/real_name/${id}/approve`).set('Authorization', operatorToken).type('form').send({});
  if (ok.body.code !== 1) throw new Error(`approve failed: ${JSON.stringify(ok.body)}`);
}
