// `/browse`: GET /agents with the filter language, orderBy and keyset pages, every state in the URL
// (`/browse?filter=tags:slack&orderBy=updatedAt+DESC&pageToken=...&page=2`). A filter the API rejects
// comes back with its own message, shown under the field the person typed it in.
import { entrySummary, errorNote, pageLinks } from '../components';
import { html } from '../html';
import type { PageOptions } from '../layout';
import type { RegistryApi } from '../registry-api';
import type { QueryParameters } from './search-page';

export const DEFAULT_BROWSE_PAGE_SIZE = 20;
const PAGE_SIZES = [10, 20, 50, 100];

const ORDERS: Array<{ value: string; label: string }> = [
  { value: 'displayName', label: 'Name, A to Z' },
  { value: 'displayName DESC', label: 'Name, Z to A' },
  { value: 'updatedAt DESC', label: 'Recently updated' },
  { value: 'createdAt DESC', label: 'Recently added' },
  { value: 'publisher', label: 'Publisher' },
  { value: 'type', label: 'Type' },
  { value: 'identifier', label: 'Identifier' },
];

const EXAMPLES = [
  "type = 'application/mcp-server-card+json' AND tags:database",
  'tags:slack OR tags:discord',
  "publisher = github.com AND NOT displayName = '*Archived*'",
  "updatedAfter > '2026-01-01'",
];

export interface BrowseState {
  filter: string;
  orderBy: string;
  pageSize: number;
  pageToken?: string;
  page: number;
}

export function readBrowseState(query: QueryParameters): BrowseState {
  const one = (name: string) => {
    const v = query[name];
    return (Array.isArray(v) ? v[0] : v) ?? '';
  };
  const size = Number(one('pageSize'));
  const page = Number(one('page'));
  return {
    filter: one('filter').trim(),
    orderBy: one('orderBy').trim() || 'displayName',
    pageSize: PAGE_SIZES.includes(size) ? size : DEFAULT_BROWSE_PAGE_SIZE,
    pageToken: one('pageToken') || undefined,
    page: Number.isInteger(page) && page > 1 ? page : 1,
  };
}

export function browseUrl(state: Partial<BrowseState>): string {
  const params = new URLSearchParams();
  if (state.filter) params.set('filter', state.filter);
  if (state.orderBy && state.orderBy !== 'displayName') params.set('orderBy', state.orderBy);
  if (state.pageSize && state.pageSize !== DEFAULT_BROWSE_PAGE_SIZE) params.set('pageSize', String(state.pageSize));
  if (state.pageToken) {
    params.set('pageToken', state.pageToken);
    params.set('page', String(state.page ?? 2));
  }
  const text = params.toString();
  return text ? `/browse?${text}` : '/browse';
}

/** `field = 'value'` in the filter language (docs/filter-grammar.md), the value quoted and escaped. */
export function listFilterFor(field: string, value: string): string {
  return `${field} = '${value.replace(/[\\']/g, (c) => `\\${c}`)}'`;
}

export async function browsePage(api: RegistryApi, state: BrowseState): Promise<PageOptions & { status: number }> {
  const answer = await api.listAgents({
    filter: state.filter || undefined,
    orderBy: state.orderBy,
    pageSize: state.pageSize,
    pageToken: state.pageToken,
  });
  const error = answer.ok ? undefined : answer.message;
  const items = answer.ok ? answer.body.items : [];
  const first = (state.page - 1) * state.pageSize + 1;
  const total = answer.ok ? answer.body.total : undefined;
  const orders = ORDERS.some((o) => o.value === state.orderBy) ? ORDERS : [...ORDERS, { value: state.orderBy, label: state.orderBy }];
  const body = html`<h1>Browse the index</h1>
<form id="browse-form" class="browse-form" method="get" action="/browse">
  <div class="field">
    <label for="filter">Filter</label>
    <input id="filter" name="filter" type="text" value="${state.filter}" spellcheck="false" autocomplete="off"
      placeholder="e.g. tags:slack AND type = 'application/mcp-server-card+json'"
      aria-describedby="${error ? 'filter-error ' : ''}filter-help"${error ? html` aria-invalid="true" autofocus` : null}>
    ${error ? errorNote('filter-error', error) : null}
    <details id="filter-help" class="help">
      <summary>How to write a filter</summary>
      <p>Comparisons such as <code>tags:slack</code>, <code>publisher = github.com</code>, <code>displayName = 'Weather*'</code>,
      <code>updatedAfter &gt; '2026-01-01'</code>, <code>metadata.transport = stdio</code>, joined with <code>AND</code>, <code>OR</code>,
      <code>NOT</code> and parentheses. Values with spaces go in quotes. Examples:</p>
      <ul>${EXAMPLES.map((e) => html`<li><a href="${browseUrl({ filter: e })}"><code>${e}</code></a></li>`)}</ul>
    </details>
  </div>
  <div class="field-row">
    <div class="field">
      <label for="orderBy">Order</label>
      <select id="orderBy" name="orderBy">${orders.map((o) => html`<option value="${o.value}"${o.value === state.orderBy ? html` selected` : null}>${o.label}</option>`)}</select>
    </div>
    <div class="field">
      <label for="pageSize">Per page</label>
      <select id="pageSize" name="pageSize">${PAGE_SIZES.map((n) => html`<option value="${n}"${n === state.pageSize ? html` selected` : null}>${n}</option>`)}</select>
    </div>
    <button type="submit" class="button primary">Show</button>
  </div>
</form>
<section aria-labelledby="listing-heading">
  <h2 id="listing-heading">${total === undefined ? 'Entries' : `${total} ${total === 1 ? 'entry' : 'entries'}`}${state.filter && !error ? ' matching the filter' : ''}</h2>
  ${error ? html`<p>Nothing listed: the filter needs a fix (see above).</p>` : null}
  ${answer.ok && items.length === 0 ? html`<p>No entry matches this filter.</p>` : null}
  ${items.length > 0 ? html`<p class="muted">Showing ${first}–${first + items.length - 1}${total !== undefined ? ` of ${total}` : ''}, page ${state.page}.</p>` : null}
  ${items.length > 0 ? html`<ol class="entry-list" start="${first}">${items.map((e) => html`<li>${entrySummary(e, { headingLevel: 3 })}</li>`)}</ol>` : null}
  ${pageLinks({
    label: 'Listing pages',
    first: state.pageToken ? browseUrl({ ...state, pageToken: undefined }) : undefined,
    next: answer.ok && answer.body.pageToken ? browseUrl({ ...state, pageToken: answer.body.pageToken, page: state.page + 1 }) : undefined,
  })}
</section>`;
  return { title: state.filter ? `Browse: ${state.filter}` : 'Browse', section: 'browse', body, status: answer.ok ? 200 : answer.status };
}
