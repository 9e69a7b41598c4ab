import { BusinessError } from '../../infra/http/business-error';
import { articleBody, renderMarkdown } from './markdown';

describe('renderMarkdown', () => {
  it('renders Markdown (headings, lists, links, emphasis)', () => {
    const html = renderMarkdown('# Title\n\n- **one**\n- [docs](https://example.com)');
    expect(html).toContain('<h1>Title</h1>');
    expect(html).toContain('<strong>one</strong>');
    expect(html).toContain('<a href="https://example.com" rel="noopener noreferrer nofollow" target="_blank">docs</a>');
  });

  it.each([
    '<script>alert(1)</script>',
    '<img src=x onerror=alert(1)>',
    '[click](javascript:alert(1))',
    '![x](javascript:alert(1))',
    '[x](JaVaScRiPt:alert(1))',
    '<a href="javascript:alert(1)">x</a>',
    '<iframe src="https://evil.example"></iframe>',
    '<svg onload=alert(1)>',
  ])('makes %s inert (no script element, handler or script URL survives as markup)', (source) => {
    const html = renderMarkdown(source).toLowerCase();
    expect(html).not.toMatch(/<(script|iframe|svg)\b/);
    expect(html).not.toMatch(/<[^>]+\son\w+=/);
    expect(html).not.toMatch(/<[^>]*(href|src)="\s*javascript:/);
    expect(html).not.toMatch(/<img\b/);
  });

  it('keeps the text of an escaped script visible, not executable', () => {
    expect(renderMarkdown('<script>alert(1)</script>')).toBe('<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>\n');
  });
});

describe('articleBody', () => {
  const id = '3f2b8c1e-4d5a-4b6c-8e7f-9a0b1c2d3e4f';

  it('keeps images from the news image route and names them (the route serves only images an article uses)', () => {
    const { html, images } = articleBody(`See:\n\n![Chart](/api/news/image/${id})\n\n![Again](/api/news/image/${id.toUpperCase()})`);
    expect(html).toContain(`<img src="/api/news/image/${id}" alt="Chart" />`);
    expect(images).toEqual([id]);
    expect(articleBody('No pictures here').images).toEqual([]);
  });

  // Regression: outside images were kept but could never show (the CSP allows none), and our own route refused body images.
  it.each([
    'https://example.com/a.png',
    'http://example.com/a.png',
    '//example.com/a.png',
    `/api/upload/${id}`,
    `/api/news/image/${id}/../../upload/${id}`,
    'data:image/png;base64,AAAA',
  ])('refuses an image from %s with a clear error', (src) => {
    let err: unknown;
    try {
      articleBody(`![x](${src})`);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(BusinessError);
    expect(err).toMatchObject({ code: 1000, messageKey: 'error.news_image_invalid' });
  });
});
