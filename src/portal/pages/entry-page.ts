// `/entry/<identifier>`: one entry from GET /agents/{identifier}: what it is, how to connect (with an MCP
// client snippet where the entry says how the server runs), its tools, publisher, trust, and the raw JSON.
import { html, safeHref, type Html } from '../html';
import { entryApiPath, publisherOf, typeLabel } from '../labels';
import type { PageOptions } from '../layout';
import { LIVENESS_HEADER_NAME, livenessText, parseLivenessHeader } from '../liveness-text';
import { MCP_SERVER_CARD_TYPE, mcpClientConfig, mcpClientConfigJson } from '../../catalog/mcp-client-config';
import type { CatalogEntry, RegistryApi, TrustManifest } from '../registry-api';
import { browseUrl, listFilterFor } from './browse-page';
import { ALEXANDRIA_TYPE, libraryRecordPath, libraryUrl } from './library-page';

export async function entryPage(api: RegistryApi, identifier: string): Promise<PageOptions & { status: number }> {
  const answer = await api.getEntry(identifier);
  if (!answer.ok) {
    const title = answer.status === 404 ? 'No such entry' : 'This entry cannot be shown';
    return {
      title,
      section: 'none',
      status: answer.status,
      body: html`<h1>${title}</h1><p>${answer.message}</p><p><a href="/">Search the registry</a> or <a href="/browse">browse the index</a>.</p>`,
    };
  }
  const entry = answer.body;
  const body = html`<article class="entry" aria-labelledby="entry-heading">
  <header class="entry-header">
    <p class="entry-meta"><span class="badge">${typeLabel(entry.type)}</span>${entry.version ? html` <span>version ${entry.version}</span>` : null}${entry.updatedAt ? html` <span>updated ${entry.updatedAt.slice(0, 10)}</span>` : null}</p>
    <h1 id="entry-heading">${entry.displayName}</h1>
    <p class="identifier"><code>${entry.identifier}</code></p>
    ${entry.description ? html`<p class="lead">${entry.description}</p>` : null}
  </header>
  ${connectSection(entry)}
  ${livenessSection(parseLivenessHeader(answer.headers?.[LIVENESS_HEADER_NAME]))}
  ${toolsSection(entry)}
  ${tagsSection(entry)}
  ${entry.representativeQueries?.length ? html`<section aria-labelledby="queries-heading"><h2 id="queries-heading">Asked for as</h2><ul>${entry.representativeQueries.map((q) => html`<li><a href="/?q=${encodeURIComponent(q)}">${q}</a></li>`)}</ul></section>` : null}
  ${publisherSection(entry)}
  ${trustSection(entry.trustManifest as TrustManifest | undefined)}
  ${metadataSection(entry)}
  <section aria-labelledby="json-heading">
    <h2 id="json-heading">Raw JSON</h2>
    <p>As the API returns it: <a href="${entryApiPath(entry.identifier)}"><code>GET ${entryApiPath(entry.identifier)}</code></a>.</p>
    <details><summary>Show the entry’s JSON</summary><pre class="code" tabindex="0" aria-label="The entry as JSON"><code>${JSON.stringify(entry, null, 2)}</code></pre></details>
  </section>
</article>`;
  return { title: entry.displayName, section: 'none', body, status: 200, description: entry.description };
}

function connectSection(entry: CatalogEntry): Html {
  const url = safeHref(entry.url);
  const config = mcpClientConfig(entry);
  const alexandriaId = entry.type === ALEXANDRIA_TYPE ? stringValue(entry.metadata?.alexandria_id) : undefined;
  const record = alexandriaId ? libraryRecordPath(alexandriaId) : undefined;
  return html`<section aria-labelledby="connect-heading">
  <h2 id="connect-heading">${entry.type === ALEXANDRIA_TYPE ? 'Read it' : 'How to connect'}</h2>
  ${url ? html`<p>${linkLabel(entry)}: <a href="${url}">${entry.url}</a></p>` : null}
  ${entry.data ? html`<p>The full ${typeLabel(entry.type)} document is held inline in the entry (see the raw JSON below).</p>` : null}
  ${record ? html`<p>Library record: <a href="/${record}"><code>/${record}</code></a> (also served by the MCP tool <code>get_resource</code> at <code>/mcp</code>).</p>` : null}
  ${
    config
      ? html`<div class="snippet">
    <h3 id="snippet-heading">MCP client configuration</h3>
    <p>Add this to your MCP client’s configuration (<code>mcpServers</code> in Claude Desktop, Cursor, Claude Code and others), read from ${config.readFrom}.
    Servers that need keys or tokens also need their environment variables; see the server’s documentation.</p>
    <pre class="code" tabindex="0" aria-labelledby="snippet-heading"><code id="mcp-snippet">${mcpClientConfigJson(config)}</code></pre>
    <button type="button" class="button" data-copy="mcp-snippet" hidden>Copy configuration</button>
    <p class="copy-status" role="status" aria-live="polite"></p>
  </div>`
      : entry.type === MCP_SERVER_CARD_TYPE
        ? html`<p class="muted">The entry does not say how the server is started, so there is no client snippet; ${url ? 'its server card or repository (above) does' : 'ask its publisher'}.</p>`
        : null
  }
</section>`;
}

function linkLabel(entry: CatalogEntry): string {
  switch (entry.type) {
    case ALEXANDRIA_TYPE:
      return 'Canonical address';
    case MCP_SERVER_CARD_TYPE:
      return 'Server card or repository';
    case 'application/a2a-agent-card+json':
      return 'Agent card';
    default:
      return 'Document';
  }
}

/** Each tag links to its entries: a library topic's page for the library, the listing otherwise. */
function tagsSection(entry: CatalogEntry): Html | null {
  const tags = entry.tags ?? [];
  if (tags.length === 0) return null;
  const library = entry.type === ALEXANDRIA_TYPE;
  const href = (tag: string) => (library ? libraryUrl({ topic: tag }) : browseUrl({ filter: listFilterFor('tags', tag) }));
  return html`<section aria-labelledby="tags-heading"><h2 id="tags-heading">${library ? 'Topics' : 'Tags'}</h2>
  <ul class="tags">${tags.map((t) => html`<li><a href="${href(t)}">${t}</a></li>`)}</ul></section>`;
}

function toolsSection(entry: CatalogEntry): Html | null {
  const tools = entry.capabilities ?? [];
  if (tools.length === 0) return null;
  const heading = entry.type === MCP_SERVER_CARD_TYPE ? 'Tools' : entry.type === ALEXANDRIA_TYPE ? 'Use cases' : 'Capabilities';
  return html`<section aria-labelledby="tools-heading"><h2 id="tools-heading">${heading} <span class="count">${tools.length}</span></h2>
  <ul class="tools">${tools.map((t) => html`<li><code>${t}</code></li>`)}</ul></section>`;
}

function publisherSection(entry: CatalogEntry): Html {
  const publisher = publisherOf(entry.identifier);
  const m = entry.metadata ?? {};
  const people = ['author', 'provider', 'authors'].map((k) => [k, stringValue(m[k])] as const).filter(([, v]) => v);
  const links = ['homepage', 'repositoryUrl', 'documentationUrl']
    .map((k) => [k, safeHref(stringValue(m[k]))] as const)
    .filter(([, v]) => v);
  return html`<section aria-labelledby="publisher-heading">
  <h2 id="publisher-heading">Publisher</h2>
  <dl class="facts">
    <dt>Publisher domain</dt><dd><a href="${browseUrl({ filter: listFilterFor('publisher', publisher) })}">${publisher}</a> <span class="muted">(from the identifier; everything it publishes here)</span></dd>
    ${people.map(([k, v]) => html`<dt>${k === 'authors' ? 'Authors' : k === 'author' ? 'Author' : 'Provider'}</dt><dd>${v}</dd>`)}
    ${links.map(([k, v]) => html`<dt>${k === 'homepage' ? 'Home page' : k === 'repositoryUrl' ? 'Repository' : 'Documentation'}</dt><dd><a href="${v}">${v}</a></dd>`)}
  </dl>
</section>`;
}

/** What the registry's probes found (the Registry-Liveness header); nothing when the API sent none. */
function livenessSection(members: Record<string, string> | null): Html | null {
  if (!members) return null;
  const { headline, facts } = livenessText(members);
  return html`<section aria-labelledby="liveness-heading"><h2 id="liveness-heading">Liveness</h2>
  <p class="liveness liveness-${members.state}"><strong>${headline}</strong></p>
  <dl class="facts">${facts.map(([name, value]) => html`<dt>${name}</dt><dd>${value}</dd>`)}</dl></section>`;
}

function trustSection(trust: TrustManifest | undefined): Html {
  if (!trust) {
    return html`<section aria-labelledby="trust-heading"><h2 id="trust-heading">Trust</h2>
  <p>No trust manifest: the publisher declares no verifiable identity, attestation or provenance for this entry. The relevance score of a search is not a trust score.</p></section>`;
  }
  return html`<section aria-labelledby="trust-heading"><h2 id="trust-heading">Trust</h2>
  <p class="muted">As declared by the publisher in the entry’s trust manifest.</p>
  <dl class="facts">
    <dt>Identity</dt><dd><code>${trust.identity}</code>${trust.identityType ? ` (${trust.identityType})` : ''}</dd>
    ${trust.trustSchema ? html`<dt>Trust framework</dt><dd><code>${trust.trustSchema.identifier}</code> version ${trust.trustSchema.version}${trust.trustSchema.governanceUri ? html`, <a href="${safeHref(trust.trustSchema.governanceUri)}">governance</a>` : null}</dd>` : null}
    ${(trust.attestations ?? []).map((a) => html`<dt>Attestation</dt><dd>${a.type}: <a href="${safeHref(a.uri)}">${a.uri}</a> <span class="muted">(${a.mediaType})</span></dd>`)}
    ${(trust.provenance ?? []).map((p) => html`<dt>Provenance</dt><dd>${p.relation} <code>${p.sourceId}</code></dd>`)}
    <dt>Signature</dt><dd>${trust.signature ? 'present (detached JWS)' : 'none'}</dd>
  </dl></section>`;
}

function metadataSection(entry: CatalogEntry): Html | null {
  const rows = Object.entries(entry.metadata ?? {}).filter(([, v]) => v !== null);
  if (rows.length === 0) return null;
  return html`<section aria-labelledby="metadata-heading"><h2 id="metadata-heading">Metadata</h2>
  <dl class="facts">${rows.map(([k, v]) => {
    const text = String(v);
    // Links only: an image named here (an icon) is never loaded, the page fetches nothing from elsewhere.
    const href = /^https?:\/\//.test(text) ? safeHref(text) : undefined;
    return html`<dt>${k}</dt><dd>${href ? html`<a href="${href}">${text}</a>` : text}</dd>`;
  })}</dl></section>`;
}

function stringValue(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
