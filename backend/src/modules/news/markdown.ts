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
  allowedSchemesByTag: { img: ['https', 'http'] },
  // App routes (`#/pages/...`) and our own images (`/api/...`) are relative; nothing else is.
  allowProtocolRelative: false,
  transformTags: { a: sanitizeHtml.simpleTransform('a', { rel: 'noopener noreferrer nofollow', target: '_blank' }) },
};
ALLOWED.allowedAttributes = { ...ALLOWED.allowedAttributes, a: ['href', 'title', 'rel', 'target'] };

/** Markdown as an operator wrote it → HTML that is safe to put into the page. */
export function renderMarkdown(source: string): string {
  return sanitizeHtml(md.render(source), ALLOWED);
}

/** Rendered, or refused when nothing visible is left (e.g. a body that was only a script). */
export function markdownOrFail(source: string): string {
  const html = renderMarkdown(source);
  if (!html.trim()) throw new BusinessError(ErrorCode.VALIDATION, 'error.news_body_invalid', { field: 'body' });
  return html;
}
