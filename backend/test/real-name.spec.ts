import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adminToken, registerByEmail } from './support/accounts';
import { makeJpeg, makePng } from './support/images';
import { ADMIN, startTestApp, TestApp } from './support/test-app';

type Session = Awaited<ReturnType<typeof registerByEmail>>;

describe('identity verification', () => {
  let t: TestApp;
  let dir: string;
  let admin: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kestrel-kyc-'));
    t = await startTestApp({ uploadDir: dir });
    admin = await adminToken(t, ADMIN.email, ADMIN.password);
  });
  afterAll(async () => {
    await t.close();
    await rm(dir, { recursive: true, force: true });
  });

  let seq = 0;
  const uploadBytes = async (u: Session, bytes: Buffer): Promise<string> => {
    const res = await t.http().post('/api/upload/image').set('Authorization', u.token).attach('file', bytes, { filename: 'p.jpg', contentType: 'image/jpeg' });
    if (res.body.code !== 1) throw new Error(JSON.stringify(res.body));
    return res.body.data.id;
  };
  const uploadImage = (u: Session): Promise<string> => uploadBytes(u, makeJpeg(8 + ++seq, 8));
  const basicForm = async (u: Session) => ({
    country: 'Portugal',
    name: '  Ana   Lima ',
    id_number: `ab 100 ${1000 + u.user.id}`, // unique per user: one test looks for accounts sharing an ID number
    address: 'Rua Augusta 1, Lisboa',
    front_image: await uploadImage(u),
    back_image: await uploadImage(u),
    hand_image: await uploadImage(u),
  });
  const post = (u: Session, path: string, body: object) => t.http().post(`/api/${path}`).set('Authorization', u.token).type('form').send(body);
  const asAdmin = (method: 'get' | 'post', path: string, body: object = {}) =>
    method === 'get'
      ? t.http().get(`/api/admin/${path}`).query(body).set('Authorization', admin)
      : t.http().post(`/api/admin/${path}`).set('Authorization', admin).type('form').send(body);
  const rows = async (userId: number) => t.ds.query('SELECT * FROM identity_verifications WHERE user_id = $1 ORDER BY id', [userId]);
  const levelOf = async (userId: number) => (await t.ds.query('SELECT verification_level FROM users WHERE id = $1', [userId]))[0].verification_level;
  const state = async (u: Session) => (await t.http().get('/api/user/real_name').set('Authorization', u.token)).body.data;
  /** What `basicForm`'s ID number becomes once normalised. */
  const idNumberOf = (u: Session) => `AB100${1000 + u.user.id}`;
  const submitted = async (u: Session) => (await rows(u.user.id)).at(-1).id as number;

  it('every rule of the basic form answers its own message and stores nothing', async () => {
    const u = await registerByEmail(t);
    const other = await registerByEmail(t);
    const form = await basicForm(u);
    const cases: Array<[Record<string, string | undefined>, number, string]> = [
      [{ country: undefined }, 1000, 'Country is required'],
      [{ country: '   ' }, 1000, 'Country is required'],
      [{ country: 'x'.repeat(65) }, 1000, 'Country must be at most 64 characters'],
      [{ name: undefined }, 1000, 'Full name is required'],
      [{ name: 'x'.repeat(101) }, 1000, 'Full name must be at most 100 characters'],
      [{ id_number: undefined }, 1000, 'ID number is required'],
      [{ id_number: '12' }, 1000, 'Enter a valid ID number (4 to 32 letters, digits or dashes)'],
      [{ id_number: 'AB12<script>' }, 1000, 'Enter a valid ID number (4 to 32 letters, digits or dashes)'],
      [{ address: undefined }, 1000, 'Contact address is required'],
      [{ address: 'x'.repeat(256) }, 1000, 'Contact address must be at most 255 characters'],
      [{ front_image: undefined }, 1000, 'Upload a photo of the front of your ID'],
      [{ back_image: undefined }, 1000, 'Upload a photo of the back of your ID'],
      [{ hand_image: undefined }, 1000, 'Upload a photo of yourself holding your ID'],
      [{ hand_image: 'not-an-id' }, 1000, 'The photo is invalid. Please upload it again'],
      [{ hand_image: form.front_image }, 1000, 'Each photo must be a different image'],
      // One picture uploaded twice: two uploads, one photo (regression: only the upload ids were compared).
      [
        { front_image: await uploadBytes(u, makeJpeg(700, 8)), hand_image: await uploadBytes(u, makeJpeg(700, 8)) },
        1000,
        'Each photo must be a different image',
      ],
      [{ hand_image: await uploadImage(other) }, 2301, 'The image was not found. Please upload it again'],
      [{ hand_image: '00000000-0000-4000-8000-000000000000' }, 2301, 'The image was not found. Please upload it again'],
      [{ level: '2' }, 1001, 'Unknown field: level'],
    ];
    for (const [change, code, message] of cases) {
      const body = Object.fromEntries(Object.entries({ ...form, ...change }).filter(([, v]) => v !== undefined));
      const res = await post(u, 'user/real_name', body);
      expect({ change, body: res.body }).toEqual({ change, body: { type: 'error', code, message, data: null } });
    }
    const zh = await post(u, 'user/real_name', { ...form, country: '' }).set('lang', 'zh');
    expect(zh.body.message).toBe('请填写国家');
    expect(await rows(u.user.id)).toEqual([]);
    expect(await state(u)).toEqual({ basic: 'unverified', advanced: 'unverified', basic_reason: null, advanced_reason: null });
    expect((await t.ds.query(`SELECT count(*)::int AS n FROM events WHERE stream_id LIKE 'kyc:%' AND payload->>'userId' = $1`, [String(u.user.id)]))[0].n).toBe(
      0,
    );
  });

  it('a submission goes under review, normalised, with an event; a second one is refused while it is', async () => {
    const u = await registerByEmail(t);
    const res = await post(u, 'user/real_name', await basicForm(u));
    expect(res.body).toMatchObject({
      code: 1,
      message: 'Submitted successfully. Your verification is under review',
      data: { basic: 'review', advanced: 'unverified' },
    });
    const [row] = await rows(u.user.id);
    expect(row).toMatchObject({ level: 1, status: 'review', name: 'Ana Lima', id_number: idNumberOf(u), country: 'Portugal', id_type: 'id_card' });
    const events = await t.ds.query('SELECT type, payload, metadata FROM events WHERE stream_id = $1', [`kyc:${row.id}`]);
    expect(events).toEqual([expect.objectContaining({ type: 'IdentityVerificationSubmitted', metadata: { actor: `user:${u.user.id}` } })]);
    expect(JSON.stringify(events[0].payload)).not.toContain(idNumberOf(u)); // personal data stays out of the append-only log

    const again = await post(u, 'user/real_name', await basicForm(u));
    expect(again.body).toMatchObject({ code: 2310, message: 'Your verification is under review. Please wait for the result' });
    const center = await t.http().get('/api/user/center').set('Authorization', u.token);
    expect(center.body.data).toMatchObject({
      id: u.user.id,
      verification_level: 0,
      verification: { basic: 'review', advanced: 'unverified', basic_reason: null, advanced_reason: null },
    });
    expect(await rows(u.user.id)).toHaveLength(1);
  });

  it('two submissions at once: one is accepted, the other refused', async () => {
    const u = await registerByEmail(t);
    const forms = [await basicForm(u), await basicForm(u)];
    const results = await Promise.all(forms.map((f) => post(u, 'user/real_name', f)));
    expect(results.map((r) => r.body.code).sort()).toEqual([1, 2310]);
    expect(await rows(u.user.id)).toHaveLength(1);
  });

  it('advanced verification needs basic approved first', async () => {
    const u = await registerByEmail(t);
    const advanced = async () => ({ id_type: 'passport', id_number: 'P1234567', front_image: await uploadImage(u), hand_image: await uploadImage(u) });
    const before = await post(u, 'user/real_name2', await advanced());
    expect(before.body).toEqual({ type: 'error', code: 2312, message: 'Complete basic/primary ID verification first', data: null });
    await post(u, 'user/real_name', await basicForm(u));
    expect((await post(u, 'user/real_name2', await advanced())).body.code).toBe(2312); // under review is not approved
    expect((await asAdmin('post', `real_name/${await submitted(u)}/approve`)).body.code).toBe(1);

    expect((await post(u, 'user/real_name2', { ...(await advanced()), id_type: 'id_card' })).body).toMatchObject({
      code: 1000,
      message: 'Upload a photo of the back of your ID',
    });
    expect((await post(u, 'user/real_name2', { ...(await advanced()), id_type: 'visa' })).body).toMatchObject({
      code: 1000,
      message: 'Choose the document type: ID card, passport or driving licence',
    });
    const ok = await post(u, 'user/real_name2', await advanced()); // a passport has no back
    expect(ok.body).toMatchObject({ code: 1, data: { basic: 'verified', advanced: 'review' } });
    const approved = await asAdmin('post', `real_name/${await submitted(u)}/approve`, { reason: 'documents match' });
    expect(approved.body).toMatchObject({ code: 1, message: 'Verification approved', data: { level: 2, status: 'verified', back_image: null } });
    expect(await levelOf(u.user.id)).toBe(2);
    expect((await post(u, 'user/real_name2', await advanced())).body).toMatchObject({ code: 2311, message: 'You have already passed this verification' });
    expect((await post(u, 'user/real_name', await basicForm(u))).body.code).toBe(2311);
  });

  it('concurrent approvals apply once: one event, one message, the level set once', async () => {
    const u = await registerByEmail(t);
    await post(u, 'user/real_name', await basicForm(u));
    const id = await submitted(u);
    const results = await Promise.all([1, 2, 3, 4].map(() => asAdmin('post', `real_name/${id}/approve`)));
    expect(results.map((r) => r.body.code).sort()).toEqual([1, 2314, 2314, 2314]);
    const decisions = await t.ds.query(`SELECT type, payload, metadata FROM events WHERE stream_id = $1 AND type <> 'IdentityVerificationSubmitted'`, [
      `kyc:${id}`,
    ]);
    expect(decisions).toHaveLength(1);
    expect(decisions[0]).toMatchObject({ type: 'IdentityVerificationApproved', payload: { verificationId: id, userId: u.user.id, level: 1 } });
    expect(decisions[0].metadata.actor).toMatch(/^admin:\d+$/);
    expect((await rows(u.user.id))[0]).toMatchObject({ status: 'verified', reason: null, reviewed_by: expect.any(Number) });
    expect(await levelOf(u.user.id)).toBe(1);
    const messages = await t.ds.query('SELECT title_key, params, ref FROM user_messages WHERE user_id = $1', [u.user.id]);
    expect(messages).toEqual([{ title_key: 'notice.kyc_approved', params: { level: '1' }, ref: `kyc:${id}` }]);
    // A later rejection cannot undo it; the answer says what stands and whose decision it is.
    const reviewer = (await rows(u.user.id))[0].reviewed_by;
    expect((await asAdmin('post', `real_name/${id}/reject`, { reason: 'late' })).body).toMatchObject({
      code: 2314,
      data: { status: 'verified', reviewed_by: reviewer, reviewed_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) },
    });
    expect((await asAdmin('post', `real_name/${id}/approve`)).body).toMatchObject({ code: 2314, message: 'This verification has already been reviewed' });
  });

  it('a rejection needs a reason, stores it, tells the user, and lets them submit again', async () => {
    const u = await registerByEmail(t);
    await post(u, 'user/real_name', await basicForm(u));
    const id = await submitted(u);
    expect((await asAdmin('post', `real_name/${id}/reject`)).body).toMatchObject({ code: 1000, message: 'A reason is required to reject a verification' });
    expect((await asAdmin('post', `real_name/${id}/reject`, { reason: '   ' })).body.code).toBe(1000);
    expect((await asAdmin('post', `real_name/${id}/reject`, { reason: 'x'.repeat(256) })).body).toMatchObject({
      message: 'The reason must be at most 255 characters',
    });
    expect((await rows(u.user.id))[0].status).toBe('review');

    const rejected = await asAdmin('post', `real_name/${id}/reject`, { reason: 'The ID photo is blurry' });
    expect(rejected.body).toMatchObject({ code: 1, message: 'Verification rejected', data: { status: 'rejected', reason: 'The ID photo is blurry' } });
    const [event] = await t.ds.query(`SELECT payload, metadata FROM events WHERE stream_id = $1 AND type = 'IdentityVerificationRejected'`, [`kyc:${id}`]);
    expect(event.metadata).toMatchObject({ reason: 'The ID photo is blurry', actor: expect.stringMatching(/^admin:\d+$/) });
    expect(event.payload).toMatchObject({ verificationId: id, userId: u.user.id, level: 1, reason: 'The ID photo is blurry' });
    expect(await state(u)).toEqual({ basic: 'rejected', advanced: 'unverified', basic_reason: 'The ID photo is blurry', advanced_reason: null });
    expect(await levelOf(u.user.id)).toBe(0);

    const [msg] = await t.ds.query('SELECT title_key, params, ref FROM user_messages WHERE user_id = $1', [u.user.id]);
    expect(msg).toEqual({ title_key: 'notice.kyc_rejected', params: { level: '1', reason: 'The ID photo is blurry' }, ref: `kyc:${id}` });

    const again = await post(u, 'user/real_name', await basicForm(u));
    expect(again.body).toMatchObject({ code: 1, data: { basic: 'review', basic_reason: null } });
    const second = await submitted(u);
    expect(second).not.toBe(id);
    expect((await asAdmin('post', `real_name/${second}/approve`)).body.code).toBe(1);
    expect(await state(u)).toMatchObject({ basic: 'verified', basic_reason: null });
    expect(await levelOf(u.user.id)).toBe(1);
    const keys = await t.ds.query('SELECT title_key, params FROM user_messages WHERE user_id = $1 ORDER BY id', [u.user.id]);
    expect(keys).toEqual([
      { title_key: 'notice.kyc_rejected', params: { level: '1', reason: 'The ID photo is blurry' } },
      { title_key: 'notice.kyc_approved', params: { level: '1' } },
    ]);
  });

  it('operators list by status and level, view one with image links they can open', async () => {
    const u = await registerByEmail(t);
    await post(u, 'user/real_name', await basicForm(u));
    const id = await submitted(u);
    const list = await asAdmin('get', 'real_name', { status: 'review', level: 1, user_id: u.user.id });
    expect(list.body.data).toMatchObject({ total: 1, page: 1, limit: 20, items: [{ id, user_id: u.user.id, account: u.email, status: 'review', level: 1 }] });
    expect((await asAdmin('get', 'real_name', { status: 'verified', user_id: u.user.id })).body.data.total).toBe(0);
    expect((await asAdmin('get', 'real_name', { status: 'bogus' })).body.code).toBe(1000);

    const detail = await asAdmin('get', `real_name/${id}`);
    expect(detail.body.data).toMatchObject({ id, name: 'Ana Lima', id_number: idNumberOf(u), address: 'Rua Augusta 1, Lisboa', same_id_number_user_ids: [] });
    const front = detail.body.data.front_image;
    expect(front.url).toBe(`/api/upload/${front.id}`);
    const img = await t.http().get(front.url).set('Authorization', admin);
    expect(img.headers['content-type']).toBe('image/jpeg');

    const twin = await registerByEmail(t);
    await post(twin, 'user/real_name', { ...(await basicForm(twin)), id_number: idNumberOf(u) });
    expect((await asAdmin('get', `real_name/${await submitted(twin)}`)).body.data.same_id_number_user_ids).toEqual([u.user.id]);
    // The same number with a dash in it is the same number (regression: a dash hid it from the reviewer).
    const dashed = await registerByEmail(t);
    await post(dashed, 'user/real_name', { ...(await basicForm(dashed)), id_number: `${idNumberOf(u).slice(0, 2)}-${idNumberOf(u).slice(2)}` });
    expect((await asAdmin('get', `real_name/${await submitted(dashed)}`)).body.data.same_id_number_user_ids).toEqual([u.user.id, twin.user.id]);
    expect((await asAdmin('get', `real_name/${id}`)).body.data.same_id_number_user_ids).toEqual([twin.user.id, dashed.user.id]);
    // Every read of identity data by an operator is recorded with the operator (regression: none was).
    const [{ id: adminId }] = await t.ds.query('SELECT id FROM admins WHERE email = $1', [ADMIN.email]);
    const reads = await t.ds.query(`SELECT type, payload, metadata FROM events WHERE stream_id = $1 ORDER BY seq`, [`admin:${adminId}`]);
    expect(reads).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          type: 'IdentityVerificationsListed',
          payload: { verificationIds: [id], page: 1, limit: 20 },
          metadata: expect.objectContaining({ actor: `admin:${adminId}` }),
        }),
        expect.objectContaining({ type: 'IdentityVerificationRead', payload: { verificationId: id, userId: u.user.id } }),
        expect.objectContaining({ type: 'UploadRead', payload: { uploadId: front.id, userId: u.user.id } }),
      ]),
    );
    // The owner's own reads of their images are not operators' reads.
    expect((await t.http().get(front.url).set('Authorization', u.token)).status).toBe(200);
    expect(await t.ds.query(`SELECT type FROM events WHERE stream_id = $1 ORDER BY seq`, [`admin:${adminId}`])).toHaveLength(reads.length);
    expect((await asAdmin('get', 'real_name/999999')).body).toMatchObject({ code: 2313, message: 'Verification not found' });
    // A malformed id, or one past the column, is a malformed request (1000), as in every operator route.
    expect((await asAdmin('get', 'real_name/abc')).body).toMatchObject({ code: 1000, message: 'Invalid request' });
    expect((await asAdmin('post', 'real_name/99999999999/approve')).body.code).toBe(1000);
    expect((await asAdmin('get', 'real_name/0')).body.code).toBe(2313);
  });

  it('user tokens never reach the operator routes, and change nothing trying', async () => {
    const u = await registerByEmail(t);
    await post(u, 'user/real_name', await basicForm(u));
    const id = await submitted(u);
    const attempts = [
      t.http().get('/api/admin/real_name').set('Authorization', u.token),
      t.http().get(`/api/admin/real_name/${id}`).set('Authorization', u.token),
      t.http().post(`/api/admin/real_name/${id}/approve`).set('Authorization', u.token),
      t.http().post(`/api/admin/real_name/${id}/reject`).set('Authorization', u.token).type('form').send({ reason: 'x' }),
      t.http().post(`/api/admin/real_name/${id}/approve`),
    ];
    for (const res of await Promise.all(attempts)) expect(res.body).toEqual({ type: '999', code: 401, message: 'Please log in first', data: null });
    expect((await rows(u.user.id))[0].status).toBe('review');
    expect(await levelOf(u.user.id)).toBe(0);
    // And an operator token is not a user session.
    expect((await t.http().post('/api/user/real_name').set('Authorization', admin).type('form').send({})).body.code).toBe(401);
  });

  it('PNG photos are accepted too', async () => {
    const u = await registerByEmail(t);
    const png = async () =>
      (
        await t
          .http()
          .post('/api/upload/image')
          .set('Authorization', u.token)
          .attach('file', makePng(6 + ++seq, 4), { filename: 'p.png', contentType: 'image/png' })
      ).body.data.id;
    const res = await post(u, 'user/real_name', { ...(await basicForm(u)), front_image: await png(), back_image: await png() });
    expect(res.body.code).toBe(1);
  });
});
