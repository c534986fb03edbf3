// Small manifests under test/fixtures and an embedder that counts what it is asked to embed.
import fs from 'node:fs';
import path from 'node:path';
import type { Kysely } from 'kysely';
import type { Database } from '../../src/db/schema';
import { withQueryCache, type Embedder } from '../../src/embedding/embedder';
import { UseLiteEmbedder } from '../../src/embedding/use-lite-embedder';
import { ingestManifest, type IngestReport } from '../../src/ingest/ingest-manifest';
import type { QueryEmbedder } from '../../src/search/relevance';

export const FIXTURES_DIR = path.resolve(__dirname, '..', 'fixtures');
export const FIXTURE_MANIFESTS = [
  'noaa-weather-catalog.json',
  'fda-ndc-catalog.json',
  'local-business-catalog.json',
  'acme-trust-catalog.json',
  'metadata-catalog.json',
];

export function readFixture(name: string): { specVersion: string; host?: unknown; entries: Array<Record<string, unknown>> } {
  return JSON.parse(fs.readFileSync(path.join(FIXTURES_DIR, name), 'utf8'));
}

export interface CountingEmbedder extends QueryEmbedder {
  /** Texts embedded through embed() (entries), not counting embedOne() (queries). */
  entryTexts: string[];
}

/** One model per test file: loading it costs ~0.5 s and ~250 MB. */
export function countingEmbedder(inner: Embedder = new UseLiteEmbedder()): CountingEmbedder {
  const entryTexts: string[] = [];
  const queries = withQueryCache(inner);
  return {
    id: inner.id,
    dimensions: inner.dimensions,
    entryTexts,
    embed(texts) {
      entryTexts.push(...texts);
      return inner.embed(texts);
    },
    embedOne: (text) => queries.embedOne(text),
  };
}

/** Remembers each text's vector: the same fixtures ingested into two databases are embedded once. */
export function memoEmbedder(inner: Embedder): Embedder {
  const memo = new Map<string, number[]>();
  return {
    id: inner.id,
    dimensions: inner.dimensions,
    async embed(texts) {
      const missing = [...new Set(texts.filter((t) => !memo.has(t)))];
      if (missing.length > 0) (await inner.embed(missing)).forEach((v, i) => memo.set(missing[i], v));
      return texts.map((t) => memo.get(t) as number[]);
    },
  };
}

export async function ingestFixtures(db: Kysely<Database>, embedder: Embedder, names = FIXTURE_MANIFESTS): Promise<IngestReport[]> {
  const reports: IngestReport[] = [];
  for (const name of names) {
    reports.push(await ingestManifest({ db, embedder }, readFixture(name), { origin: `file:test/fixtures/${name}` }));
  }
  return reports;
}
