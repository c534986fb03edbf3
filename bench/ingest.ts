// Ingest speed: entries embedded and indexed per second through the one write path (ingestManifest →
// writeEntries), what each stage costs per entry, the model's time in int8 against float32 on the same texts
// (decision 0048), and POST /search's latency while an ingest runs. Prints figures; asserts nothing.
//   npm run bench:ingest                 (2,000 synthetic entries per run; BENCH_ENTRIES=500 for a short run)
// The registry runs in this process on a new, empty database (the bench's entries only) with production
// settings: the ingests use its context's database and embedder, as the crawler does, so a search's query
// embedding takes turns with the ingest's texts on the one model session.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { EmbeddingsModel } from '@energetic-ai/embeddings';
import { loadConfig } from '../src/config';
import { prepareEntry } from '../src/catalog/entry-repository';
import type { CatalogEntry } from '../src/catalog/catalog-entry';
import { ENTRY_VECTOR_FIELDS, entryEmbeddingTexts } from '../src/embedding/entry-texts';
import { cutToModelInput } from '../src/embedding/model-input';
import { useLiteModelDir } from '../src/embedding/use-lite-onnx';
import { encodeUseLite, type UseLiteTokenizerData } from '../src/embedding/use-lite-tokenizer';
import { UseLiteEmbedder } from '../src/embedding/use-lite-embedder';
import type { Embedder } from '../src/embedding/embedder';
import type { EmbeddingPrecision } from '../src/config';
import { USE_LITE_MAX_TOKENS } from '../src/embedding/use-lite-graph';
import { WRITE_STAGES, type WriteStageTimings } from '../src/ingest/ingest-manifest';
import { startRegistry } from '../src/server';
import { machineLoad } from '../test/helpers/machine-load';
import { createTestDatabase } from '../test/helpers/test-database';
import { ingestInLanes, inProcessBenchConfig, percentile, printTable, searchLatencies } from './bench-util';
import { syntheticEntries } from './search';

const ENTRIES = Number(process.env.BENCH_ENTRIES ?? 2000);
/** Entries per manifest: each is one writeEntries call, one transaction. */
const MANIFEST_SIZE = 250;
/** Issue 28's figure, taken before the linear tokenizer on a quieter machine: not measured by this run. */
const BEFORE = { msPerEntry: 22, entriesPerSecond: 45 };
type Registry = Awaited<ReturnType<typeof startRegistry>>;

/**
 * Entries embedded and indexed per second: `entries` as manifests of MANIFEST_SIZE, `lanes` at a time, embedded by
 * the registry's model or by `embedder`.
 */
async function ingest(
  registry: Registry,
  entries: CatalogEntry[],
  lanes: number,
  stageTimings?: WriteStageTimings,
  embedder: Embedder = registry.ctx.embedder,
): Promise<number> {
  const started = performance.now();
  await ingestInLanes({ db: registry.ctx.db, embedder, glossary: registry.ctx.glossary }, entries, {
    manifestSize: MANIFEST_SIZE,
    lanes,
    origin: 'bench:ingest',
    stageTimings,
  });
  return entries.length / ((performance.now() - started) / 1000);
}

/** The texts ingestion embeds for each entry (entry-texts.ts), by field. */
function embeddedTexts(entries: CatalogEntry[]): Array<ReturnType<typeof entryEmbeddingTexts>> {
  return entries.map((entry) => {
    const prepared = prepareEntry({ entry, host: undefined, origin: 'bench', fetchedAt: new Date() });
    return entryEmbeddingTexts(prepared.entry, prepared.gloss);
  });
}

/** Tokens per text and tokenizing time per entry, the package's tokenizer against the linear one, on the same texts. */
function tokenizing(entries: CatalogEntry[]): string[][] {
  const vocabulary = JSON.parse(fs.readFileSync(path.join(useLiteModelDir(), 'vocab.json'), 'utf8')) as unknown;
  const packaged = new EmbeddingsModel({ vocabulary, model: null } as never).tokenizer as unknown as UseLiteTokenizerData & {
    encode(text: string): number[];
  };
  const texts = embeddedTexts(entries);
  const rows: string[][] = [];
  for (const field of ENTRY_VECTOR_FIELDS) {
    const inputs = texts.map((t) => cutToModelInput(t[field])).filter((t) => t.trim() !== '');
    const time = (encode: (text: string) => number[]) => {
      const started = performance.now();
      let tokens = 0;
      for (const text of inputs) tokens += Math.min(USE_LITE_MAX_TOKENS, encode(text).length);
      return { ms: (performance.now() - started) / entries.length, tokens: tokens / inputs.length };
    };
    const before = time((text) => packaged.encode(text));
    const now = time((text) => encodeUseLite(packaged, text));
    rows.push([
      field,
      `${(inputs.reduce((sum, t) => sum + t.length, 0) / inputs.length).toFixed(0)}`,
      now.tokens.toFixed(1),
      before.ms.toFixed(2),
      now.ms.toFixed(3),
    ]);
  }
  return rows;
}

/**
 * The model alone on the same entries' texts, once per precision, taking turns in batches of one manifest:
 * ms per entry, and how close each int8 vector is to the float32 one (cosine; the vectors are normalised).
 */
async function modelPrecisions(entries: CatalogEntry[]): Promise<string[][]> {
  const models = Object.fromEntries(
    (['float32', 'int8'] as EmbeddingPrecision[]).map((precision) => [
      precision,
      new UseLiteEmbedder({ runtime: 'onnxruntime', precision }),
    ]),
  ) as Record<EmbeddingPrecision, UseLiteEmbedder>;
  const ms: Record<EmbeddingPrecision, number> = { float32: 0, int8: 0 };
  const cosines: number[] = [];
  try {
    for (let i = 0; i < entries.length; i += MANIFEST_SIZE) {
      const texts = embeddedTexts(entries.slice(i, i + MANIFEST_SIZE)).flatMap((byField) =>
        ENTRY_VECTOR_FIELDS.map((field) => byField[field]).filter((text) => text.trim() !== ''),
      );
      const vectors = {} as Record<EmbeddingPrecision, number[][]>;
      for (const precision of (i / MANIFEST_SIZE) % 2 === 0 ? (['float32', 'int8'] as const) : (['int8', 'float32'] as const)) {
        await models[precision].embed([' ']);
        const started = performance.now();
        vectors[precision] = await models[precision].embed(texts);
        ms[precision] += performance.now() - started;
      }
      vectors.int8.forEach((v, j) => cosines.push(v.reduce((sum, x, d) => sum + x * vectors.float32[j][d], 0)));
    }
  } finally {
    await Promise.all(Object.values(models).map((m) => m.close()));
  }
  cosines.sort((a, b) => a - b);
  return [
    ['float32', (ms.float32 / entries.length).toFixed(2), '-'],
    ['int8 (default)', (ms.int8 / entries.length).toFixed(2), `min ${cosines[0].toFixed(4)}, p50 ${percentile(cosines, 50).toFixed(4)}`],
  ];
}

async function main(): Promise<void> {
  const all = syntheticEntries(4 * ENTRIES + 1000);
  const database = await createTestDatabase();
  const base = loadConfig();
  const registry = await startRegistry(
    loadConfig(
      inProcessBenchConfig(database.url, {
        crawl: { ...base.crawl, schedulerEnabled: false },
        liveness: { ...base.liveness, pollMs: 0 },
      }),
    ),
  );
  try {
    process.stderr.write(`ingest bench: ${ENTRIES} synthetic entries per run, manifests of ${MANIFEST_SIZE}\n`);
    // A first 1,000 entries, so the runs below write into a table that has some already.
    await ingest(registry, all.slice(0, 1000), 1);
    const loadBefore = machineLoad();

    const timings: WriteStageTimings = {};
    const oneAtATime = await ingest(registry, all.slice(1000, 1000 + ENTRIES), 1, timings);
    const twoInFlight = await ingest(registry, all.slice(1000 + ENTRIES, 1000 + 2 * ENTRIES), 2);
    const float32 = new UseLiteEmbedder({ runtime: 'onnxruntime', precision: 'float32' });
    const oneAtATimeFloat32 = await ingest(registry, all.slice(1000 + 3 * ENTRIES), 1, undefined, float32).finally(() => float32.close());

    const idle = await searchLatencies(registry.url, () => false, 100);
    let ingesting = true;
    const whileIngesting = ingest(registry, all.slice(1000 + 2 * ENTRIES, 1000 + 3 * ENTRIES), 1).finally(() => {
      ingesting = false;
    });
    const busy = await searchLatencies(registry.url, () => ingesting);
    const withSearches = await whileIngesting;
    const loadAfter = machineLoad();

    printTable(`ingest: entries embedded and indexed per second (${ENTRIES} synthetic entries per run)`, [
      ['path', 'entries/s', 'ms per entry'],
      ['before (issue 28, package tokenizer; not this run)', `${BEFORE.entriesPerSecond}`, `${BEFORE.msPerEntry}`],
      ['now: one manifest at a time', oneAtATime.toFixed(1), (1000 / oneAtATime).toFixed(1)],
      ['now: two manifests in flight (CRAWL_CONCURRENCY 2)', twoInFlight.toFixed(1), (1000 / twoInFlight).toFixed(1)],
      ['now: one at a time, searches running beside it', withSearches.toFixed(1), (1000 / withSearches).toFixed(1)],
      [
        'now: one at a time, the model in float32 (EMBEDDING_PRECISION)',
        oneAtATimeFloat32.toFixed(1),
        (1000 / oneAtATimeFloat32).toFixed(1),
      ],
    ]);
    printTable(`the model alone, the same texts (${ENTRIES} entries' ${ENTRY_VECTOR_FIELDS.join(' and ')} texts), ms per entry`, [
      ['precision', 'ms per entry', 'cosine to float32'],
      ...(await modelPrecisions(all.slice(1000, 1000 + ENTRIES))),
    ]);
    printTable('writeEntries stages, ms per entry (the one-at-a-time run)', [
      [...WRITE_STAGES],
      WRITE_STAGES.map((stage) => ((timings[stage] ?? 0) / ENTRIES).toFixed(2)),
    ]);
    printTable(`tokenizing, the same texts (${ENTRIES} entries), ms per entry`, [
      ['field', 'characters', 'tokens read (≤128)', 'package tokenizer', 'use-lite-tokenizer.ts'],
      ...tokenizing(all.slice(1000, 1000 + ENTRIES)),
    ]);
    const fmt = (v: number[]) => `p50 ${percentile(v, 50).toFixed(1)} ms, p99 ${percentile(v, 99).toFixed(1)} ms (n=${v.length})`;
    printTable('POST /search, a new text each time (query embedded), sequential', [
      ['idle', 'during an ingest'],
      [fmt(idle), fmt(busy)],
    ]);
    process.stdout.write(
      `\n${loadBefore} before the runs, ${loadAfter} after; os.loadavg() ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}\n`,
    );
  } finally {
    await registry.stop();
    await database.drop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
