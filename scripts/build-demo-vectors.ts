// Rebuilds data/corpus/demo-vectors.bin: the bundled model's vectors of every text the demo corpus load
// embeds, so a first start stores them instead of computing them (src/embedding/prebuilt-vectors.ts).
// Run after changing the demo corpus, the product glossary or how entry texts are built:
//   npm run build:demo-vectors
// Texts already in the file keep their vectors; after changing how the model computes (its graph, the default
// EMBEDDING_PRECISION), re-embed every text:
//   npm run build:demo-vectors -- --all
import { UseLiteEmbedder } from '../src/embedding/use-lite-embedder';
import { readPrebuiltVectors, writePrebuiltVectors } from '../src/embedding/prebuilt-vectors';
import { demoCorpusEmbeddingTexts } from '../src/ingest/demo-corpus-texts';
import { DEMO_VECTORS_FILE } from '../src/ingest/demo-corpus';

async function main(): Promise<void> {
  const texts = await demoCorpusEmbeddingTexts();
  // The default precision on onnxruntime, as a registry computes its vectors.
  const embedder = new UseLiteEmbedder({ runtime: 'onnxruntime' });
  const previous = process.argv.includes('--all') ? null : readPrebuiltVectors(DEMO_VECTORS_FILE, embedder);
  const vectors = new Map<string, number[]>();
  const missing = texts.filter((text) => {
    const known = previous?.get(text);
    if (known) vectors.set(text, known);
    return !known;
  });
  const started = Date.now();
  for (let i = 0; i < missing.length; i += 64) {
    const batch = missing.slice(i, i + 64);
    (await embedder.embed(batch)).forEach((vector, j) => vectors.set(batch[j], vector));
    process.stderr.write(`\r${Math.min(i + 64, missing.length)}/${missing.length} texts embedded`);
  }
  await embedder.close?.();
  writePrebuiltVectors(DEMO_VECTORS_FILE, embedder, vectors);
  process.stderr.write(
    `\n${DEMO_VECTORS_FILE}: ${vectors.size} vectors (${missing.length} embedded in ${Date.now() - started} ms, ${texts.length - missing.length} kept)\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
