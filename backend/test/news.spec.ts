import { adminToken, registerByEmail } from './support/accounts';
import { makePng } from './support/images';
import { ADMIN, startTestApp, TestApp } from './support/test-app';

type Article = { id: number; title: string; summary: string; lang: string; content?: string; cover: string | null; category: string; pinned: boolean };

/** The news CMS on real PostgreSQL + Redis: operator writes, per-language reads with the English fallback, a sanitiser. */
describe('news CMS (real PostgreSQL + Redis)', () => {
  let t: TestApp;
  let admin: string;
  let announcement: number;
  let faq: number;
  let newsCategory: number;
  beforeAll(async () => {
    t = await startTestApp({ optionWorker: false });
    admin = await adminToken(t, ADMIN.email, ADMIN.password);
    const cats = (await get('news/list', {}, 'en')).body.data.categories as Array<{ id: number; code: string; name: string }>;
    announcement = cats.find((c) => c.code === 'announcement')!.id;
    faq = cats.find((c) => c.code === 'faq')!.id;
    newsCategory = cats.find((c) => c.code === 'news')!.id;
  });
  afterAll(() => t.close());

  const post = (token: string, path: string, body: Record<string, unknown> = {}, lang = 'en') =>
    t.http().post(`/api/${path}`).set('Authorization', token).set('lang', lang).type('form').send(body);
  const get = (path: string, query: Record<string, unknown> = {}, lang = 'en', token = '') =>
    t.http().get(`/api/${path}`).set('lang', lang).set('Authorization', token).query(query);
  const counts = async () =>
    (
      await t.ds.query(
        `SELECT (SELECT COUNT(*) FROM news_articles)::int AS a, (SELECT COUNT(*) FROM news_translations)::int AS tr, (SELECT COUNT(*) FROM news_banners)::int AS b,
                (SELECT COUNT(*) FROM news_categories)::int AS c, (SELECT COUNT(*) FROM events WHERE stream_id LIKE 'news-%')::int AS e`,
      )
    )[0];
  async function article(category: number, title: string, extra: Record<string, unknown> = {}) {
    const r = await post(admin, 'admin/news/articles', {
      category_id: category,
      lang: 'en',
      title,
      summary: `${title} in short`,
      body: `Body of **${title}**`,
      reason: 'publish',
      ...extra,
    });
    expect(r.body).toMatchObject({ code: 1, message: 'Saved' });
    return r.body.data.id as number;
  }

  it('the standing categories in the request language; FAQ is a category the help centre lists', async () => {
    const zh = (await get('news/list', {}, 'zh')).body.data.categories;
    expect(zh.map((c: { code: string; name: string }) => [c.code, c.name])).toEqual([
      ['announcement', '公告'],
      ['news', '资讯'],
      ['faq', '常见问题'],
    ]);
    // An unsupported language header reads English.
    expect((await get('news/list', {}, 'xx')).body.data.categories[0].name).toBe('Announcements');
  });

  it('an article appears in the reader’s language, falls back to English, and keeps a stored XSS attempt inert', async () => {
    const png = await t
      .http()
      .post('/api/admin/news/images')
      .set('Authorization', admin)
      .attach('file', makePng(32, 16), { filename: 'c.png', contentType: 'image/png' });
    expect(png.body.code).toBe(1);
    const id = await article(announcement, 'Maintenance window', {
      cover_image_id: png.body.data.id,
      body: 'Read **this**.\n\n<script>alert(document.cookie)</script>\n\n[x](javascript:alert(1)) <img src=x onerror=alert(1)>',
    });
    const zh = await post(admin, `admin/news/articles/${id}/translations`, {
      lang: 'zh',
      title: '维护窗口',
      summary: '简介',
      body: '请阅读 **此处**。<script>alert(1)</script>',
      reason: 'translate',
    });
    expect(zh.body.code).toBe(1);

    const inZh = (await get('newsArticle/detailed', { id }, 'zh')).body.data as Article;
    expect(inZh).toMatchObject({ id, title: '维护窗口', summary: '简介', lang: 'zh', category: 'announcement', category_name: '公告' });
    const inJp = (await get('newsArticle/detailed', { id }, 'jp')).body.data as Article;
    expect(inJp).toMatchObject({ title: 'Maintenance window', lang: 'en', category_name: 'お知らせ' });
    for (const html of [inZh.content!, inJp.content!]) {
      expect(html).toContain('<strong>');
      // Only escaped text is left: no script or image element, no handler or script URL in any tag.
      expect(html).not.toMatch(/<(script|img)\b/i);
      expect(html).not.toMatch(/<[^>]*\son\w+=/i);
      expect(html).not.toMatch(/<[^>]*href="\s*javascript:/i);
    }
    expect(inJp.content).toContain('&lt;script&gt;');
    // The cover is public (an image, not an envelope); unknown images are 2904.
    const cover = await t.http().get(inZh.cover!);
    expect(cover.status).toBe(200);
    expect(cover.headers['content-type']).toBe('image/png');
    expect((await t.http().get('/api/news/image/00000000-0000-0000-0000-000000000000')).body.code).toBe(2904);
    // A scheduled article's cover is served too: the operators' lists link to it for a preview (its id is a random UUID).
    const later = await t
      .http()
      .post('/api/admin/news/images')
      .set('Authorization', admin)
      .attach('file', makePng(16, 16), { filename: 'l.png', contentType: 'image/png' });
    await article(announcement, 'Not yet', { cover_image_id: later.body.data.id, published_at: new Date(Date.now() + 86_400_000).toISOString() });
    expect((await t.http().get(`/api/news/image/${later.body.data.id}`)).status).toBe(200);

    const list = (await get('newsArticle/list', { category: 'announcement' }, 'zh')).body.data;
    expect(list.items.find((a: Article) => a.id === id)).toMatchObject({ title: '维护窗口', lang: 'zh' });
    expect(list.items[0].content).toBeUndefined();
  });

  // Regression: the docs promised images in bodies, but outside ones were blocked by the CSP and news/image served only covers and banners.
  it('images in an article body: uploaded for news and shown through news/image while the article lives; other sources refused, nothing stored', async () => {
    const upload = async (w: number) =>
      (await t.http().post('/api/admin/news/images').set('Authorization', admin).attach('file', makePng(w, 12), { filename: 'i.png', contentType: 'image/png' })).body
        .data.id as string;
    const [inEnglish, inChinese] = [await upload(20), await upload(21)];
    const id = await article(newsCategory, 'How to read the chart', { body: `Like this:\n\n![The chart](/api/news/image/${inEnglish})` });
    const zh = await post(admin, `admin/news/articles/${id}/translations`, { lang: 'zh', title: '如何看图', body: `![图](/api/news/image/${inChinese})`, reason: 'translate' });
    expect(zh.body.code).toBe(1);
    const html = (await get('newsArticle/detailed', { id })).body.data.content as string;
    expect(html).toContain(`<img src="/api/news/image/${inEnglish}" alt="The chart" />`);
    for (const image of [inEnglish, inChinese]) {
      const r = await t.http().get(`/api/news/image/${image}`);
      expect([r.status, r.headers['content-type']]).toEqual([200, 'image/png']);
    }

    // Outside images, a user's upload and an id that is no upload are refused; nothing is stored.
    const user = await registerByEmail(t);
    const own = (
      await t.http().post('/api/upload/image').set('Authorization', user.token).attach('file', makePng(9, 9), { filename: 'u.png', contentType: 'image/png' })
    ).body.data.id as string;
    const before = await counts();
    for (const [src, code, message] of [
      ['https://example.com/a.png', 1000, 'Images in an article must be uploaded for news (/api/news/image/<id>)'],
      [`/api/upload/${own}`, 1000, 'Images in an article must be uploaded for news (/api/news/image/<id>)'],
      [`/api/news/image/${own}`, 2301, ''],
      ['/api/news/image/00000000-0000-0000-0000-000000000000', 2301, ''],
    ] as Array<[string, number, string]>) {
      for (const r of [
        await post(admin, 'admin/news/articles', { category_id: newsCategory, lang: 'en', title: 'x', body: `![x](${src})`, reason: 'r' }),
        await post(admin, `admin/news/articles/${id}/translations`, { lang: 'jp', title: 'x', body: `![x](${src})`, reason: 'r' }),
      ]) {
        expect({ src, code: r.body.code }).toEqual({ src, code });
        if (message) expect(r.body.message).toBe(message);
      }
    }
    expect(await counts()).toEqual(before);
    expect((await t.http().get(`/api/news/image/${own}`)).body.code).toBe(2904);

    // A translation that drops its image stops serving it; a deleted article serves none.
    expect((await post(admin, `admin/news/articles/${id}/translations`, { lang: 'zh', title: '如何看图', body: '没有图片', reason: 'r' })).body.code).toBe(1);
    expect((await t.http().get(`/api/news/image/${inChinese}`)).body.code).toBe(2904);
    expect((await post(admin, `admin/news/articles/${id}/delete`, { reason: 'outdated' })).body.code).toBe(1);
    expect((await t.http().get(`/api/news/image/${inEnglish}`)).body.code).toBe(2904);
  });

  it('paging: pinned first, then newest; scheduled and deleted articles are hidden; recommended list', async () => {
    const ids: number[] = [];
    for (let i = 1; i <= 5; i++)
      ids.push(await article(faq, `FAQ ${i}`, { published_at: new Date(Date.UTC(2026, 0, i)).toISOString(), recommended: i % 2 ? '1' : '0' }));
    await article(faq, 'Tomorrow', { published_at: new Date(Date.now() + 86_400_000).toISOString() });
    expect((await post(admin, `admin/news/articles/${ids[0]}`, { pinned: '1', reason: 'important' })).body.code).toBe(1);
    const p1 = (await get('newsArticle/list', { category: 'faq', page: 1, limit: 2 })).body.data;
    const p3 = (await get('newsArticle/list', { category: 'faq', page: 3, limit: 2 })).body.data;
    expect(p1).toMatchObject({ total: 5, page: 1, limit: 2 });
    expect(p1.items.map((a: Article) => a.title)).toEqual(['FAQ 1', 'FAQ 5']);
    expect(p3.items.map((a: Article) => a.title)).toEqual(['FAQ 2']);
    expect((await post(admin, `admin/news/articles/${ids[4]}/delete`, { reason: 'outdated' })).body.code).toBe(1);
    expect((await get('newsArticle/list', { category: 'faq' })).body.data.total).toBe(4);
    expect((await get('newsArticle/detailed', { id: ids[4] })).body).toMatchObject({ code: 2901, message: 'Article not found' });
    const rec = (await get('newsRecommend/list')).body.data;
    expect(rec.items.map((a: Article) => a.title)).toEqual(['FAQ 1', 'FAQ 3']);
    // news/list: categories and the articles of one.
    const both = (await get('news/list', { category: 'faq', limit: 1 })).body.data;
    expect(both).toMatchObject({ total: 4, items: [expect.objectContaining({ title: 'FAQ 1' })] });
    expect(both.categories.find((c: { code: string }) => c.code === 'faq').count).toBe(4);
  });

  it('banners: image, link to a route or an article, order, active window', async () => {
    const img = (
      await t.http().post('/api/admin/news/images').set('Authorization', admin).attach('file', makePng(75, 30), { filename: 'b.png', contentType: 'image/png' })
    ).body.data.id;
    const art = await article(announcement, 'Banner target');
    const now = Date.now();
    const mk = (body: Record<string, unknown>) => post(admin, 'admin/news/banners', { image_id: img, reason: 'campaign', ...body });
    expect((await mk({ titles: '{"en":"Second","zh":"第二"}', link_type: 'route', link: '/pages/promotion/index', sort: 2 })).body.code).toBe(1);
    expect((await mk({ titles: '{"en":"First"}', link_type: 'article', link: String(art), sort: 1 })).body.code).toBe(1);
    expect(
      (await mk({ titles: '{"en":"Expired"}', sort: 0, starts_at: new Date(now - 7200_000).toISOString(), ends_at: new Date(now - 3600_000).toISOString() }))
        .body.code,
    ).toBe(1);
    expect((await mk({ titles: '{"en":"Later"}', sort: 0, starts_at: new Date(now + 3600_000).toISOString() })).body.code).toBe(1);
    const zh = (await get('news/banner', {}, 'zh')).body.data;
    expect(zh.map((b: { title: string; link_type: string; link: string }) => [b.title, b.link_type, b.link])).toEqual([
      ['First', 'article', String(art)],
      ['第二', 'route', '/pages/promotion/index'],
    ]);
    expect((await t.http().get(zh[0].image)).headers['content-type']).toBe('image/png');
    // Its article deleted: the banner stays and links nowhere (regression: it opened "Article not found").
    expect((await post(admin, `admin/news/articles/${art}/delete`, { reason: 'withdrawn' })).body.code).toBe(1);
    const after = (await get('news/banner')).body.data;
    expect(after.map((b: { title: string; link_type: string; link: string }) => [b.title, b.link_type, b.link])).toEqual([
      ['First', 'none', ''],
      ['Second', 'route', '/pages/promotion/index'],
    ]);
  });

  it('operator-only: a user token or none never opens the CMS; every change is an event with the operator and reason', async () => {
    const u = await registerByEmail(t);
    const before = await counts();
    for (const token of [u.token, '']) {
      expect((await post(token, 'admin/news/articles', { category_id: announcement, lang: 'en', title: 'x', body: 'y', reason: 'r' })).body.code).toBe(401);
      expect((await post(token, 'admin/news/categories', { code: 'promo', names: '{"en":"Promo"}', reason: 'r' })).body.code).toBe(401);
      expect((await post(token, 'admin/news/banners', { image_id: '00000000-0000-0000-0000-000000000000', reason: 'r' })).body.code).toBe(401);
    }
    expect(await counts()).toEqual(before);
    const cat = await post(admin, 'admin/news/categories', { code: 'guides', names: '{"en":"Guides","zh":"指南"}', sort: 9, reason: 'new section' });
    expect(cat.body).toMatchObject({ code: 1, data: { code: 'guides' } });
    const [ev] = await t.ds.query(`SELECT type, metadata FROM events WHERE stream_id = $1`, [`news-category:${cat.body.data.id}`]);
    expect(ev).toMatchObject({ type: 'NewsCategoryCreated', metadata: { actor: expect.stringMatching(/^admin:\d+$/), reason: 'new section' } });
  });

  it('bad input gets a clear message and changes nothing', async () => {
    const id = await article(announcement, 'Stable');
    const before = await counts();
    const cases: Array<[string, Record<string, unknown>, number, string]> = [
      [
        'admin/news/articles',
        { category_id: announcement, lang: 'zh', title: '只有中文', body: 'x', reason: 'r' },
        2905,
        'Write the English version first: other languages fall back to it',
      ],
      ['admin/news/articles', { category_id: 999, lang: 'en', title: 'x', body: 'x', reason: 'r' }, 2900, 'Category not found'],
      ['admin/news/articles', { category_id: announcement, lang: 'en', title: '', body: 'x', reason: 'r' }, 1000, 'The title must be 1 to 200 characters'],
      ['admin/news/articles', { category_id: announcement, lang: 'en', title: '   ', body: 'x', reason: 'r' }, 1000, 'The title must be 1 to 200 characters'],
      ['admin/news/articles', { category_id: announcement, lang: 'en', title: 'x', body: 'x' }, 1000, 'A reason is required'],
      [
        'admin/news/articles',
        { category_id: announcement, lang: 'en', title: 'x', body: 'x', reason: 'r', published_at: 'tomorrow' },
        1000,
        'Enter a valid time (ISO 8601)',
      ],
      // A time without its zone (read in the server's own zone: hours off), an ISO week or ordinal
      // date (no time `new Date` reads: a 500 at the insert) — refused (regression: accepted).
      ...['2026-12-01T10:00:00', '2026-12-01 10:00', '2026-W49', '2026-335', '2026-12-01'].map(
        (published_at) =>
          ['admin/news/articles', { category_id: announcement, lang: 'en', title: 'x', body: 'x', reason: 'r', published_at }, 1000, 'Enter a valid time (ISO 8601)'] as [
            string,
            Record<string, unknown>,
            number,
            string,
          ],
      ),
      ['admin/news/articles', { category_id: announcement, lang: 'en', title: 'x', body: 'x', reason: 'r', pinned: 'yes' }, 1000, 'Use 1 or 0'],
      [
        'admin/news/articles',
        { category_id: announcement, lang: 'en', title: 'x', body: 'x', reason: 'r', cover_image_id: '00000000-0000-0000-0000-000000000000' },
        2301,
        '',
      ],
      [`admin/news/articles/${id}/translations`, { lang: 'xx', title: 'x', body: 'x', reason: 'r' }, 1000, 'Unsupported language'],
      ['admin/news/articles/999999/translations', { lang: 'zh', title: 'x', body: 'x', reason: 'r' }, 2901, 'Article not found'],
      [`admin/news/articles/${id}`, { pinned: '1', reason: 'r', evil: '1' }, 1001, ''],
      ['admin/news/categories', { code: 'announcement', names: '{"en":"Dup"}', reason: 'r' }, 2903, 'A category with this code already exists'],
      ['admin/news/categories', { code: 'Bad Code', names: '{"en":"x"}', reason: 'r' }, 1000, 'The code is 2 to 32 lower-case letters, digits, - or _'],
      [
        'admin/news/categories',
        { code: 'nolang', names: '{"zh":"只有中文"}', reason: 'r' },
        1000,
        'names: a JSON object of language to text (1 to 40 characters each), with English',
      ],
      // A banner's titles have their own limit, and English is not required of them.
      [
        'admin/news/banners',
        { image_id: '00000000-0000-0000-0000-000000000000', titles: JSON.stringify({ zh: 'x'.repeat(121) }), reason: 'r' },
        1000,
        'titles: a JSON object of language to text (1 to 120 characters each)',
      ],
      ['admin/news/banners', { reason: 'r' }, 1000, 'Choose an image to upload'],
      ['admin/news/banners', { image_id: '00000000-0000-0000-0000-000000000000', reason: 'r' }, 2301, ''],
      ['admin/news/banners/999999', { sort: 1, reason: 'r' }, 2902, 'Banner not found'],
    ];
    for (const [path, body, code, message] of cases) {
      const r = await post(admin, path, body);
      expect({ path, code: r.body.code, data: r.body.data }).toEqual({ path, code, data: null });
      if (message) expect(r.body.message).toBe(message);
    }
    // Banner links must fit their type; the window must not be reversed.
    const img = (
      await t.http().post('/api/admin/news/images').set('Authorization', admin).attach('file', makePng(8, 8), { filename: 'b.png', contentType: 'image/png' })
    ).body.data.id;
    for (const [body, code, message] of [
      [{ link_type: 'route', link: 'https://evil.example' }, 1000, 'The link is an app route starting with / or an article id'],
      [{ link_type: 'article', link: '999999' }, 2901, 'Article not found'],
      [{ starts_at: '2026-02-01T00:00:00Z', ends_at: '2026-01-01T00:00:00Z' }, 1000, 'The end of the active window must be after its start'],
    ] as const) {
      const r = await post(admin, 'admin/news/banners', { image_id: img, reason: 'r', ...body });
      expect(r.body).toMatchObject({ code, message, data: null });
    }
    // Public reads with bad input.
    expect((await get('newsArticle/detailed', { id: 'abc' })).body).toMatchObject({ code: 1000, message: 'Article not found' });
    expect((await get('newsArticle/list', { category: 'nope' })).body).toMatchObject({ code: 2900, message: 'Category not found' });
    expect((await get('newsArticle/list', { category: 'faq', limit: 101 })).body.code).toBe(1000);
    expect(await counts()).toEqual(before);
  });
});
