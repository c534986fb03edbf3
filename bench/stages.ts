// Stage profile of the production ranking over an existing database (read only): the embedding, prepareQuery,
// matchText and rank, and inside matchText each statement stage of the pipeline per call (they overlap: the
// embedding runs beside the lexical retrieval, the vector retrieval beside the cosines, named entries and topic
// labels); then search() as POST /search runs it (a new text, its first page of 10), and what it adds after the
// pipeline, each on the list matchText returned: the product collapse (its key cache empty), the page's entries and
// their matched tools. And a snapshot of every ranked list so a latency change can be checked to leave ranking
// untouched (diff two snapshots).
//   npx tsx bench/stages.ts <database> [--snapshot FILE] [--runs N]
// Queries: the labelled sets (bench/relevance/*.json; Alexandria ones with its type filter). The embedder
// is uncached, so every query pays for its embedding, as a new query text does in production.
import fs from 'node:fs';
import { connectDatabase } from '../src/db/connect';
import { normaliseFilter } from '../src/search/query-filter';
import { matchText, prepareQuery, PRODUCTION_STAGES, type QueryEmbedder, type RankingStages } from '../src/search/relevance';
import { matchedTools } from '../src/search/matched-tools';
import { collapseProducts } from '../src/search/product-collapse';
import { createSearchService, entriesOfPage } from '../src/search/search-service';
import { createPageTokenCodec } from '../src/search/paging';
import { databaseUrl } from '../test/helpers/test-database';
import { argValue, bundledModel, filteredLabelledQueries, loadAverage, PRODUCTION_RANKING, percentile, printTable } from './bench-util';

/** `work()`, its wall time pushed onto `into` (also when it throws). */
async function timedCall<R>(into: number[], work: () => Promise<R>): Promise<R> {
  const started = performance.now();
  try {
    return await work();
  } finally {
    into.push(performance.now() - started);
  }
}

/** PRODUCTION_STAGES with the wall time of each call of a statement stage added to `into[stage name]`. */
function timedStages(into: Record<string, number[]>): RankingStages {
  const timed =
    <A extends unknown[], R>(name: string, stage: (...args: A) => Promise<R>) =>
    (...args: A): Promise<R> =>
      timedCall((into[name] ??= []), () => stage(...args));
  const s = PRODUCTION_STAGES;
  return {
    ...s,
    queryWords: timed('  queryWords (vocabulary lookup)', s.queryWords),
    lexicalRetrieval: timed('  lexicalRetrieval (postings + BM25F)', s.lexicalRetrieval),
    nearestEntries: timed('  nearestEntries (HNSW)', s.nearestEntries),
    vectorSignals: timed('  vectorSignals (new vector candidates)', s.vectorSignals),
    cosineLookup: timed('  cosineLookup (lexical candidates)', s.cosineLookup),
    namedRetrieval: timed('  namedRetrieval', s.namedRetrieval),
    topicLabels: timed('  topicLabels', s.topicLabels),
  };
}

async function main(): Promise<void> {
  const name = process.argv[2];
  if (!name || name.startsWith('--')) throw new Error('usage: tsx bench/stages.ts <database> [--snapshot FILE] [--runs N]');
  const { embedder: base } = await bundledModel();
  const embedder: QueryEmbedder = {
    id: base.id,
    dimensions: base.dimensions,
    embed: (t) => base.embed(t),
    embedOne: async (t) => (await base.embed([t]))[0],
  };
  const queries = filteredLabelledQueries();
  const handle = await connectDatabase({ databaseUrl: databaseUrl(name), dataDir: '' });
  const runs = Number(argValue('--runs') ?? 1);
  const loadAtStart = loadAverage();
  const stage: Record<string, number[]> = {
    embedding: [],
    'prepareQuery (words, terms, embedding)': [],
    'matchText (the pipeline)': [],
    'rank (the pipeline + every matched entry)': [],
    'search (the pipeline + the first page, as POST /search)': [],
  };
  // What search() adds after the pipeline, each on the list matchText just returned.
  const tail: Record<string, number[]> = {
    '  collapseProducts': [],
    '  entriesOfPage (10)': [],
    '  matchedTools (10)': [],
  };
  const pipeline: Record<string, number[]> = {};
  const stages = timedStages(pipeline);
  const snapshot: Record<string, Array<[string, number]>> = {};
  const search = createSearchService({
    db: handle.db,
    embedder,
    pageTokens: createPageTokenCodec('bench'),
    publicUrl: 'http://bench',
    ...PRODUCTION_RANKING,
  });
  try {
    await embedder.embed(['warm up']);
    await search.rank('warm up the pool', normaliseFilter(undefined));
    for (let r = 0; r < runs; r++) {
      for (const q of queries) {
        const text = r === 0 ? q.text : `${q.text} ${r}`;
        await timedCall(stage.embedding, () => embedder.embedOne(`${text} x`));
        await timedCall(stage['prepareQuery (words, terms, embedding)'], () => prepareQuery(handle.db, embedder, text));
        // The production path: a fresh text each time (the embedder is uncached anyway).
        const matches = await timedCall(stage['matchText (the pipeline)'], () =>
          matchText({ db: handle.db, embedder, ...PRODUCTION_RANKING }, text, q.filter, stages),
        );
        await timedCall(stage['rank (the pipeline + every matched entry)'], () => search.rank(text, q.filter));
        await timedCall(stage['search (the pipeline + the first page, as POST /search)'], () =>
          search.search({ text: `${text} y`, filter: Object.fromEntries(q.filter.map((f) => [f.path, f.values])), pageSize: 10 }),
        );
        const { matches: kept, collapsed } = await timedCall(tail['  collapseProducts'], () => collapseProducts(handle.db, matches));
        const page = await timedCall(tail['  entriesOfPage (10)'], () => entriesOfPage(handle.db, kept, 0, 10, collapsed));
        await timedCall(tail['  matchedTools (10)'], () =>
          matchedTools(
            handle.db,
            text,
            page.map((p) => p.entry.identifier),
          ),
        );
        if (r === 0) snapshot[q.id] = matches.map((m) => [m.identifier, Number(m.relevance.toFixed(9))]);
        const done = stage.embedding.length;
        if (done % 50 === 0) process.stderr.write(`  ${done} queries\n`);
      }
    }
  } finally {
    await handle.close();
  }
  printTable(`stages over ${name}, ${stage.embedding.length} queries (ms), load average ${loadAtStart} → ${loadAverage()}`, [
    ['stage', 'p50', 'p95'],
    ...Object.entries(stage)
      .flatMap(([k, v]) =>
        k.startsWith('matchText')
          ? [[k, v] as const, ...Object.entries(pipeline)]
          : k.startsWith('search')
            ? [[k, v] as const, ...Object.entries(tail)]
            : [[k, v] as const],
      )
      .map(([k, v]) => [k, percentile(v, 50).toFixed(1), percentile(v, 95).toFixed(1)]),
  ]);
  const file = argValue('--snapshot');
  if (file) fs.writeFileSync(file, JSON.stringify(snapshot, null, 1));
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exitCode = 1;
});
