// The demo corpus shipped in data/corpus (real public catalogs, licences in data/corpus/LICENSES, plus the
// Alexandria library, see alexandria-corpus.ts),
// loaded on first start of an empty index so a newcomer can search right away.
import fs from 'node:fs';
import path from 'node:path';

export const CORPUS_DIR = resolveCorpusDir();

/** ARD manifests of the demo corpus, in load order. Later files win for identifiers listed twice. */
export const DEMO_MANIFESTS = [
  'toolhive-ai-catalog.json',
  'docker-mcp-ai-catalog.json',
  'agentfinder-sample-ai-catalog.first33.normalised.json',
];

/**
 * Vectors of the demo corpus's texts, computed at build time with the bundled model (`npm run build:demo-vectors`)
 * so a first start stores them instead of embedding ~2,000 texts (src/embedding/prebuilt-vectors.ts).
 */
export const DEMO_VECTORS_FILE = path.join(CORPUS_DIR, 'demo-vectors.bin');

export function demoManifestPaths(): string[] {
  return DEMO_MANIFESTS.map((name) => path.join(CORPUS_DIR, name));
}

function resolveCorpusDir(): string {
  for (const candidate of [
    path.resolve(__dirname, '..', '..', 'data', 'corpus'),
    path.resolve(__dirname, '..', '..', '..', 'data', 'corpus'),
  ]) {
    if (fs.existsSync(candidate)) return candidate;
  }
  return path.resolve(__dirname, '..', '..', 'data', 'corpus');
}
