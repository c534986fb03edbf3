// `/alexandria`: the Alexandria library (papers, repositories and posts about building agents) by topic.
// Topics and their counts are POST /explore's `tags` facet over the library's type; a topic's records
// are GET /agents filtered on it (`/alexandria?topic=memory&kind=paper&pageToken=...`).
import { ALEXANDRIA_MEDIA_TYPE } from '../../alexandria/mapping';
import { recordPath } from '../../http/library-routes';
import { clip, errorNote, pageLinks } from '../components';
import { html, safeHref, type Html } from '../html';
import { entryPath } from '../labels';
import type { PageOptions } from '../layout';
import type { CatalogEntry, RegistryApi } from '../registry-api';
import { listFilterFor } from './browse-page';
import type { QueryParameters } from './search-page';

export const ALEXANDRIA_TYPE = ALEXANDRIA_MEDIA_TYPE;
const LIBRARY_PAGE_SIZE = 20;
/** More than the library's taxonomy (24 topics), so every topic shows. */
const TOPIC_LIMIT = 200;

export interface LibraryState {
  topic?: string;
  kind?: string;
  pageToken?: string;
  page: number;
}

export function readLibraryState(query: QueryParameters): LibraryState {
  const one = (name: string) => {
    const v = query[name];
    const s = ((Array.isArray(v) ? v[0] : v) ?? '').trim();
    return s === '' ? undefined : s;
  };
  const page = Number(one('page'));
  return { topic: one('topic'), kind: one('kind'), pageToken: one('pageToken'), page: Number.isInteger(page) && page > 1 ? page : 1 };
}

export function libraryUrl(state: Partial<LibraryState>): string {
  const params = new URLSearchParams();
  if (state.topic) params.set('topic', state.topic);
  if (state.kind) params.set('kind', state.kind);
  if (state.pageToken) {
    params.set('pageToken', state.pageToken);
    params.set('page', String(state.page ?? 2));
  }
  const text = params.toString();
  return text ? `/alexandria?${text}` : '/alexandria';
}

export async function libraryPage(api: RegistryApi, state: LibraryState): Promise<PageOptions & { status: number }> {
  const filter = [
    listFilterFor('type', ALEXANDRIA_TYPE),
    state.topic && listFilterFor('tags', state.topic),
    state.kind && listFilterFor('metadata.kind', state.kind),
  ]
    .filter(Boolean)
    .join(' AND ');
  const everything = { type: [ALEXANDRIA_TYPE] };
  const [facets, topicKinds, listing] = await Promise.all([
    api.explore({
      query: { filter: everything },
      resultType: { facets: [{ field: 'tags', limit: TOPIC_LIMIT }, { field: 'metadata.kind' }] },
    }),
    state.topic
      ? api.explore({ query: { filter: { ...everything, tags: [state.topic] } }, resultType: { facets: [{ field: 'metadata.kind' }] } })
      : null,
    state.topic ? api.listAgents({ filter, orderBy: 'displayName', pageSize: LIBRARY_PAGE_SIZE, pageToken: state.pageToken }) : null,
  ]);
  const topics = facets.ok ? (facets.body.facets.tags?.buckets ?? []) : [];
  const allKinds = facets.ok ? (facets.body.facets['metadata.kind']?.buckets ?? []) : [];
  const kinds = topicKinds?.ok ? (topicKinds.body.facets['metadata.kind']?.buckets ?? []) : [];
  const topicNav = html`<nav class="topics" aria-labelledby="topics-heading">
  <h2 id="topics-heading">Topics</h2>
  ${facets.ok ? null : errorNote('topics-error', facets.message)}
  <ul class="counts">${topics.map(
    (t) =>
      html`<li><a href="${libraryUrl({ topic: t.value })}"${t.value === state.topic ? html` aria-current="page"` : null}>${t.value}</a> <span class="count">${t.count}</span></li>`,
  )}</ul>
</nav>`;
  let records: Html | null = null;
  let status = facets.ok ? 200 : facets.status;
  if (state.topic && listing) {
    status = listing.ok ? 200 : listing.status;
    const items = listing.ok ? listing.body.items : [];
    const first = (state.page - 1) * LIBRARY_PAGE_SIZE + 1;
    records = html`<section class="results" aria-labelledby="records-heading">
  <h2 id="records-heading">${state.topic}${state.kind ? `: ${state.kind}s` : ''} <span class="count">${listing.ok ? listing.body.total : ''}</span></h2>
  ${
    kinds.length > 1
      ? html`<ul class="chips" aria-label="Kind">
    <li><a class="chip" href="${libraryUrl({ topic: state.topic })}"${state.kind ? null : html` aria-current="page"`}>all</a></li>
    ${kinds.map((k) => html`<li><a class="chip" href="${libraryUrl({ topic: state.topic, kind: k.value })}"${k.value === state.kind ? html` aria-current="page"` : null}>${k.value}s ${k.count}</a></li>`)}
  </ul>`
      : null
  }
  ${listing.ok ? null : errorNote('records-error', listing.message)}
  ${listing.ok && items.length === 0 ? html`<p>No record on this topic${state.kind ? ' of this kind' : ''}.</p>` : null}
  <ol class="entry-list" start="${first}">${items.map((e) => html`<li>${libraryRecord(e)}</li>`)}</ol>
  ${pageLinks({
    label: 'Record pages',
    first: state.pageToken ? libraryUrl({ ...state, pageToken: undefined }) : undefined,
    next:
      listing.ok && listing.body.pageToken ? libraryUrl({ ...state, pageToken: listing.body.pageToken, page: state.page + 1 }) : undefined,
  })}
</section>`;
  }
  const body = html`<h1>Alexandria: a library for building agents</h1>
<p class="lead">Papers, repositories and posts about building LLM agents, curated and tagged by topic. Every record is also an entry of this
registry, a JSON file under <code>/library/</code>, and an answer of the MCP tools at <code>/mcp</code> (<a href="/llms.txt">llms.txt</a> says how).</p>
<div class="with-sidebar">
  ${topicNav}
  ${records ?? html`<section class="results"><h2>Pick a topic</h2><p>${allKinds.map((k, i) => html`${i > 0 ? ', ' : ''}${k.count} ${k.value}s`)} on ${topics.length} topics.</p></section>`}
</div>`;
  return { title: state.topic ? `Library: ${state.topic}` : 'Library', section: 'library', body, status };
}

function libraryRecord(entry: CatalogEntry): Html {
  const m = entry.metadata ?? {};
  const id = typeof m.alexandria_id === 'string' ? m.alexandria_id : undefined;
  const record = id ? libraryRecordPath(id) : undefined;
  const source = safeHref(entry.url);
  return html`<article class="entry-summary">
  <h3 class="entry-name"><a href="${entryPath(entry.identifier)}">${entry.displayName}</a></h3>
  <p class="entry-meta"><span class="badge">${String(m.kind ?? 'resource')}</span>${m.date ? html` <span>${String(m.date)}</span>` : null}${authorsOf(m.authors) ? html` <span>${authorsOf(m.authors)}</span>` : null}${m.sponsored === true ? html` <span class="badge">sponsored</span>` : null}</p>
  ${entry.description ? html`<p class="entry-description">${clip(entry.description, 280)}</p>` : null}
  <p class="entry-links">${source ? html`<a href="${source}">Source</a>` : null}${record ? html` · <a href="/${record}">Record JSON</a>` : null}</p>
</article>`;
}

/** `metadata.authors` holds the record's author list as JSON text (docs/alexandria.md). */
function authorsOf(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const list = JSON.parse(value) as unknown;
    if (!Array.isArray(list)) return undefined;
    const names = list.filter((n): n is string => typeof n === 'string');
    return names.length > 3 ? `${names.slice(0, 3).join(', ')} et al.` : names.join(', ');
  } catch {
    return undefined;
  }
}

/** The record's static JSON path (`library/<scheme>/<rest>.json`), or none for an id that is not one. */
export function libraryRecordPath(id: string): string | undefined {
  try {
    return recordPath(id);
  } catch {
    return undefined;
  }
}
