import MarkdownIt from 'markdown-it';
import { BusinessError } from '../../infra/http/business-error';
import { ErrorCode } from '../../infra/http/error-codes';
import sanitizeHtml from 'sanitize-html';

// Raw HTML in the Markdown is not passed through (html: false); the sanitiser then checks the
// rendered HTML again, so a stored XSS attempt (a script, an event handler, a javascript: link)
// comes out as inert text or not at all, whatever markdown-it does.
const md = new MarkdownIt({ html: false, linkify: true, breaks: true });

const ALLOWED: sanitizeHtml.IOptions = {
  allowedTags: [
    'p',
    'br',
    'hr',
    'h1',
    'h2',
    'h3',
    'h4',
    'h5',
    'h6',
    'strong',
    'em',
    's',
    'del',
    'code',
    'pre',
    'blockquote',
    'ul',
    'ol',
    'li',
    'a',
    'img',
    'table',
    'thead',
    'tbody',
    'tr',
    'th',
    'td',
  ],
  allowedAttributes: { a: ['href', 'title'], img: ['src', 'alt', 'title'], th: ['style'], td: ['style'], ol: ['start'] },
  allowedStyles: { th: { 'text-align': [/^(left|right|center)$/] }, td: { 'text-align': [/^(left|right|center)$/] } },
  allowedSchemes: ['https', 'http', 'mailto'],
  // Images only from our own route (relative, no scheme): articleBody refuses any other source.
  allowedSchemesByTag: { img: [] },
  // App routes (`#/pages/...`) and our own images (`/api/...`) are relative; nothing else is.
  allowProtocolRelative: false,
  transformTags: { a: sanitizeHtml.simpleTransform('a', { rel: 'noopener noreferrer nofollow', target: '_blank' }) },
};
ALLOWED.allowedAttributes = { ...ALLOWED.allowedAttributes, a: ['href', 'title', 'rel', 'target'] };

/** Markdown as an operator wrote it → HTML that is safe to put into the page. */
export function renderMarkdown(source: string): string {
  return sanitizeHtml(md.render(source), ALLOWED);
}

/** The one source an article's image may have: an image uploaded for news, served by `news/image`. */
const NEWS_IMAGE_SRC = /^\/api\/news\/image\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;

/** Every image's source in the Markdown, as markdown-it reads it (raw HTML is text, so these are all). */
function imageSources(tokens: ReturnType<typeof md.parse>): string[] {
  const found: string[] = [];
  for (const token of tokens) {
    if (token.type === 'image') found.push(token.attrGet('src') ?? '');
    if (token.children) found.push(...imageSources(token.children));
  }
  return found;
}

/**
 * An article's body: the safe HTML and the uploads its images show (the route serves an image only
 * while a live article or banner uses it). Refused when nothing visible is left (e.g. a body that
 * was only a script), or when an image comes from anywhere else: the page's CSP shows no outside
 * images (nor would we send readers' addresses to other sites), and no other route serves the public.
 */
export function articleBody(source: string): { html: string; images: string[] } {
  const images = new Set<string>();
  const env = {};
  const tokens = md.parse(source, env);
  for (const src of imageSources(tokens)) {
    const own = NEWS_IMAGE_SRC.exec(src);
    if (!own) throw new BusinessError(ErrorCode.VALIDATION, 'error.news_image_invalid', { field: 'body' });
    images.add(own[1].toLowerCase());
  }
  // Rendered from the tokens just checked (one parse: what is shown is what was checked).
  const html = sanitizeHtml(md.renderer.render(tokens, md.options, env), ALLOWED);
  if (!html.trim()) throw new BusinessError(ErrorCode.VALIDATION, 'error.news_body_invalid', { field: 'body' });
  return { html, images: [...images] };
}
