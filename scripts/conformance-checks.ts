/* eslint-disable @typescript-eslint/no-explicit-any -- the checks read whatever JSON the registry under test answers and test each field before use */
// Checks a running registry against the requirements of ARD v0.9 and v0.91 this registry implements:
// one check per requirement, named by its section, run over HTTP like any client (`npm run conformance
// -- <base-url>`, scripts/conformance.ts). A MUST that fails fails the run; a SHOULD is a warning.
import { isOutboundError, type HttpClient } from '../src/outbound';

export type Level = 'MUST' | 'SHOULD';
export type Outcome = 'pass' | 'fail' | 'skip';

export interface CheckResult {
  section: string;
  level: Level;
  requirement: string;
  outcome: Outcome;
  detail?: string;
}

interface Reply {
  status: number;
  headers: Record<string, string>;
  body: any;
}

class CheckFailed extends Error {}

function expect(condition: unknown, detail: string): asserts condition {
  if (!condition) throw new CheckFailed(detail);
}

const IDENTIFIER = /^urn:air:[a-zA-Z0-9.-]+(:[a-zA-Z0-9._-]+)+$/;

function isErrorBody(body: unknown, code?: string): boolean {
  const b = body as { errorCode?: unknown; message?: unknown } | null;
  return !!b && typeof b.errorCode === 'string' && typeof b.message === 'string' && (code === undefined || b.errorCode === code);
}

/**
 * Runs every check against `baseUrl`: the registry's API base (e.g. http://localhost:8080/ or
 * https://registry.example/api/v1/); API paths are relative to it, the well-known paths to its origin.
 */
export async function runConformance(baseUrl: string, http: HttpClient): Promise<CheckResult[]> {
  const base = new URL(baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
  const call = async (method: 'GET' | 'POST', path: string, body?: unknown): Promise<Reply> => {
    const res = await http.request({
      method,
      url: new URL(path, base),
      headers: body === undefined ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      maxBytes: 5 * 1024 * 1024,
      timeoutMs: 15_000,
    });
    const text = res.body.toString('utf8');
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = text;
    }
    return { status: res.status, headers: res.headers, body: parsed };
  };

  const results: CheckResult[] = [];
  const check = async (section: string, level: Level, requirement: string, run: () => Promise<void | 'skip'>) => {
    try {
      const outcome = await run();
      results.push({ section, level, requirement, outcome: outcome === 'skip' ? 'skip' : 'pass' });
    } catch (error) {
      if (!(error instanceof CheckFailed) && !isOutboundError(error)) throw error;
      results.push({ section, level, requirement, outcome: 'fail', detail: error.message });
    }
  };

  // Something to search for and retrieve: the registry's own manifest names its entries.
  let known: { identifier: string; type: string } | null = null;
  let sample = 'search';

  await check('v0.91 §5.1', 'MUST', 'GET /.well-known/ard.json is a manifest with an entries array of ARD entries', async () => {
    const res = await call('GET', '/.well-known/ard.json');
    expect(res.status === 200, `HTTP ${res.status}`);
    expect(Array.isArray(res.body?.entries), 'no entries array');
    for (const [i, e] of (res.body.entries as any[]).entries()) {
      expect(typeof e?.identifier === 'string' && IDENTIFIER.test(e.identifier), `entries[${i}].identifier is not an ARD URN`);
      expect(typeof e.displayName === 'string' && typeof e.type === 'string', `entries[${i}] lacks displayName or type`);
      expect((e.url === undefined) !== (e.data === undefined), `entries[${i}] must carry exactly one of url and data (v0.91 §4.3)`);
    }
    const registry = (res.body.entries as any[]).find((e) => e.type === 'application/ai-registry+json');
    expect(registry, 'no entry of type application/ai-registry+json names the API base (v0.91 §5.3)');
    known = registry;
    sample = String(registry.displayName ?? 'registry');
  });
  await check('v0.91 §4.2', 'SHOULD', "the manifest's entries carry 2-5 representativeQueries", async () => {
    const res = await call('GET', '/.well-known/ard.json');
    const short = ((res.body?.entries as any[]) ?? []).filter(
      (e) => !Array.isArray(e.representativeQueries) || e.representativeQueries.length < 2 || e.representativeQueries.length > 5,
    );
    expect(short.length === 0, `${short.map((e) => e.identifier).join(', ')} without 2-5 representativeQueries`);
  });
  await check('v0.9 §4.1', 'SHOULD', 'GET /.well-known/ai-catalog.json (the predecessor path) is an ai-catalog manifest', async () => {
    const res = await call('GET', '/.well-known/ai-catalog.json');
    expect(res.status === 200 && res.body?.specVersion === '1.0' && Array.isArray(res.body.entries), `HTTP ${res.status}`);
  });

  let firstResult: any = null;
  await check('v0.91 §5.3.2', 'MUST', 'POST /search answers results, each carrying identifier and a 0-100 score', async () => {
    const res = await call('POST', 'search', { query: { text: sample }, federation: 'none' });
    expect(res.status === 200, `HTTP ${res.status}`);
    expect(Array.isArray(res.body?.results), 'no results array');
    for (const r of res.body.results) {
      expect(typeof r.identifier === 'string', 'a result without identifier');
      expect(typeof r.score === 'number' && r.score >= 0 && r.score <= 100, `score ${r.score} outside 0-100`);
    }
    firstResult = res.body.results[0] ?? null;
  });
  await check('v0.91 §5.3.2', 'MUST', 'POST /search without query.text is rejected with 400 INVALID_ARGUMENT', async () => {
    const res = await call('POST', 'search', { query: { filter: { type: 'application/ai-registry+json' } } });
    expect(
      res.status === 400 && isErrorBody(res.body, 'INVALID_ARGUMENT'),
      `HTTP ${res.status} ${JSON.stringify(res.body)?.slice(0, 200)}`,
    );
  });
  await check('v0.91 §5.3.1', 'MUST', 'filter: a bare scalar is a one-element array, and every result satisfies it', async () => {
    const type = firstResult?.type ?? known?.type;
    if (!type) return 'skip';
    for (const value of [type, [type]]) {
      const res = await call('POST', 'search', { query: { text: sample, filter: { type: value } }, federation: 'none' });
      expect(res.status === 200, `HTTP ${res.status}`);
      for (const r of res.body.results)
        expect(r.type === undefined || r.type === type, `a result of type ${r.type} under filter type=${type}`);
    }
  });
  await check('v0.91 §5.3.1', 'MUST', 'filter: values within a key are ORed, keys are ANDed', async () => {
    const res = await call('POST', 'search', {
      query: {
        text: sample,
        filter: { type: ['application/ai-registry+json', 'application/mcp-server-card+json'], publisher: ['no-such-publisher.invalid'] },
      },
      federation: 'none',
    });
    expect(res.status === 200, `HTTP ${res.status}`);
    expect(res.body.results.length === 0, 'a result from a publisher the filter excludes');
  });
  await check('v0.91 §5.3.2', 'MUST', 'pageSize bounds a page, and pageToken continues the same list without repeats', async () => {
    const first = await call('POST', 'search', { query: { text: sample }, pageSize: 1, federation: 'none' });
    expect(
      first.status === 200 && first.body.results.length <= 1,
      `HTTP ${first.status}, ${first.body?.results?.length} results for pageSize 1`,
    );
    if (!first.body.pageToken) return 'skip';
    const second = await call('POST', 'search', {
      query: { text: sample },
      pageSize: 1,
      pageToken: first.body.pageToken,
      federation: 'none',
    });
    expect(second.status === 200, `HTTP ${second.status}`);
    expect(
      second.body.results.every((r: any) => r.identifier !== first.body.results[0]?.identifier),
      'the second page repeats the first',
    );
  });
  await check('v0.91 §5.3.2', 'MUST', 'pageSize above 100 is not honoured', async () => {
    const res = await call('POST', 'search', { query: { text: sample }, pageSize: 101, federation: 'none' });
    expect(res.status === 400 || (res.status === 200 && res.body.results.length <= 100), `HTTP ${res.status}`);
  });

  await check('v0.91 §5.3.3', 'MUST', 'POST /explore answers facets with value/count buckets (or 501 when not implemented)', async () => {
    const res = await call('POST', 'explore', { query: {}, resultType: { facets: [{ field: 'type', limit: 5 }] } });
    if (res.status === 501) return;
    expect(res.status === 200 && res.body?.resultType === 'facets', `HTTP ${res.status}`);
    const buckets = res.body.facets?.type?.buckets;
    expect(Array.isArray(buckets) && buckets.length <= 5, 'no buckets for type, or more than limit');
    for (const b of buckets)
      expect(typeof b.value === 'string' && (b.count === undefined || Number.isInteger(b.count)), 'a bucket without value');
  });
  // §5.3.1 "Term resolution": a key naming a term resolves to its IRI through the base context plus the
  // query's @context; §5.3.3: a facet field has the same syntax as a filter key.
  const ardContext = { ard: 'https://agenticresourcediscovery.org/ns#' };
  await check(
    'v0.91 §5.3.1',
    'MUST',
    "a filter key given as a compact IRI under query['@context'] means the term it resolves to",
    async () => {
      const type = firstResult?.type ?? known?.type;
      if (!type) return 'skip';
      const plain = await call('POST', 'search', { query: { text: sample, filter: { type } }, federation: 'none' });
      const compact = await call('POST', 'search', {
        query: { '@context': ardContext, text: sample, filter: { 'ard:type': type } },
        federation: 'none',
      });
      expect(compact.status === 200, `HTTP ${compact.status} ${JSON.stringify(compact.body)?.slice(0, 200)}`);
      const ids = (body: any) => JSON.stringify((body?.results ?? []).map((r: any) => r.identifier));
      expect(ids(compact.body) === ids(plain.body), `filter 'ard:type' matched ${ids(compact.body)}, 'type' ${ids(plain.body)}`);
    },
  );
  await check(
    'v0.91 §5.3.3',
    'MUST',
    'a facet field given as a compact IRI resolves like a filter key (or 501 for no explore)',
    async () => {
      const plain = await call('POST', 'explore', { query: {}, resultType: { facets: [{ field: 'type', limit: 5 }] } });
      if (plain.status === 501) return;
      const compact = await call('POST', 'explore', {
        query: { '@context': ardContext },
        resultType: { facets: [{ field: 'ard:type', limit: 5 }] },
      });
      expect(compact.status === 200, `HTTP ${compact.status} ${JSON.stringify(compact.body)?.slice(0, 200)}`);
      const buckets = JSON.stringify(compact.body?.facets?.['ard:type']?.buckets);
      expect(
        buckets === JSON.stringify(plain.body?.facets?.type?.buckets),
        `'ard:type' buckets ${buckets?.slice(0, 200)} differ from 'type'`,
      );
    },
  );
  await check('v0.91 §5.3.5', 'MUST', 'GET /agents lists entries with a filter expression (or 501 when not implemented)', async () => {
    const res = await call('GET', `agents?pageSize=2&filter=${encodeURIComponent('type = application/ai-registry+json')}`);
    if (res.status === 501) return;
    expect(res.status === 200, `HTTP ${res.status}`);
    const items = res.body?.items ?? res.body?.agents ?? res.body?.results;
    expect(Array.isArray(items) && items.length <= 2, 'no list of at most pageSize entries');
    for (const item of items) expect(item.type === 'application/ai-registry+json', `an entry of type ${item.type} under the filter`);
  });

  const retrievable = firstResult?.identifier ?? null;
  await check(
    'v0.91 §5.3.4',
    'MUST',
    'GET /agents/{identifier} (percent-encoded once) returns the complete entry, without score or source',
    async () => {
      if (!retrievable) return 'skip';
      const res = await call('GET', `agents/${encodeURIComponent(retrievable)}`);
      expect(res.status === 200, `HTTP ${res.status}`);
      expect(res.body?.identifier === retrievable, 'another identifier came back');
      expect(res.body.score === undefined && res.body.source === undefined, 'search-only fields in the entry');
    },
  );
  await check('v0.91 §5.3.4', 'MUST', 'an unknown identifier is 404 NOT_FOUND', async () => {
    const res = await call('GET', `agents/${encodeURIComponent('urn:air:conformance.invalid:test:no-such-entry')}`);
    expect(res.status === 404 && isErrorBody(res.body, 'NOT_FOUND'), `HTTP ${res.status}`);
  });
  await check('v0.91 §5.3.4', 'MUST', 'an identifier that is not an ARD URN, or double-encoded, is 400 INVALID_ARGUMENT', async () => {
    for (const path of ['agents/not-a-urn', `agents/${encodeURIComponent(encodeURIComponent('urn:air:conformance.invalid:test:x'))}`]) {
      const res = await call('GET', path);
      expect(res.status === 400 && isErrorBody(res.body, 'INVALID_ARGUMENT'), `${path}: HTTP ${res.status}`);
    }
  });
  await check(
    'v0.91 §5.3.4',
    'SHOULD',
    'a 200 of Retrieve carries Cache-Control and a validator; a 404 a short or revalidated freshness',
    async () => {
      if (!retrievable) return 'skip';
      const ok = await call('GET', `agents/${encodeURIComponent(retrievable)}`);
      expect(ok.headers['cache-control'] && (ok.headers.etag || ok.headers['last-modified']), 'no Cache-Control or validator on 200');
      const missing = await call('GET', `agents/${encodeURIComponent('urn:air:conformance.invalid:test:no-such-entry')}`);
      const cc = missing.headers['cache-control'] ?? '';
      const maxAge = Number(/max-age=(\d+)/.exec(cc)?.[1] ?? NaN);
      expect(/no-cache|no-store|must-revalidate/.test(cc) || maxAge <= 60, `404 Cache-Control '${cc}'`);
    },
  );

  await check('v0.9 Appendix B', 'MUST', 'errors are {errorCode, message}: a malformed body is 400 INVALID_ARGUMENT', async () => {
    const res = await call('POST', 'search', { query: { text: sample }, colour: 'blue' });
    expect(res.status === 400 && isErrorBody(res.body, 'INVALID_ARGUMENT'), `HTTP ${res.status}`);
  });
  return results;
}

/** One line per check: `PASS  MUST    v0.91 §5.3.4  ...`, then the totals. */
export function formatResults(results: CheckResult[]): string {
  const lines = results.map(
    (r) =>
      `${r.outcome.toUpperCase().padEnd(5)} ${r.level.padEnd(6)} ${r.section.padEnd(16)} ${r.requirement}${r.detail ? `\n        -> ${r.detail}` : ''}`,
  );
  const failedMust = results.filter((r) => r.outcome === 'fail' && r.level === 'MUST').length;
  const warnings = results.filter((r) => r.outcome === 'fail' && r.level === 'SHOULD').length;
  lines.push(
    `${results.filter((r) => r.outcome === 'pass').length} passed, ${failedMust} MUST failed, ${warnings} SHOULD not met, ${results.filter((r) => r.outcome === 'skip').length} skipped`,
  );
  return lines.join('\n');
}
