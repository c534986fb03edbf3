// The HTML of GET / for a person who opens the registry in a browser: what it is and where to go next.
// Deliberately bare (no scripts, no styles: the API's CSP forbids both); the JSON variant is home-routes.ts's.
import type { RegistryHome } from './home-routes';

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

export function renderHomePage(home: RegistryHome): string {
  const routes = home.routes.map((r) => `<li><code>${escapeHtml(`${r.method} ${r.path}`)}</code> ${escapeHtml(r.what)}</li>`).join('\n');
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>${escapeHtml(home.name)} ${escapeHtml(home.version)}</title></head>
<body>
<h1>${escapeHtml(home.name)} ${escapeHtml(home.version)}</h1>
<p>${escapeHtml(home.description)}</p>
<h2>Routes</h2>
<ul>
${routes}
</ul>
<p>The API contract: <a href="${escapeHtml(home.openapi.yaml)}">openapi.yaml</a> (<a href="${escapeHtml(home.openapi.json)}">JSON</a>).
Documentation: <a href="${escapeHtml(home.docs)}">${escapeHtml(home.docs)}</a>.</p>
</body>
</html>
`;
}
