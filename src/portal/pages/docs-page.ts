// `/docs`: the API reference, rendered in the browser by Swagger UI (swagger-ui-dist, served from this
// registry) from the OpenAPI document in openapi/, which it reads at /docs/ard.openapi.yaml.
import { html } from '../html';
import type { PageOptions } from '../layout';

export function docsPage(assets: { stylesheet: string; script: string; bundle: string }): PageOptions & { status: number } {
  return {
    title: 'API reference',
    section: 'docs',
    status: 200,
    head: html`<link rel="stylesheet" href="${assets.stylesheet}"><script src="${assets.bundle}" defer></script>`,
    script: assets.script,
    body: html`<h1>API reference</h1>
<p class="lead">The ARD API this registry serves, from its OpenAPI document
(<a href="/docs/ard.openapi.yaml">ard.openapi.yaml</a>, with <a href="/docs/ai-catalog.schema.json">ai-catalog.schema.json</a>).
Every route answers JSON; this site itself uses only these routes.</p>
<noscript><p class="notice">The interactive reference needs JavaScript. The document itself is plain YAML: <a href="/docs/ard.openapi.yaml">ard.openapi.yaml</a>.</p></noscript>
<div id="api-reference" class="api-reference" data-spec="/docs/ard.openapi.yaml"></div>`,
  };
}
