/**
 * HTML discovery: `<link rel="ard" href="...">` (ARD v0.91 §5.1, which a consumer MUST honour) and the
 * predecessor's `<link rel="ai-catalog" href="...">` (v0.9 §6.1) in a page's <head>.
 */
import { Parser } from 'htmlparser2';

export const AI_CATALOG_REL = 'ai-catalog';
export const ARD_REL = 'ard';

/**
 * Returns the absolute http(s) URLs of every `<link>` whose rel token list contains
 * `ard` or `ai-catalog` (tokens are space separated, case-insensitive): the `ard` ones first,
 * each kind in document order, de-duplicated. Only the head counts: parsing stops at `<body>` (or at the first
 * body content tag when the page omits <head>/<body>). A `<base href>` in the head
 * is honoured, as browsers do.
 */
export function findCatalogLinks(html: string, baseUrl: string | URL): string[] {
  let base = new URL(String(baseUrl));
  const ard: string[] = [];
  const legacy: string[] = [];
  let done = false;

  const parser = new Parser(
    {
      onopentag(name, attribs) {
        if (done) return;
        switch (name) {
          case 'body':
            done = true;
            return;
          case 'base': {
            const href = attribs['href'];
            if (href !== undefined) {
              try {
                base = new URL(href.trim(), base);
              } catch {
                // An unparsable <base> is ignored, as in browsers.
              }
            }
            return;
          }
          case 'link': {
            const rel = (attribs['rel'] ?? '').toLowerCase().split(/[\t\n\f\r ]+/);
            const href = attribs['href']?.trim();
            const found = rel.includes(ARD_REL) ? ard : rel.includes(AI_CATALOG_REL) ? legacy : null;
            if (!found || !href) return;
            let resolved: URL;
            try {
              resolved = new URL(href, base);
            } catch {
              return;
            }
            if (resolved.protocol !== 'http:' && resolved.protocol !== 'https:') return;
            resolved.hash = '';
            if (!found.includes(resolved.href)) found.push(resolved.href);
            return;
          }
          default:
            if (!HEAD_CONTENT.has(name)) done = true;
        }
      },
      onclosetag(name) {
        if (name === 'head') done = true;
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  parser.end();
  return [...ard, ...legacy.filter((url) => !ard.includes(url))];
}

// Elements that may appear before <body> without implying it (HTML "in head" insertion mode).
const HEAD_CONTENT = new Set(['html', 'head', 'title', 'meta', 'link', 'base', 'style', 'script', 'noscript', 'template']);
