// The embedded default (PGlite with pgvector and pg_trgm in DATA_DIR) answers POST /search like
// PostgreSQL does: same SQL, same ranking. Needs NODE_OPTIONS=--experimental-vm-modules (npm run test:jest).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { loadConfig } from '../../src/config';
import { createOpenApiBackend } from '../../src/http/openapi';
import { startRegistry, type RunningRegistry } from '../../src/server';
import { UseLiteEmbedder } from '../../src/embedding/use-lite-embedder';
import { countingEmbedder, FIXTURE_MANIFESTS, ingestFixtures, memoEmbedder, readFixture } from '../helpers/fixtures';
import { startTestRegistry, type TestRegistry } from '../helpers/registry';

const embedder = countingEmbedder(memoEmbedder(new UseLiteEmbedder()));
const api = createOpenApiBackend();
let dataDir: string;
let embedded: RunningRegistry;
let postgres: TestRegistry;

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ard-embedded-'));
  const config = loadConfig({
    port: 0,
    host: '127.0.0.1',
    databaseUrl: null,
    dataDir,
    logLevel: 'silent',
    loadDemoCorpus: false,
    publicUrl: 'http://registry.test/',
  });
  embedded = await startRegistry(config, { embedder });
  postgres = await startTestRegistry({ withDemoCorpus: false, context: { embedder } });
  await api.init();
  await ingestFixtures(embedded.ctx.db, embedder);
  await ingestFixtures(postgres.ctx.db, embedder);
  // PGlite compiles PostgreSQL (WebAssembly) at start: tens of seconds when the 2 cores are shared.
}, 180_000);
afterAll(async () => {
  await embedded?.stop();
  await postgres?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function searchAt(baseUrl: string, body: unknown) {
  const res = await fetch(`${baseUrl}/search`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as { results: Array<{ identifier: string; score: number }>; pageToken?: string } };
}

describe('embedded database (PGlite)', () => {
  it('runs on PGlite with the pgvector and pg_trgm extensions', async () => {
    expect(embedded.ctx.database.kind).toBe('embedded');
    const { rows } = await sql<{ extname: string }>`SELECT extname FROM pg_extension`.execute(embedded.ctx.db);
    expect(rows.map((r) => r.extname)).toEqual(expect.arrayContaining(['vector', 'pg_trgm']));
    expect(fs.readdirSync(dataDir).length).toBeGreaterThan(0);
  });

  it('answers POST /search over HTTP with responses valid against the OpenAPI document', async () => {
    const res = await searchAt(embedded.url, { query: { text: 'weather forecast and climate data' }, pageSize: 2 });
    expect(res.status).toBe(200);
    expect(api.validateResponse(res.body, 'searchAgents', 200).errors ?? []).toEqual([]);
    expect(res.body.results[0]).toMatchObject({ identifier: 'urn:air:noaa.gov:api:climate-data-online', source: 'http://registry.test/' });
    const bad = await searchAt(embedded.url, { query: { text: 'x', filter: { colour: 'blue' } } });
    expect(bad.status).toBe(400);
  });

  it.each([
    ['weather forecast and climate data', undefined],
    ['plumbing and drain repair', undefined],
    ['spreadsheet data toolkit', { 'metadata.verified': 'true' }],
    ['official government data', { 'trustManifest.attestations.type': 'Official-Government-API' }],
    ['drug information lookup', undefined],
  ])('gives the same ranking as PostgreSQL: %s', async (text, filter) => {
    const body = { query: { text, ...(filter ? { filter } : {}) }, pageSize: 100 };
    const [onPglite, onPostgres] = await Promise.all([searchAt(embedded.url, body), searchAt(postgres.url, body)]);
    expect(onPglite.status).toBe(200);
    expect(onPglite.body.results.length).toBeGreaterThan(0);
    expect(onPglite.body.results).toEqual(onPostgres.body.results);
  });

  it('stored the same entries in both databases', async () => {
    const count = async (r: RunningRegistry) =>
      (await r.ctx.db.selectFrom('entries').select('identifier').orderBy('identifier').execute()).map((x) => x.identifier);
    expect(await count(embedded)).toEqual(await count(postgres));
    expect((await count(embedded)).length).toBe(FIXTURE_MANIFESTS.reduce((n, name) => n + readFixture(name).entries.length, 0));
  });
});
