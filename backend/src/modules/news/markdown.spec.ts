import { renderMarkdown } from './markdown';

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
