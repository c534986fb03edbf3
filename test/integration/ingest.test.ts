// Ingestion into a fresh empty database: idempotent upsert by identifier, per-entry rejection,
// and filters over the spec's example manifests (trustManifest arrays, host, metadata scalars).
import type { CatalogEntry } from '../../src/catalog/catalog-entry';
import { getLiveEntry } from '../../src/catalog/entry-repository';
import { glossFor } from '../../src/catalog/product-glossary';
import { inlineTools } from '../../src/catalog/entry-tools';
import { entryEmbeddingTexts, toolEmbeddingTexts } from '../../src/embedding/entry-texts';
import { ingestManifest, WRITE_STAGES, type WriteStageTimings } from '../../src/ingest/ingest-manifest';
import { createOpenApiBackend } from '../../src/http/openapi';
import { countingEmbedder, FIXTURE_MANIFESTS, ingestFixtures, readFixture, type CountingEmbedder } from '../helpers/fixtures';
import { startTestRegistry, type TestRegistry } from '../helpers/registry';

let registry: TestRegistry;
let embedder: CountingEmbedder;
const api = createOpenApiBackend();
/** Texts embedded for a manifest's entries: one per embedded field an entry has, one per tool of its inline card (entry-texts.ts). */
const embeddedTextCount = (entries: CatalogEntry[]) =>
  entries.reduce(
    (n, entry) =>
      n +
      Object.values(entryEmbeddingTexts(entry, glossFor(entry))).filter((t) => t !== '').length +
      toolEmbeddingTexts(inlineTools(entry)).length,
    0,
  );
const fixtureTextCount = FIXTURE_MANIFESTS.reduce((n, name) => n + embeddedTextCount(readFixture(name).entries as CatalogEntry[]), 0);
// Each distinct tag is embedded once as well (tag_vectors, the topic labels of search).
const fixtureTagCount = new Set(
  FIXTURE_MANIFESTS.flatMap((name) => (readFixture(name).entries as CatalogEntry[]).flatMap((e) => e.tags ?? [])),
).size;

beforeAll(async () => {
  embedder = countingEmbedder();
  registry = await startTestRegistry({ withDemoCorpus: false, context: { embedder } });
  await api.init();
});
afterAll(async () => {
  await registry.close();
});

const deps = () => ({ db: registry.ctx.db, embedder });
const ids = (body: { results: Array<{ identifier: string }> }) => body.results.map((r) => r.identifier);

async function search(text: string, filter?: Record<string, string | string[]>) {
  const res = await registry.post('/search', { query: { text, ...(filter ? { filter } : {}) }, pageSize: 100 });
  expect(res.status).toBe(200);
  expect(api.validateResponse(res.body, 'searchAgents', 200).errors ?? []).toEqual([]);
  return res.body as { results: Array<Record<string, any> & { identifier: string }> };
}

describe('ingestion (idempotent upsert by identifier)', () => {
  it('stores every valid fixture entry and embeds each once', async () => {
    const reports = await ingestFixtures(registry.ctx.db, embedder);
    expect(reports.map((r) => r.added)).toEqual(FIXTURE_MANIFESTS.map((name) => readFixture(name).entries.length));
    expect(reports.every((r) => r.rejected.length === 0 && r.updated === 0 && r.unchanged === 0)).toBe(true);
    expect(embedder.entryTexts).toHaveLength(fixtureTextCount + fixtureTagCount);
    const stored = await getLiveEntry(registry.ctx.db, 'urn:air:noaa.gov:api:climate-data-online');
    // The API returns exactly what was ingested.
    expect(stored?.entry).toEqual(readFixture('noaa-weather-catalog.json').entries[0]);
  });

  it('a second run of the same manifests reports everything unchanged and embeds nothing', async () => {
    const before = embedder.entryTexts.length;
    const reports = await ingestFixtures(registry.ctx.db, embedder);
    expect(reports.map((r) => [r.added, r.updated, r.unchanged])).toEqual(
      FIXTURE_MANIFESTS.map((name) => [0, 0, readFixture(name).entries.length]),
    );
    expect(embedder.entryTexts.length).toBe(before);
  });

  it('adds the time of each stage of the write to stageTimings; nothing changed, nothing is vacuumed', async () => {
    const manifest = {
      specVersion: '1.0',
      entries: [1, 2].map((n) => ({
        identifier: `urn:air:stages.example:mcp:timed-${n}`,
        displayName: `Timed ${n}`,
        type: 'application/mcp-server-card+json',
        url: `https://stages.example/${n}.json`,
        description: 'Reads the weather of a city.',
        tags: ['weather'],
      })),
    };
    const first: WriteStageTimings = {};
    const started = performance.now();
    const report = await ingestManifest(deps(), manifest, { origin: 'test:stages', stageTimings: first });
    const wall = performance.now() - started;
    expect(report.added).toBe(2);
    expect(Object.keys(first).sort()).toEqual([...WRITE_STAGES].sort());
    for (const stage of ['select', 'embed', 'entries', 'vectors', 'vacuum'] as const) expect(first[stage]).toBeGreaterThan(0);
    const total = WRITE_STAGES.reduce((sum, stage) => sum + (first[stage] ?? 0), 0);
    expect(total).toBeLessThanOrEqual(wall);
    expect(first.commit).toBeGreaterThanOrEqual(0);

    // Timings add up over calls; an unchanged manifest writes nothing and skips the vacuum.
    const again: WriteStageTimings = { vacuum: 0 };
    expect((await ingestManifest(deps(), manifest, { origin: 'test:stages', stageTimings: again })).unchanged).toBe(2);
    expect(again.vacuum).toBe(0);
    expect(again.select).toBeGreaterThan(0);
  });

  it('a changed entry is updated in place and only it is re-embedded', async () => {
    const manifest = readFixture('metadata-catalog.json');
    manifest.entries[1] = { ...manifest.entries[1], description: 'Data toolkit for charting and plotting spreadsheet data.' };
    const before = embedder.entryTexts.length;
    const report = await ingestManifest(deps(), manifest, { origin: 'file:changed' });
    expect([report.added, report.updated, report.unchanged]).toEqual([0, 1, 2]);
    // Only the changed entry: each of its embedded fields once, and no other entry's text.
    expect(embedder.entryTexts.slice(before)).toEqual(
      Object.values(entryEmbeddingTexts(manifest.entries[1] as CatalogEntry, glossFor(manifest.entries[1] as CatalogEntry))).filter(
        (t) => t !== '',
      ),
    );
    expect(embedder.entryTexts.slice(before).some((t) => t.includes('charting and plotting'))).toBe(true);
    expect((await getLiveEntry(registry.ctx.db, 'urn:air:tools.example:mcp:beta'))?.entry.description).toBe(
      'Data toolkit for charting and plotting spreadsheet data.',
    );
    // Back to the fixture for the filter tests below.
    await ingestFixtures(registry.ctx.db, embedder, ['metadata-catalog.json']);
  });

  it('an invalid entry never blocks valid ones and never changes what was stored for its identifier', async () => {
    const original = await getLiveEntry(registry.ctx.db, 'urn:air:fda.gov:api:drug-ndc');
    const { url: _url, ...withoutUrl } = readFixture('fda-ndc-catalog.json').entries[0];
    const report = await ingestManifest(
      deps(),
      {
        specVersion: '1.0',
        entries: [
          { ...withoutUrl, displayName: 'Broken FDA entry' },
          {
            identifier: 'urn:air:fresh.example:mcp:new',
            displayName: 'Fresh Entry',
            type: 'application/mcp-server-card+json',
            url: 'https://fresh.example/new.json',
          },
          { identifier: 'not-a-urn', displayName: 'Bad', type: 'x', url: 'https://bad.example/' },
        ],
      },
      { origin: 'file:mixed' },
    );
    expect(report.added).toBe(1);
    expect(report.rejected).toEqual([
      { index: 0, identifier: 'urn:air:fda.gov:api:drug-ndc', reason: 'entry must have exactly one of "url" or "data" (ARD §3.4)' },
      {
        index: 2,
        identifier: 'not-a-urn',
        reason: 'entry.identifier must be a URN of the form urn:air:<publisher>:<namespace>:<name> (ARD §4.2.1)',
      },
    ]);
    expect(await getLiveEntry(registry.ctx.db, 'urn:air:fda.gov:api:drug-ndc')).toEqual(original);
    expect((await getLiveEntry(registry.ctx.db, 'urn:air:fresh.example:mcp:new'))?.entry.displayName).toBe('Fresh Entry');
  });

  it('an entry holding text PostgreSQL cannot store (NUL, an unpaired surrogate) is rejected naming the field; the rest are stored', async () => {
    const entry = (name: string, extra: Record<string, unknown>) => ({
      identifier: `urn:air:text.example:mcp:${name}`,
      displayName: name,
      type: 'application/mcp-server-card+json',
      url: `https://text.example/${name}`,
      ...extra,
    });
    const manifest = JSON.parse(`{"specVersion":"1.0","entries":[
      ${JSON.stringify(entry('nul', { description: 'a\u0000b' }))},
      ${JSON.stringify(entry('surrogate', { metadata: { note: 'x' } })).replace('"x"', '"\\udfff"')},
      ${JSON.stringify(entry('surrogate-tag', { tags: ['ok'] })).replace('"ok"', '"\\ud83d"')},
      ${JSON.stringify(entry('surrogate-key', { metadata: { k: 1 } })).replace('"k"', '"\\udc00"')},
      ${JSON.stringify(entry('emoji', { description: 'rain \ud83c\udf27' }))}
    ]}`);
    const report = await ingestManifest(deps(), manifest, { origin: 'file:text' });
    expect(report.added).toBe(1);
    expect(report.rejected).toEqual([
      {
        index: 0,
        identifier: 'urn:air:text.example:mcp:nul',
        reason: 'entry.description contains a NUL character (U+0000), which cannot be stored',
      },
      {
        index: 1,
        identifier: 'urn:air:text.example:mcp:surrogate',
        reason: 'entry.metadata.note contains an unpaired UTF-16 surrogate (\\udfff), which cannot be stored',
      },
      {
        index: 2,
        identifier: 'urn:air:text.example:mcp:surrogate-tag',
        reason: 'entry.tags[0] contains an unpaired UTF-16 surrogate (\\ud83d), which cannot be stored',
      },
      {
        index: 3,
        identifier: 'urn:air:text.example:mcp:surrogate-key',
        reason: 'a key in entry.metadata contains an unpaired UTF-16 surrogate (\\udc00), which cannot be stored',
      },
    ]);
    expect((await getLiveEntry(registry.ctx.db, 'urn:air:text.example:mcp:emoji'))?.entry.description).toBe('rain \u{1F327}');
    expect(await getLiveEntry(registry.ctx.db, 'urn:air:text.example:mcp:surrogate')).toBeNull();
    // The manifest's host is stored with every entry: such text there refuses the manifest, naming it.
    const badHost = JSON.parse('{"specVersion":"1.0","host":{"displayName":"Text \\udfff Example"},"entries":[]}');
    await expect(ingestManifest(deps(), badHost, { origin: 'file:host' })).rejects.toThrow(
      'file:host is not a valid ai-catalog manifest: manifest.host.displayName contains an unpaired UTF-16 surrogate (\\udfff), which cannot be stored',
    );
  });

  it('a duplicate identifier within one manifest: the first is stored, the second rejected with the reason', async () => {
    const first = {
      identifier: 'urn:air:dup.example:mcp:one',
      displayName: 'First Copy',
      type: 'application/mcp-server-card+json',
      url: 'https://dup.example/1',
    };
    const report = await ingestManifest(
      deps(),
      { specVersion: '1.0', entries: [first, { ...first, displayName: 'Second Copy' }] },
      { origin: 'file:dup' },
    );
    expect(report.added).toBe(1);
    expect(report.rejected).toEqual([
      {
        index: 1,
        identifier: 'urn:air:dup.example:mcp:one',
        reason: "duplicate identifier: an earlier entry of this manifest has 'urn:air:dup.example:mcp:one'",
      },
    ]);
    expect((await getLiveEntry(registry.ctx.db, 'urn:air:dup.example:mcp:one'))?.entry.displayName).toBe('First Copy');
  });
});

describe('filters over ingested manifests (ARD §7.1)', () => {
  /** A filter keeps exactly the unfiltered results that satisfy it, in the same order. */
  async function expectFilterNarrows(
    text: string,
    filter: Record<string, string | string[]>,
    keep: (r: Record<string, any>) => boolean,
    expected: string[],
  ) {
    const all = await search(text);
    const filtered = await search(text, filter);
    expect(ids(filtered)).toEqual(ids(all).filter((_, i) => keep(all.results[i])));
    expect(new Set(ids(filtered))).toEqual(new Set(expected));
    // The filter removed something the query alone found: it was tested, not vacuous.
    expect(all.results.length).toBeGreaterThan(filtered.results.length);
  }

  it('a path into an array matches when any element matches: trustManifest.attestations.type (ARD §7.1)', async () => {
    const hasAttestation = (type: string) => (r: Record<string, any>) =>
      (r.trustManifest?.attestations ?? []).some((a: { type: string }) => a.type === type);
    await expectFilterNarrows(
      'official government data',
      { 'trustManifest.attestations.type': 'Official-Government-API' },
      hasAttestation('Official-Government-API'),
      ['urn:air:noaa.gov:api:climate-data-online', 'urn:air:fda.gov:api:drug-ndc'],
    );
    const soc2 = await search('travel planning agent registry', { 'trustManifest.attestations.type': ['SOC2-Type2'] });
    expect(ids(soc2).sort()).toEqual(['urn:air:acme.com:registry:global', 'urn:air:acme.com:travel:concierge']);
  });

  it('host.* filters read the manifest host (ARD §7.1)', async () => {
    await expectFilterNarrows(
      'spreadsheet data',
      { 'host.identifier': 'did:web:tools.example' },
      (r) => r.identifier.startsWith('urn:air:tools.example:'),
      ['urn:air:tools.example:mcp:alpha', 'urn:air:tools.example:mcp:beta', 'urn:air:tools.example:mcp:gamma'],
    );
    const fda = await search('drug data', { 'host.displayName': 'U.S. Food and Drug Administration' });
    expect(ids(fda)).toEqual(['urn:air:fda.gov:api:drug-ndc']);
  });

  it('metadata numbers and booleans match their text form exactly', async () => {
    await expectFilterNarrows('spreadsheet data toolkit', { 'metadata.stars': '42' }, (r) => r.metadata?.stars === 42, [
      'urn:air:tools.example:mcp:alpha',
    ]);
    const verified = await search('spreadsheet data toolkit', { 'metadata.verified': 'true' });
    expect(ids(verified).sort()).toEqual(['urn:air:tools.example:mcp:alpha', 'urn:air:tools.example:mcp:gamma']);
    const either = await search('spreadsheet data toolkit', { 'metadata.stars': ['7', '42.5'], 'metadata.verified': 'false' });
    expect(ids(either)).toEqual(['urn:air:tools.example:mcp:beta']);
  });
});
