// The prebuilt vectors of the demo corpus (data/corpus/demo-vectors.bin): the file holds a vector for every
// text a demo corpus load embeds, and the embedder wrapper answers from it and falls back to the model.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Embedder } from '../../src/embedding/embedder';
import { readPrebuiltVectors, withPrebuiltVectors, writePrebuiltVectors } from '../../src/embedding/prebuilt-vectors';
import { UseLiteEmbedder } from '../../src/embedding/use-lite-embedder';
import { DEMO_VECTORS_FILE } from '../../src/ingest/demo-corpus';
import { demoCorpusEmbeddingTexts } from '../../src/ingest/demo-corpus-texts';

const bundled = new UseLiteEmbedder();

describe('data/corpus/demo-vectors.bin', () => {
  it('has a vector of the bundled model for every text the demo corpus load embeds (else: npm run build:demo-vectors)', async () => {
    const prebuilt = readPrebuiltVectors(DEMO_VECTORS_FILE, bundled);
    expect(prebuilt).not.toBeNull();
    const texts = await demoCorpusEmbeddingTexts();
    expect(texts.length).toBeGreaterThan(1500);
    expect(texts.filter((text) => !prebuilt!.get(text))).toEqual([]);
    const vector = prebuilt!.get(texts[0])!;
    expect(vector).toHaveLength(512);
    expect(Math.hypot(...vector)).toBeCloseTo(1, 4);
  });
});

describe('withPrebuiltVectors', () => {
  const model: Embedder & { calls: string[][] } = {
    id: 'test-model',
    dimensions: 3,
    calls: [],
    async embed(texts) {
      this.calls.push(texts);
      return texts.map((t) => [t.length, 0, 1]);
    },
  };
  let file: string;
  beforeAll(() => {
    file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ard-vectors-')), 'v.bin');
    writePrebuiltVectors(
      file,
      model,
      new Map([
        ['alpha', [0.25, 0.5, 0.75]],
        ['beta', [1, 0, 0]],
      ]),
    );
  });

  it('answers known texts from the file (float32, as pgvector stores them) and embeds only the others, in order', async () => {
    const embedder = withPrebuiltVectors(model, readPrebuiltVectors(file, model));
    expect(await embedder.embed(['beta', 'gamma', 'alpha'])).toEqual([
      [1, 0, 0],
      [5, 0, 1],
      [0.25, 0.5, 0.75],
    ]);
    expect(model.calls).toEqual([['gamma']]);
    expect([embedder.hits, embedder.misses]).toEqual([2, 1]);
  });

  it('ignores a file built with another model, or not a vectors file at all', () => {
    expect(readPrebuiltVectors(file, { id: 'other-model', dimensions: 3 })).toBeNull();
    expect(readPrebuiltVectors(file, { id: 'test-model', dimensions: 4 })).toBeNull();
    expect(readPrebuiltVectors(path.join(path.dirname(file), 'absent.bin'), model)).toBeNull();
    fs.writeFileSync(`${file}.bad`, 'not vectors');
    expect(readPrebuiltVectors(`${file}.bad`, model)).toBeNull();
  });
});
