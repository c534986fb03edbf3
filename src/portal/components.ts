// Pieces several pages share: an entry's summary in a list, the facet panel, page links, error notes.
import { html, safeHref, type Html } from './html';
import { entryPath, fieldLabel, publisherOf, typeLabel, valueLabel } from './labels';
import type { CatalogEntry, FacetResult, QueryFilter, SearchResult } from './registry-api';

/** Tags shown on a summary; the entry page lists them all. */
const SUMMARY_TAGS = 6;

/**
 * A listed entry or a search result. A federated result from a v0.91 peer may carry only its identifier
 * (ARD v0.91 §5.3.2): what it lacks is shown as unknown, its name falls back to the identifier.
 */
export function entrySummary(
  entry: CatalogEntry | SearchResult | (Partial<CatalogEntry> & { identifier: string; score?: number; source?: string }),
  options: { headingLevel: 2 | 3; ownSource?: string },
): Html {
  // A search result carries its score and the registry it came from; a listed entry neither.
  const score = typeof entry.score === 'number' ? entry.score : undefined;
  const source = typeof entry.source === 'string' ? entry.source : undefined;
  const remote = source !== undefined && options.ownSource !== undefined && source !== options.ownSource ? source : undefined;
  const href = remote ? safeHref(entry.url) : entryPath(entry.identifier);
  const displayName = entry.displayName ?? entry.identifier;
  const name = href ? html`<a href="${href}">${displayName}</a>` : html`${displayName}`;
  const heading = options.headingLevel === 2 ? html`<h2 class="entry-name">${name}</h2>` : html`<h3 class="entry-name">${name}</h3>`;
  const tags = entry.tags ?? [];
  return html`<article class="entry-summary">
  ${heading}
  <p class="entry-meta">
    ${entry.type ? html`<span class="badge">${typeLabel(entry.type)}</span>` : null}
    <span>by ${publisherOf(entry.identifier)}</span>
    ${score !== undefined ? html`<span title="Relevance to the query (0-100; not a trust score)">relevance ${score}</span>` : null}
    ${remote ? html`<span>from ${hostOf(remote)}</span>` : null}
  </p>
  ${entry.description ? html`<p class="entry-description">${clip(entry.description, 280)}</p>` : null}
  ${
    tags.length > 0
      ? html`<ul class="tags" aria-label="Tags">${tags.slice(0, SUMMARY_TAGS).map((t) => html`<li>${t}</li>`)}${tags.length > SUMMARY_TAGS ? html`<li>+${tags.length - SUMMARY_TAGS}</li>` : null}</ul>`
      : null
  }
</article>`;
}

export interface FacetPanelInput {
  /** Facets as the API answered, in the order to show; fields with no bucket and no selection are left out. */
  facets: Array<[string, FacetResult]>;
  selected: QueryFilter;
  /** The id of the form the checkboxes submit with. */
  form: string;
  /** Explore's error, shown in place of the facets. */
  error?: string;
}

/** Checkbox groups for whatever fields /explore returned: values of one field are OR, fields are AND. */
export function facetPanel(input: FacetPanelInput): Html {
  const groups = input.facets
    .map(([field, result]) => facetGroup(field, result, input.selected[field] ?? [], input.form))
    .filter((group): group is Html => group !== null);
  const chosen = Object.values(input.selected).reduce((n, values) => n + values.length, 0);
  // A disclosure, open as served: the script closes it on a narrow screen so the results come first.
  return html`<aside class="facets" aria-labelledby="facets-heading">
  <details class="facets-toggle" open>
  <summary><h2 id="facets-heading">Narrow the results${chosen > 0 ? html` <span class="count">(${chosen} chosen)</span>` : null}</h2></summary>
  ${input.error ? html`<p class="notice" role="status">Filters are unavailable: ${input.error}</p>` : null}
  ${groups.length === 0 && !input.error ? html`<p class="muted">Nothing to narrow by.</p>` : groups}
  ${groups.length > 0 ? html`<button type="submit" form="${input.form}" class="button apply-facets">Apply filters</button>` : null}
  </details>
</aside>`;
}

function facetGroup(field: string, result: FacetResult, selected: string[], form: string): Html | null {
  const shown = new Set(result.buckets.map((b) => b.value));
  const missing = selected.filter((v) => !shown.has(v)).map((value) => ({ value, count: undefined as number | undefined }));
  const rows = [...missing, ...result.buckets];
  if (rows.length === 0) return null;
  const id = (value: string) => `facet-${slug(field)}-${slug(value)}`;
  return html`<fieldset class="facet">
  <legend>${fieldLabel(field)}</legend>
  <ul>
    ${rows.map(
      (
        row,
      ) => html`<li><input type="checkbox" form="${form}" name="${field}" value="${row.value}" id="${id(row.value)}"${selected.includes(row.value) ? html` checked` : null}>
      <label for="${id(row.value)}">${valueLabel(field, row.value)}${row.count !== undefined ? html` <span class="count">${row.count}</span>` : null}</label></li>`,
    )}
  </ul>
  ${result.otherCount ? html`<p class="muted">${result.otherCount} more in other values</p>` : null}
</fieldset>`;
}

/** The selected filters as links that remove one each. */
export function selectedFilters(selected: QueryFilter, removeHref: (field: string, value: string) => string): Html | null {
  const pairs = Object.entries(selected).flatMap(([field, values]) => values.map((value) => [field, value] as const));
  if (pairs.length === 0) return null;
  return html`<ul class="chips" aria-label="Active filters">
  ${pairs.map(([field, value]) => html`<li><a href="${removeHref(field, value)}" class="chip">${fieldLabel(field)}: ${valueLabel(field, value)} <span aria-hidden="true">×</span><span class="visually-hidden"> (remove)</span></a></li>`)}
</ul>`;
}

export function pageLinks(links: { first?: string; next?: string; label: string }): Html {
  return html`<nav class="pagination" aria-label="${links.label}">
  ${links.first ? html`<a href="${links.first}" rel="first">First page</a>` : null}
  ${links.next ? html`<a href="${links.next}" rel="next" class="button">Next page</a>` : null}
</nav>`;
}

/** The API's error, said where the page shows it. */
export function errorNote(id: string, message: string): Html {
  return html`<p class="field-error" id="${id}"><strong>Error:</strong> ${message}</p>`;
}

export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`;
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

function slug(text: string): string {
  const s = text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
  // Two values may slug alike ('a b', 'a-b'): a short hash of the text keeps the ids unique.
  let h = 0;
  for (const c of text) h = (h * 31 + (c.codePointAt(0) ?? 0)) >>> 0;
  return `${s.slice(0, 40)}-${h.toString(36)}`;
}
