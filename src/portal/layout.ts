// The page shell every portal page shares: landmarks (banner, main navigation, main, contentinfo), a skip
// link, the stylesheet and the deferred script. Nothing is loaded from another origin.
import { html, type Html } from './html';

export type Section = 'search' | 'browse' | 'library' | 'docs' | 'none';

export interface PageAssets {
  stylesheet: string;
  script: string;
  favicon: string;
}

export interface PageOptions {
  title: string;
  section: Section;
  body: Html;
  /** Extra head elements (the API reference's own stylesheet). */
  head?: Html;
  /** A page-specific script that runs after the portal's. */
  script?: string;
  description?: string;
}

const NAV: Array<{ section: Section; href: string; label: string }> = [
  { section: 'search', href: '/', label: 'Search' },
  { section: 'browse', href: '/browse', label: 'Browse' },
  { section: 'library', href: '/alexandria', label: 'Library' },
  { section: 'docs', href: '/docs', label: 'API reference' },
];

export function renderPage(assets: PageAssets, page: PageOptions): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${page.title} · ARD registry</title>
<meta name="description" content="${page.description ?? 'Search and browse the agents, MCP servers, skills and library resources this ARD registry indexes.'}">
<link rel="icon" href="${assets.favicon}" type="image/svg+xml">
<link rel="stylesheet" href="${assets.stylesheet}">
${page.head}
<script src="${assets.script}" defer></script>
${page.script ? html`<script src="${page.script}" defer></script>` : null}
</head>
<body>
<a class="skip-link" href="#main">Skip to content</a>
<header class="site-header">
  <a class="brand" href="/"><span aria-hidden="true" class="brand-mark">◆</span> ARD registry</a>
  <nav aria-label="Main">
    <ul>
      ${NAV.map((item) => html`<li><a href="${item.href}"${item.section === page.section ? html` aria-current="page"` : null}>${item.label}</a></li>`)}
    </ul>
  </nav>
</header>
<main id="main" tabindex="-1">
${page.body}
</main>
<footer class="site-footer">
  <p>An <a href="/docs">ARD</a> registry. Machine-readable: <a href="/.well-known/ai-catalog.json">ai-catalog.json</a>,
  <a href="/llms.txt">llms.txt</a>, <a href="/docs/ard.openapi.yaml">OpenAPI</a>. This site sets no cookies and loads nothing from elsewhere.</p>
</footer>
</body>
</html>
`;
}
