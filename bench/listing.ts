// GET /agents and POST /explore at 100k entries. Prints figures; asserts nothing.
//   npm run bench:listing            (BENCH_REBUILD=1 regenerates the data set)
// Targets (issue 5): /agents page p50 < 15 ms at depth 1 and at depth 500 (depth must not matter);
// /explore over the whole registry with 3 facets p50 < 150 ms.
//
// A dedicated database (ard_bench_listing) is filled in SQL with synthetic entries and random
// 512-d vectors (no embedding of 100k texts). The HNSW index is dropped before the vectors go in:
// neither route reads it, and building it for 100k random vectors takes minutes on a small box.
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { loadConfig } from '../src/config';
import { startRegistry } from '../src/server';
import { ADMIN_URL, adminQuery, databaseUrl } from '../test/helpers/test-database';

const DB_NAME = 'ard_bench_listing';
const ENTRIES = 100_000;

async function main(): Promise<void> {
  const url = databaseUrl(DB_NAME);
  const exists = (await adminQuery('SELECT 1 FROM pg_database WHERE datname = $1', [DB_NAME])).rowCount === 1;
  if (exists && process.env.BENCH_REBUILD === '1') await adminQuery(`DROP DATABASE ${DB_NAME} WITH (FORCE)`);
  if (!exists || process.env.BENCH_REBUILD === '1') await adminQuery(`CREATE DATABASE ${DB_NAME}`);

  const registry = await startRegistry(
    loadConfig({
      port: 0,
      host: '127.0.0.1',
      databaseUrl: url,
      logLevel: 'silent',
      loadDemoCorpus: false,
      publicUrl: 'http://bench.test/',
      peers: [],
      rateLimitPerMinute: 0,
      // Probes would write results for the synthetic entries' hosts, which do not exist, while the listing is timed.
      liveness: { ...loadConfig().liveness, probes: false },
    }),
  );
  try {
    await fill(url);
    console.log(`database ${DB_NAME} on ${new URL(ADMIN_URL).host}; registry at ${registry.url}\n`);

    const get = (path: string) => timed(() => fetch(`${registry.url}${path}`));
    const post = (path: string, body: unknown) =>
      timed(() =>
        fetch(`${registry.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
      );

    for (const { label, params } of [
      { label: 'default order (displayName)', params: {} },
      { label: 'orderBy=updatedAt DESC', params: { orderBy: 'updatedAt DESC' } },
      { label: "filter=type = 'application/a2a-agent-card+json'", params: { filter: "type = 'application/a2a-agent-card+json'" } },
      { label: 'filter=tags:tag7 orderBy=identifier', params: { filter: 'tags:tag7', orderBy: 'identifier' } },
    ] as Array<{ label: string; params: Record<string, string> }>) {
      const base = new URLSearchParams({ ...params, pageSize: '20' });
      const firstPath = `/agents?${base}`;
      const deepToken = await tokenAtDepth(registry.url, base, 500);
      const deepPath = deepToken ? `/agents?${new URLSearchParams({ ...params, pageSize: '20', pageToken: deepToken })}` : null;
      // A filter never seen before (an always-true extra term) makes the registry count afresh.
      const fresh = () =>
        `/agents?${new URLSearchParams({ ...params, pageSize: '20', filter: `${params.filter ?? ''} -version = 'x${Math.random()}'` })}`;
      const cold = await sample(() => get(fresh()), 10, 0);
      const first = await sample(() => get(firstPath), 50);
      const deep = deepPath ? await sample(() => get(deepPath), 50) : null;
      console.log(`GET /agents ${label}`);
      console.log(`  page 1   ${stats(first)}`);
      console.log(`  page 1, total not cached (a new filter each time) ${stats(cold)}`);
      console.log(deep ? `  page 500 ${stats(deep)}` : '  page 500 (fewer than 500 pages match)');
    }

    const facets = { resultType: { facets: [{ field: 'type' }, { field: 'tags' }, { field: 'publisher' }] } };
    console.log('\nPOST /explore, whole registry, facets type + tags + publisher');
    console.log(`  ${stats(await sample(() => post('/explore', facets), 10))}`);
    const withFilter = { query: { filter: { type: 'application/mcp-server-card+json' } }, ...facets };
    console.log('POST /explore, filter type = mcp-server-card, same 3 facets');
    console.log(`  ${stats(await sample(() => post('/explore', withFilter), 10))}`);
    const deepFacets = { resultType: { facets: [{ field: 'metadata.category' }, { field: 'capabilities' }, { field: 'version' }] } };
    console.log('POST /explore, whole registry, facets metadata.category + capabilities + version');
    console.log(`  ${stats(await sample(() => post('/explore', deepFacets), 10))}`);
  } finally {
    await registry.stop();
  }
}

/** Generates the data set in the database itself (about a minute), unless it is already there. */
async function fill(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query(`SELECT count(*)::int AS n FROM entries`);
    if (rows[0].n >= ENTRIES) return;
    const started = performance.now();
    await client.query('DROP INDEX IF EXISTS entry_vectors_use_lite_doc_hnsw');
    await client.query('TRUNCATE entries CASCADE');
    await client.query(
      `INSERT INTO entries (identifier, publisher, type, display_name, description, version, tags, capabilities,
                            entry, host, content_hash, origin, fetched_at, created_at, updated_at, search_text)
       SELECT s.id, s.pub, s.typ, s.name, s.descr, s.ver, s.tags, s.caps,
              jsonb_strip_nulls(jsonb_build_object('identifier', s.id, 'displayName', s.name, 'type', s.typ,
                'url', 'https://' || s.pub || '/a/' || s.i, 'description', s.descr, 'version', s.ver,
                'tags', to_jsonb(s.tags), 'capabilities', to_jsonb(s.caps),
                'metadata', jsonb_build_object('category', 'cat' || (s.i % 30), 'stars', s.i % 1000))),
              jsonb_build_object('displayName', 'Host ' || (s.i % 50)),
              md5(s.id), 'bench', now(), s.created, s.created + (s.i % 1000) * interval '1 minute', s.name || ' ' || s.descr
       FROM (
         SELECT i,
                'urn:air:pub' || (i % 2000) || '.example.com:agent:a' || i AS id,
                'pub' || (i % 2000) || '.example.com' AS pub,
                (ARRAY['application/mcp-server-card+json', 'application/mcp-server-card+json', 'application/mcp-server-card+json',
                       'application/a2a-agent-card+json', 'application/ai-skill'])[1 + (i * 7919) % 5] AS typ,
                initcap((ARRAY['weather', 'search', 'git', 'slack', 'postgres', 'calendar', 'mail', 'docs', 'finance', 'maps'])[1 + (i * 31) % 10])
                  || ' ' || (ARRAY['Agent', 'Server', 'Tool', 'Bot', 'Helper'])[1 + (i * 17) % 5] || ' ' || i AS name,
                'Synthetic entry number ' || i || ' for the listing benchmark' AS descr,
                CASE WHEN i % 3 = 0 THEN NULL ELSE (i % 5) || '.' || (i % 11) || '.0' END AS ver,
                ARRAY(SELECT DISTINCT 'tag' || floor(power(random(), 2) * 300)::int FROM generate_series(1, 2 + i % 5) g WHERE g > 0 * i) AS tags,
                ARRAY(SELECT 'cap_' || floor(random() * 500)::int FROM generate_series(1, i % 4) g WHERE g > 0 * i) AS caps,
                timestamptz '2025-01-01' + (i % 500000) * interval '1 minute' AS created
         FROM generate_series(1, ${ENTRIES}) AS i
       ) s`,
    );
    await client.query(
      `INSERT INTO entry_vectors (identifier, model, field, embedding)
       SELECT e.identifier, 'use-lite-512', 'doc', ARRAY(SELECT random() - 0.5 FROM generate_series(1, 512) g WHERE g > 0 * length(e.identifier))::vector
       FROM entries e`,
    );
    // What autovacuum does on a live registry: statistics, and the visibility map index-only scans need.
    await client.query('VACUUM ANALYZE entries');
    await client.query('VACUUM ANALYZE entry_vectors');
    await client.query('VACUUM ANALYZE entry_facet_values');
    await client.query('VACUUM ANALYZE facet_value_counts');
    console.log(`generated ${ENTRIES} entries with random vectors in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  } finally {
    await client.end();
  }
}

async function tokenAtDepth(baseUrl: string, params: URLSearchParams, page: number): Promise<string | null> {
  let token: string | undefined;
  for (let i = 1; i < page; i++) {
    const qs = new URLSearchParams(params);
    if (token) qs.set('pageToken', token);
    const res = await fetch(`${baseUrl}/agents?${qs}`);
    const body = (await res.json()) as { pageToken?: string };
    if (!res.ok || !body.pageToken) return null;
    token = body.pageToken;
  }
  return token ?? null;
}

async function timed(call: () => Promise<Response>): Promise<number> {
  const start = performance.now();
  const res = await call();
  await res.arrayBuffer();
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
  return performance.now() - start;
}

async function sample(run: () => Promise<number>, n: number, warmUp = 5): Promise<number[]> {
  for (let i = 0; i < warmUp; i++) await run(); // plans, caches, connections
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(await run());
  return out.sort((a, b) => a - b);
}

function stats(sorted: number[]): string {
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))].toFixed(1);
  return `p50 ${at(0.5)} ms  p95 ${at(0.95)} ms  (n=${sorted.length})`;
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
