// Load test: a registry process (spawned, so its RSS is its own) over a PostgreSQL index of ENTRIES
// synthetic entries, held under a mixed read load by autocannon for DURATION seconds at CONNECTIONS
// concurrent connections. Prints throughput, p50/p99 latency, errors, non-2xx and the server's peak RSS.
//
// Entries: generated names/descriptions/tags from a small vocabulary, with RANDOM UNIT VECTORS as
// embeddings (embedding 10k texts with the bundled model takes minutes on 2 shared cores); queries
// are embedded for real by the server, each one a fresh random text so the query cache does not help.
//
//   npm run bench:load                       (10k entries, 60 s, 32 connections)
//   ENTRIES=2000 DURATION=10 npm run bench:load
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import autocannon from 'autocannon';
import { sql } from 'kysely';
import { adminStatement, BENCH_ADMIN_URL, startBenchRegistry } from './bench-util';
import { prepareEntry, storeVectors, upsertEntries } from '../src/catalog/entry-repository';
import type { CatalogEntry } from '../src/catalog/catalog-entry';
import { connectDatabase } from '../src/db/connect';
import { migrateToLatest } from '../src/db/migrate';
import { normalise } from '../src/embedding/embedder';

const ENTRIES = Number(process.env.ENTRIES ?? 10_000);
const DURATION = Number(process.env.DURATION ?? 60);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 32);

const WORDS = (
  'weather forecast calendar email slack github kubernetes cluster database postgres mysql search web ' +
  'translate image video audio payment invoice crm ticket jira notion drive storage backup monitor alert ' +
  'log metrics trace deploy build test code review security scan vulnerability map route travel flight ' +
  'hotel recipe music news stock finance chart report document pdf spreadsheet chat support agent'
).split(' ');
const TYPES = ['application/mcp-server-card+json', 'application/a2a-agent-card+json', 'application/agent-skill+json'];

const pick = <T>(list: T[]) => list[Math.floor(Math.random() * list.length)];
const words = (n: number) => Array.from({ length: n }, () => pick(WORDS)).join(' ');

function syntheticEntry(i: number): CatalogEntry {
  const name = `${words(2)} ${i}`;
  return {
    identifier: `urn:air:bench.example:${i}`,
    displayName: name,
    type: pick(TYPES),
    description: `${name}: ${words(12)}`,
    tags: [pick(WORDS), pick(WORDS)],
    capabilities: [words(1).replace(/ /g, '_')],
    version: '1.0.0',
  } as CatalogEntry;
}

function randomUnitVector(dimensions: number): number[] {
  return normalise(Array.from({ length: dimensions }, () => Math.random() * 2 - 1));
}

async function fillIndex(url: string): Promise<void> {
  // Building HNSW over 10k vectors takes longer than the serving statement timeout.
  const database = await connectDatabase({ databaseUrl: url, dataDir: '', statementTimeoutMs: 600_000 });
  try {
    await migrateToLatest(database.db);
    // HNSW maintained row by row makes a bulk load ~10x slower; build it once afterwards, with
    // the migration's exact definition (the end state is the same index).
    const hnsw = await sql<{
      def: string;
    }>`SELECT indexdef AS def FROM pg_indexes WHERE indexname = 'entry_vectors_use_lite_doc_hnsw'`.execute(database.db);
    await sql`DROP INDEX entry_vectors_use_lite_doc_hnsw`.execute(database.db);
    const fetchedAt = new Date();
    for (let start = 0; start < ENTRIES; start += 1000) {
      const chunk = Array.from({ length: Math.min(1000, ENTRIES - start) }, (_, j) =>
        prepareEntry({ entry: syntheticEntry(start + j), host: undefined, origin: 'bench:synthetic', fetchedAt }),
      );
      await database.db.transaction().execute(async (trx) => {
        await upsertEntries(trx, chunk);
        await storeVectors(
          trx,
          'use-lite-512',
          'doc',
          chunk.map((p) => ({ identifier: p.entry.identifier, vector: randomUnitVector(512) })),
        );
      });
      process.stderr.write(`  indexed ${start + chunk.length}/${ENTRIES}\n`);
    }
    await sql.raw(hnsw.rows[0].def).execute(database.db);
    await sql`ANALYZE`.execute(database.db);
  } finally {
    await database.close();
  }
}

function peakRssBytes(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /VmHWM:\s+(\d+) kB/.exec(status);
  return match ? Number(match[1]) * 1024 : NaN;
}

async function main(): Promise<void> {
  const name = `ard_bench_${randomBytes(4).toString('hex')}`;
  const url = new URL(BENCH_ADMIN_URL);
  url.pathname = `/${name}`;
  await adminStatement(`CREATE DATABASE ${name}`);
  let server: Awaited<ReturnType<typeof startBenchRegistry>> | undefined;
  try {
    const fillStart = Date.now();
    await fillIndex(url.toString());
    process.stderr.write(`index of ${ENTRIES} entries built in ${((Date.now() - fillStart) / 1000).toFixed(1)} s\n`);

    server = await startBenchRegistry(url.toString());
    const { base } = server;
    // Warm the model (first embedding loads it) before measuring.
    await fetch(`${base}/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: { text: 'warm up' } }),
    });

    const json = { 'content-type': 'application/json' };
    const searchBody = (extra: Record<string, unknown> = {}) =>
      JSON.stringify({ query: { text: `${words(3)} ${Math.random().toString(36).slice(2, 6)}`, ...extra }, pageSize: 10 });
    const result = await autocannon({
      url: base,
      connections: CONNECTIONS,
      duration: DURATION,
      requests: [
        { method: 'POST', path: '/search', headers: json, setupRequest: (req) => ({ ...req, body: searchBody() }) },
        {
          method: 'POST',
          path: '/search',
          headers: json,
          setupRequest: (req) => ({ ...req, body: searchBody({ filter: { type: pick(TYPES) } }) }),
        },
        {
          method: 'POST',
          path: '/search',
          headers: json,
          setupRequest: (req) => ({ ...req, body: searchBody({ filter: { tags: [pick(WORDS), pick(WORDS)] } }) }),
        },
        {
          method: 'GET',
          setupRequest: (req) => ({
            ...req,
            path: `/agents?pageSize=20&orderBy=displayName&filter=${encodeURIComponent(`type = '${pick(TYPES)}'`)}`,
          }),
        },
        {
          method: 'GET',
          setupRequest: (req) => ({
            ...req,
            path: `/agents?pageSize=50&orderBy=${encodeURIComponent('updatedAt DESC')}&filter=${encodeURIComponent(`tags:${pick(WORDS)}`)}`,
          }),
        },
        {
          method: 'POST',
          path: '/explore',
          headers: json,
          body: JSON.stringify({ resultType: { facets: [{ field: 'type' }, { field: 'tags' }, { field: 'publisher' }] } }),
        },
        {
          method: 'POST',
          path: '/explore',
          headers: json,
          setupRequest: (req) => ({
            ...req,
            body: JSON.stringify({ query: { text: words(3) }, resultType: { facets: [{ field: 'type' }, { field: 'tags' }] } }),
          }),
        },
        { method: 'GET', path: '/healthz' },
      ],
    });
    const rss = peakRssBytes(server.child.pid!);
    const report = {
      entries: ENTRIES,
      durationSeconds: DURATION,
      connections: CONNECTIONS,
      mix: 'in turn per connection: POST /search x3 (plain, type filter, tags filter; random query text), GET /agents x2 (type filter by displayName; tag filter by updatedAt DESC), POST /explore x2 (whole registry 3 facets; random text 2 facets), GET /healthz',
      requests: result.requests.total,
      throughputPerSecond: result.requests.average,
      latencyMs: { p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99, max: result.latency.max },
      errors: result.errors,
      timeouts: result.timeouts,
      non2xx: result.non2xx,
      serverPeakRssMiB: Math.round(rss / 1024 / 1024),
    };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } finally {
    await server?.stop();
    await adminStatement(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:load failed: ${(error as Error).stack ?? String(error)}\n`);
  process.exitCode = 1;
});
