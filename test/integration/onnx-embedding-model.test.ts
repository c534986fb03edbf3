/**
 * @jest-environment ./test/helpers/native-typed-arrays-environment.js
 */
// EMBEDDING_MODEL_DIR with the real runtime: transformers.js and onnxruntime-node (installed outside the
// registry's dependencies by scripts/install-onnx-runtime.sh) running a real ONNX model folder, written by
// the test (test/helpers/tiny-onnx-model.ts: a token-embedding table, mean-pooled). Checks the vectors
// against an independent computation, then the background re-embedding and search on that model.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { withQueryCache } from '../../src/embedding/embedder';
import { glossFor } from '../../src/catalog/product-glossary';
import { entryEmbeddingTexts } from '../../src/embedding/entry-texts';
import { EmbeddingModels } from '../../src/embedding/model-switch';
import { loadOnnxEmbedder } from '../../src/embedding/onnx-embedder';
import { ingestManifest } from '../../src/ingest/ingest-manifest';
import { normaliseFilter } from '../../src/search/query-filter';
import { matchText } from '../../src/search/relevance';
import type { CatalogEntry } from '../../src/catalog/catalog-entry';
import { hashingEmbedder } from '../helpers/hashing-embedder';
import { useMigratedTestDatabase } from '../helpers/demo-database';
import { onnxRuntimeLoader, writeTinyOnnxModel, type TinyModel } from '../helpers/tiny-onnx-model';

const database = useMigratedTestDatabase();

const TOPICS = { weather: 0, forecast: 0, drizzle: 0, slack: 1, chat: 1, postgres: 2, database: 2, sql: 2 };
const entries: CatalogEntry[] = ['weather forecast', 'slack chat', 'postgres database', 'stock prices'].map((name, i) => ({
  identifier: `urn:air:example.com:tools:t${i}`,
  displayName: name,
  type: 'application/mcp-server-card+json',
  url: `https://example.com/${i}`,
  description: `A server for ${name}.`,
}));

let parent: string;
let model: TinyModel;

beforeAll(async () => {
  parent = fs.mkdtempSync(path.join(os.tmpdir(), 'ard-onnx-'));
  model = writeTinyOnnxModel(parent, 'tiny-bow', TOPICS, 8);
});
afterAll(async () => {
  fs.rmSync(parent, { recursive: true, force: true });
});

const dot = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i], 0);

describe('a local ONNX sentence-embedding model (EMBEDDING_MODEL_DIR), real runtime', () => {
  it('loads the folder and embeds each text as the model computes it (padding of a batch included)', async () => {
    const embedder = await loadOnnxEmbedder(model.dir, onnxRuntimeLoader());
    expect(embedder.id).toBe('onnx:tiny-bow:8');
    expect(embedder.dimensions).toBe(8);
    const texts = ['Weather forecast', 'post to the slack chat about the postgres database', 'nothing known here', 'SQL'];
    const vectors = await embedder.embed(texts);
    texts.forEach((text, i) => {
      const expected = model.expectedVector(text);
      expect(vectors[i]).toHaveLength(8);
      vectors[i].forEach((x, j) => expect(x).toBeCloseTo(expected[j], 6));
    });
  });

  it('the index is re-embedded with it in the background, then search ranks by its vectors', async () => {
    const bundled = hashingEmbedder('hash-bundled-64', 64);
    await ingestManifest({ db: database.db, embedder: bundled }, { specVersion: '1.0', entries }, { origin: 'test' });
    const onnx = withQueryCache(await loadOnnxEmbedder(model.dir, onnxRuntimeLoader()));
    const models = new EmbeddingModels(database.db, withQueryCache(bundled), onnx);
    expect((await models.refresh()).id).toBe('hash-bundled-64');
    expect(await models.reembed({ batchSize: 3 })).toBe(true);
    expect(models.embedder.id).toBe('onnx:tiny-bow:8');

    // "drizzle" is in no entry (no lexical match): only the model relates it to the weather entry.
    const matches = await matchText({ db: database.db, embedder: models.embedder }, 'drizzle', normaliseFilter(undefined));
    expect(matches.map((m) => m.identifier)).toEqual(['urn:air:example.com:tools:t0']);
    const query = model.expectedVector('drizzle');
    const texts = entryEmbeddingTexts(entries[0], glossFor(entries[0]));
    const best = Math.max(dot(query, model.expectedVector(texts.doc)), dot(query, model.expectedVector(texts.description)));
    expect(matches[0].cosine).toBeCloseTo(best, 5);
    expect(matches[0].lexical).toBe(0);

    // A word of another topic finds its entry first, by the same model.
    expect((await matchText({ db: database.db, embedder: models.embedder }, 'sql', normaliseFilter(undefined)))[0].identifier).toBe(
      'urn:air:example.com:tools:t2',
    );
  });
});
