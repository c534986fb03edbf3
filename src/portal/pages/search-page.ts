// `/`: the search page. Without `q`, the front page (what the index holds, by the configured facets, each
// value a link into the listing); with `q`, POST /search and the facets of POST /explore over the same
// matched set. Every state is in the URL: `/?q=send+a+message+to+a+slack+channel&type=...&pageToken=...`.
import { entrySummary, errorNote, facetPanel, pageLinks, selectedFilters } from '../components';
import { html, type Html } from '../html';
import { fieldLabel, valueLabel } from '../labels';
import type { PageOptions } from '../layout';
import type { ExploreRequest, FacetResult, Federation, QueryFilter, RegistryApi } from '../registry-api';
import { browseUrl, listFilterFor } from './browse-page';

/** Query parameters the page reads itself; every other parameter is a filter key (`type=...`, `tags=...`). */
const OWN_PARAMETERS = new Set(['q', 'federation', 'pageToken', 'page']);
const FEDERATION_MODES: Federation[] = ['auto', 'none', 'referrals'];
export const SEARCH_PAGE_SIZE = 10;
/** Values shown per facet; the rest are summed in "more in other values". */
const FACET_VALUES = 12;

export interface SearchState {
  q: string;
  federation: Federation;
  filter: QueryFilter;
  pageToken?: string;
  page: number;
}

export type QueryParameters = Record<string, string | string[] | undefined>;

export function readSearchState(query: QueryParameters): SearchState {
  const filter: QueryFilter = {};
  for (const [name, raw] of Object.entries(query)) {
    if (OWN_PARAMETERS.has(name) || raw === undefined) continue;
    const values = [...new Set((Array.isArray(raw) ? raw : [raw]).map((v) => v.trim()).filter(Boolean))];
    if (values.length > 0) filter[name] = values;
  }
  const federation = FEDERATION_MODES.find((m) => m === single(query.federation)) ?? 'auto';
  const page = Number(single(query.page));
  return {
    q: (single(query.q) ?? '').trim(),
    federation,
    filter,
    pageToken: single(query.pageToken) || undefined,
    page: Number.isInteger(page) && page > 1 ? page : 1,
  };
}

export function searchUrl(state: Partial<SearchState>): string {
  const params = new URLSearchParams();
  if (state.q) params.set('q', state.q);
  if (state.federation && state.federation !== 'auto') params.set('federation', state.federation);
  for (const [field, values] of Object.entries(state.filter ?? {})) for (const v of values) params.append(field, v);
  if (state.pageToken) {
    params.set('pageToken', state.pageToken);
    params.set('page', String(state.page ?? 2));
  }
  const text = params.toString();
  return text ? `/?${text}` : '/';
}

export interface SearchPageDeps {
  api: RegistryApi;
  facetFields: readonly string[];
  publicUrl: string;
}

export async function searchPage(deps: SearchPageDeps, state: SearchState): Promise<PageOptions & { status: number }> {
  if (!state.q) return frontPage(deps, state);
  const filter = Object.keys(state.filter).length > 0 ? state.filter : undefined;
  const [search, facets] = await Promise.all([
    deps.api.search({
      query: { text: state.q, filter },
      federation: state.federation,
      pageSize: SEARCH_PAGE_SIZE,
      pageToken: state.pageToken,
    }),
    facetsFor(deps, state.q, state.filter),
  ]);
  const status = search.ok ? 200 : search.status;
  const first = (state.page - 1) * SEARCH_PAGE_SIZE + 1;
  const results = search.ok ? search.body.results : [];
  const summary = search.ok
    ? results.length === 0
      ? html`<p>No entry matches “${state.q}”${filter ? ' with these filters' : ''}. Try other words, fewer filters, or <a href="/browse">browse the whole index</a>.</p>`
      : html`<p class="muted" aria-live="polite">Showing ${first}–${first + results.length - 1}${matchedCount(facets.facets, state.filter)}.</p>`
    : null;
  const cut = search.ok ? queryCut(search.headers) : undefined;
  const body = html`<h1 class="visually-hidden">Search results for “${state.q}”</h1>
${searchForm(state, search.ok ? undefined : search.message)}
${cut ? html`<p class="notice" role="status" id="query-cut">Only the first ${cut.searched.toLocaleString('en')} of the text's ${cut.length.toLocaleString('en')} characters were searched: put what matters most first.</p>` : null}
${selectedFilters(state.filter, (field, value) => searchUrl({ ...state, pageToken: undefined, filter: without(state.filter, field, value) }))}
<div class="with-sidebar">
  ${facetPanel({ facets: facets.facets, selected: state.filter, form: 'search-form', error: facets.error })}
  <section class="results" aria-labelledby="results-heading">
    <h2 id="results-heading">Results for “${state.q}”</h2>
    ${summary}
    ${results.length > 0 ? html`<ol class="entry-list" start="${first}">${results.map((r) => html`<li>${entrySummary(r, { headingLevel: 3, ownSource: deps.publicUrl })}</li>`)}</ol>` : null}
    ${
      search.ok && search.body.referrals?.length
        ? html`<section aria-labelledby="referrals-heading"><h3 id="referrals-heading">Other registries to ask</h3><ul>${search.body.referrals.map(
            (r) => html`<li><a href="${r.url}">${r.displayName}</a> <span class="muted">${r.identifier}</span></li>`,
          )}</ul></section>`
        : null
    }
    ${pageLinks({
      label: 'Result pages',
      first: state.pageToken ? searchUrl({ ...state, pageToken: undefined }) : undefined,
      next:
        search.ok && search.body.pageToken ? searchUrl({ ...state, pageToken: search.body.pageToken, page: state.page + 1 }) : undefined,
    })}
  </section>
</div>`;
  return { title: `${state.q}${state.page > 1 ? ` (page ${state.page})` : ''}`, section: 'search', body, status };
}

function searchForm(state: SearchState, error: string | undefined): Html {
  return html`<form id="search-form" class="search-form" role="search" method="get" action="/">
  <div class="search-row">
    <label for="q" class="visually-hidden">Search the registry</label>
    <input id="q" name="q" type="search" value="${state.q}" placeholder="What should it do? e.g. send a message to a slack channel"
      autocomplete="off" spellcheck="false" enterkeyhint="search"${error ? html` aria-invalid="true" aria-describedby="q-error"` : null}>
    <button type="submit" class="button primary">Search</button>
  </div>
  <div class="search-options">
    <label for="federation">Registries</label>
    <select id="federation" name="federation">
      <option value="auto"${state.federation === 'auto' ? html` selected` : null}>This registry and its peers</option>
      <option value="none"${state.federation === 'none' ? html` selected` : null}>This registry only</option>
      <option value="referrals"${state.federation === 'referrals' ? html` selected` : null}>This registry, and refer me to others</option>
    </select>
  </div>
  ${error ? errorNote('q-error', error) : null}
</form>`;
}

const EXAMPLES = ['send a message to a slack channel', 'query a postgres database', 'weather forecast for a city', 'agent memory'];

async function frontPage(deps: SearchPageDeps, state: SearchState): Promise<PageOptions & { status: number }> {
  const facets = await facetsFor(deps, undefined, {});
  const body = html`<section class="hero" aria-labelledby="hero-heading">
  <h1 id="hero-heading">Find the agent, MCP server or skill for the job</h1>
  <p>Describe what you need in plain words. The registry searches its own index and, where configured, its peers.</p>
  ${searchForm(state, undefined)}
  <p class="examples">Try: ${EXAMPLES.map((q, i) => html`${i > 0 ? ', ' : ''}<a href="${searchUrl({ q })}">${q}</a>`)}</p>
</section>
<section aria-labelledby="index-heading">
  <h2 id="index-heading">What the index holds</h2>
  ${facets.error ? html`<p class="notice" role="status">${facets.error}</p>` : null}
  <div class="browse-by">
    ${facets.facets
      .filter(([, result]) => result.buckets.length > 0)
      .map(
        ([field, result]) => html`<section class="card" aria-labelledby="by-${field.replace(/[^A-Za-z0-9]+/g, '-')}">
      <h3 id="by-${field.replace(/[^A-Za-z0-9]+/g, '-')}">By ${fieldLabel(field).toLowerCase()}</h3>
      <ul class="counts">${result.buckets.map(
        (b) =>
          html`<li><a href="${browseUrl({ filter: listFilterFor(field, b.value) })}">${valueLabel(field, b.value)}</a> <span class="count">${b.count}</span></li>`,
      )}</ul>
    </section>`,
      )}
  </div>
  <p><a href="/browse">Browse the whole index</a> · <a href="/alexandria">Read the agent-building library by topic</a> · <a href="/docs">Call the API</a></p>
</section>`;
  return { title: 'Search', section: 'search', body, status: 200 };
}

/**
 * One /explore per selected field, asked without that field's own filter, so a field's other values
 * keep their counts and can be added (values of one field are OR); one more for the fields with no
 * selection. The panel shows whatever fields the API answers with, in the configured order.
 */
async function facetsFor(
  deps: SearchPageDeps,
  text: string | undefined,
  filter: QueryFilter,
): Promise<{ facets: Array<[string, FacetResult]>; error?: string }> {
  const request = (fields: string[], f: QueryFilter): ExploreRequest => ({
    query: { ...(text ? { text } : {}), ...(Object.keys(f).length > 0 ? { filter: f } : {}) },
    resultType: { facets: fields.map((field) => ({ field, limit: FACET_VALUES })) },
  });
  const selectedFields = deps.facetFields.filter((field) => filter[field] !== undefined);
  const plainFields = deps.facetFields.filter((field) => filter[field] === undefined);
  const asks = [
    ...(plainFields.length > 0 ? [deps.api.explore(request(plainFields, filter))] : []),
    ...selectedFields.map((field) => deps.api.explore(request([field], without(filter, field)))),
  ];
  const answers = await Promise.all(asks);
  const merged: Record<string, FacetResult> = {};
  for (const answer of answers) {
    if (!answer.ok) return { facets: [], error: answer.message };
    Object.assign(merged, answer.body.facets);
  }
  const ordered = [...deps.facetFields.filter((f) => f in merged), ...Object.keys(merged).filter((f) => !deps.facetFields.includes(f))];
  return { facets: ordered.map((field) => [field, merged[field] as FacetResult]) };
}

/**
 * "of N" when the type facet says how many entries matched: an entry has one type, so its counts add up
 * to the matched set (docs/api-listing.md), unless the type is filtered (its counts then ignore that filter).
 */
function matchedCount(facets: Array<[string, FacetResult]>, filter: QueryFilter): string {
  const type = facets.find(([field]) => field === 'type')?.[1];
  if (!type || filter.type) return '';
  const total = type.buckets.reduce((sum, b) => sum + b.count, 0) + (type.otherCount ?? 0);
  return ` of ${total}`;
}

/**
 * `Registry-Query-Cut: searched=1998, length=18686` (docs/api.md "Registry extensions"): the search read only the
 * first part of a long text.
 */
function queryCut(headers: Record<string, string> | undefined): { searched: number; length: number } | undefined {
  const match = /^searched=(\d+), length=(\d+)$/.exec(headers?.['registry-query-cut'] ?? '');
  return match ? { searched: Number(match[1]), length: Number(match[2]) } : undefined;
}

function without(filter: QueryFilter, field: string, value?: string): QueryFilter {
  const out: QueryFilter = {};
  for (const [key, values] of Object.entries(filter)) {
    if (key !== field) out[key] = values;
    else if (value !== undefined) {
      const kept = values.filter((v) => v !== value);
      if (kept.length > 0) out[key] = kept;
    }
  }
  return out;
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
