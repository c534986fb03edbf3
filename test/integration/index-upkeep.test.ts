// The index upkeep at start (src/embedding/index-upkeep.ts) on a real PostgreSQL + pgvector: a database whose
// glosses were written with another product glossary and whose goal embedding model is not the active one.
// The gloss rewrite runs before the re-embedding, so every vector of the new model embeds the new gloss. The
// new model here is slow on purpose: run beside the rewrite, the re-embedding would read an entry's old
// gloss and store its vector after the rewrite had passed that entry.
import { sql } from 'kysely';
import { glossFor, parseProductGlossary, PRODUCT_GLOSSARY } from '../../src/catalog/product-glossary';
import type { CatalogEntry } from '../../src/catalog/catalog-entry';
import { getSetting } from '../../src/db/settings';
import { withQueryCache, type Embedder } from '../../src/embedding/embedder';
import { entryEmbeddingTexts } from '../../src/embedding/entry-texts';
import { GLOSSARY_VERSION_SETTING, refreshGlosses } from '../../src/embedding/gloss-refresh';
import { startIndexUpkeep } from '../../src/embedding/index-upkeep';
import { ACTIVE_MODEL_SETTING, EmbeddingModels } from '../../src/embedding/model-switch';
import { ingestManifest } from '../../src/ingest/ingest-manifest';
import { createLogger } from '../../src/logger';
import { hashingEmbedder } from '../helpers/hashing-embedder';
import { useMigratedTestDatabase } from '../helpers/demo-database';

const database = useMigratedTestDatabase();

const PRODUCTS = [
  'pagerduty',
  'metabase',
  'hubspot',
  'redfish',
  'shodan',
  'adzuna',
  'mteb',
  'bm25',
  'glif',
  'cylera',
  'uberall',
  'jetbrains',
];
const entries: CatalogEntry[] = PRODUCTS.map((name, i) => ({
  identifier: `urn:air:example.com:tools:p${String(i).padStart(2, '0')}`,
  displayName: `${name} tools`,
  type: 'application/mcp-server-card+json',
  url: `https://example.com/${name}`,
  description: `Works with ${name}.`,
}));
/** A glossary that names none of them: the glosses the database was written with. */
const EMPTY = parseProductGlossary({ zqxjv: 'a product no entry names' }, 'empty.json');

/** The hashing embedder, answering each batch after `delayMs`. */
function slowEmbedder(id: string, delayMs: number): Embedder {
  const fast = hashingEmbedder(id, 32);
  return {
    id,
    dimensions: 32,
    async embed(texts: string[]) {
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      return fast.embed(texts);
    },
  };
}

describe('index upkeep at start', () => {
  it('rewrites the glosses before re-embedding with the goal model, so its vectors embed the new glosses', async () => {
    const bundled = hashingEmbedder('hash-bundled-48', 48);
    await ingestManifest({ db: database.db, embedder: bundled, glossary: EMPTY }, { specVersion: '1.0', entries }, { origin: 'test' });
    await refreshGlosses(database.db, bundled, { glossary: EMPTY });
    const glossed = entries.filter((e) => glossFor(e) !== '');
    expect(glossed.length).toBe(entries.length);

    const target = withQueryCache(slowEmbedder('hash-target-32', 40));
    const models = new EmbeddingModels(database.db, bundled, target);
    await models.refresh();
    const upkeep = startIndexUpkeep({
      db: database.db,
      embedder: models.embedder,
      models,
      glossary: PRODUCT_GLOSSARY,
      logger: createLogger('silent'),
      batchSize: 3,
    });
    await upkeep.done;

    expect(await getSetting(database.db, GLOSSARY_VERSION_SETTING)).toBe(PRODUCT_GLOSSARY.version);
    expect(await getSetting(database.db, ACTIVE_MODEL_SETTING)).toBe('hash-target-32');
    expect(models.embedder.id).toBe('hash-target-32');
    const rows = await sql<{ identifier: string; entry: CatalogEntry; gloss: string; v: string }>`
      SELECT e.identifier, e.entry, e.gloss, v.embedding::text AS v FROM entries e
      JOIN entry_vectors v ON v.identifier = e.identifier AND v.model = 'hash-target-32' AND v.field = 'doc'
      ORDER BY e.identifier`.execute(database.db);
    expect(rows.rows.map((r) => r.identifier)).toEqual(entries.map((e) => e.identifier));
    for (const row of rows.rows) {
      expect(row.gloss).toBe(glossFor(row.entry));
      expect(row.gloss).not.toBe('');
      const [expected] = await target.embed([entryEmbeddingTexts(row.entry, row.gloss).doc]);
      const stored = JSON.parse(row.v) as number[];
      expect(Math.max(...stored.map((x, i) => Math.abs(x - expected[i])))).toBeLessThan(1e-6);
    }
  });

  it('stopped, it ends after the current batch and records neither the glossary nor the switch', async () => {
    const bundled = hashingEmbedder('hash-bundled-48', 48);
    await refreshGlosses(database.db, bundled, { glossary: EMPTY });
    await sql`DELETE FROM registry_settings WHERE key = ${ACTIVE_MODEL_SETTING}`.execute(database.db);
    const target = withQueryCache(slowEmbedder('hash-other-32', 40));
    const models = new EmbeddingModels(database.db, bundled, target);
    await models.refresh();
    const upkeep = startIndexUpkeep({
      db: database.db,
      embedder: models.embedder,
      models,
      glossary: PRODUCT_GLOSSARY,
      logger: createLogger('silent'),
      batchSize: 3,
    });
    upkeep.stop();
    await upkeep.done;
    expect(await getSetting(database.db, GLOSSARY_VERSION_SETTING)).toBe(EMPTY.version);
    expect(await getSetting(database.db, ACTIVE_MODEL_SETTING)).toBeNull();
    expect(models.embedder.id).toBe('hash-bundled-48');
  });
});
