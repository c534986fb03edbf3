import { sql } from 'kysely';
import { getSetting } from '../../src/db/settings';
import { ACTIVE_MODEL_SETTING, EmbeddingModels, entriesMissingVectors } from '../../src/embedding/model-switch';
import { ingestManifest } from '../../src/ingest/ingest-manifest';
import { normaliseFilter } from '../../src/search/query-filter';
import { matchText, prepareQuery } from '../../src/search/relevance';
import { hashingEmbedder } from '../helpers/hashing-embedder';
import { useMigratedTestDatabase } from '../helpers/demo-database';

const database = useMigratedTestDatabase();

const manifest = {
  specVersion: '1.0',
  entries: ['weather forecast', 'github issues', 'postgres database', 'slack messages', 'stock prices'].map((name, i) => ({
    identifier: `urn:air:example.com:tools:t${i}`,
    displayName: name,
    type: 'application/mcp-server-card+json',
    url: `https://example.com/${i}`,
    description: `A server for ${name}.`,
  })),
};

const oldModel = hashingEmbedder('hash-old-64', 64);
const newModel = hashingEmbedder('hash-new-32', 32);

beforeAll(async () => {
  await ingestManifest({ db: database.db, embedder: oldModel }, manifest, { origin: 'test' });
});

describe('re-embedding on a model change, without downtime', () => {
  it('search keeps the old model until the new one covers every entry, then switches', async () => {
    const models = new EmbeddingModels(database.db, oldModel, newModel);
    expect((await models.refresh()).id).toBe('hash-old-64');

    // Stop after the first batch: incomplete, so search must still read the old model.
    expect(await models.reembed({ batchSize: 2, onBatch: () => false })).toBe(false);
    expect(models.embedder.id).toBe('hash-old-64');
    expect(await getSetting(database.db, ACTIVE_MODEL_SETTING)).toBeNull();
    expect((await entriesMissingVectors(database.db, 'hash-new-32', 100)).length).toBe(3);
    const during = await matchText({ db: database.db, embedder: models.embedder }, 'weather forecast', normaliseFilter(undefined));
    expect(during[0].identifier).toBe('urn:air:example.com:tools:t0');

    // An entry ingested during the switch (with the active model) is picked up before switching.
    await ingestManifest(
      { db: database.db, embedder: models.embedder },
      {
        specVersion: '1.0',
        entries: [{ ...manifest.entries[0], identifier: 'urn:air:example.com:tools:late', displayName: 'late calendar tool' }],
      },
      { origin: 'test-late' },
    );

    expect(await models.reembed({ batchSize: 2 })).toBe(true);
    expect(models.embedder.id).toBe('hash-new-32');
    expect(models.embedder.dimensions).toBe(32);
    expect(await getSetting(database.db, ACTIVE_MODEL_SETTING)).toBe('hash-new-32');
    expect(await entriesMissingVectors(database.db, 'hash-new-32', 100)).toEqual([]);
    // The new model's HNSW indexes: its doc vectors', and its tag vectors' (topic labels beyond TOPIC_POPULATION tags).
    const indexes = await sql<{ indexname: string }>`SELECT indexname FROM pg_indexes WHERE indexname LIKE '%hash_new_32%'`.execute(
      database.db,
    );
    expect(indexes.rows.map((r) => r.indexname).sort()).toEqual(['entry_vectors_hash_new_32_doc_hnsw', 'tag_vectors_hash_new_32_hnsw']);
    const after = await prepareQuery(database.db, models.embedder, 'late calendar');
    expect(after.model).toBe('hash-new-32');
    expect(after.vector.length).toBe(32);
    expect((await matchText({ db: database.db, embedder: models.embedder }, after.text, normaliseFilter(undefined)))[0].identifier).toBe(
      'urn:air:example.com:tools:late',
    );

    // Another process starting with the same configuration reads the switched model at once.
    const other = new EmbeddingModels(database.db, oldModel, newModel);
    expect((await other.refresh()).id).toBe('hash-new-32');
  });

  it('without a configured model the bundled one is the goal: back from another model it fills its gaps', async () => {
    const back = new EmbeddingModels(database.db, oldModel, null);
    expect(back.goalId()).toBe('hash-old-64');
    expect((await entriesMissingVectors(database.db, 'hash-old-64', 100)).length).toBe(0);
    expect(await back.reembed()).toBe(true);
    expect(await getSetting(database.db, ACTIVE_MODEL_SETTING)).toBe('hash-old-64');
  });
});
