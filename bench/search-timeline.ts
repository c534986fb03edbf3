// The statements of a new text's search, as the search service runs them for POST /search (the match cache on, the
// entries' states, the product collapse, the first page of 10 and its matched tools), and its query embedding: for
// each kind of step the calls per search, when it starts and how long it takes (p50 over the searches); the time of a
// search with nothing in flight (the process's own work between round trips); the wait from the query vector to the
// HNSW scan's statement; and the median search's timeline, step by step. Read only.
//   npx tsx bench/search-timeline.ts <database> [--runs N]
// Texts: the labelled sets (bench/relevance/*.json; Alexandria ones with its type filter), each a new text (every
// run adds its number), the model uncached: what a new query text costs in production.
import pg from 'pg';
import { connectDatabase } from '../src/db/connect';
import { createPageTokenCodec } from '../src/search/paging';
import { MatchCache, type QueryEmbedder } from '../src/search/relevance';
import { createSearchService } from '../src/search/search-service';
import { databaseUrl } from '../test/helpers/test-database';
import { argValue, bundledModel, filteredLabelledQueries, loadAverage, percentile, printTable, PRODUCTION_RANKING } from './bench-util';

/** One round trip (or the query embedding), in ms from the search's start. */
interface Step {
  kind: string;
  start: number;
  end: number;
}

const EMBEDDING = 'query embedding (the model)';
const SCAN = 'nearest entries (HNSW)';

/** A statement's kind, from its text; a statement not named here is shown by its opening. */
const KINDS: Array<[RegExp, string]> = [
  [/^begin$/i, 'BEGIN'],
  [/^commit$/i, 'COMMIT'],
  [/set_config\(/, 'settings (set_config)'],
  [/inet_server_addr/, 'index generation'],
  [/AS t\(grp, word\)/, 'vocabulary (corrections, completions)'],
  [/WITH ORDINALITY AS w\(word/, 'term statistics'],
  [/AS cand\(identifier\)/, 'vector candidates\u2019 signals'],
  [/lexeme_postings[\s\S]*impact/, 'lexical retrieval'],
  [/FROM entry_vectors v JOIN entries e/, SCAN],
  [/NULL::text AS type/, 'lexical candidates\u2019 cosines'],
  [/DISTINCT ON \(t\.identifier\)/, 'tool cosines'],
  [/tag_vectors/, 'topic labels'],
  [/WITH ids AS MATERIALIZED/, 'entry states'],
  [/product_fields/, 'product keys'],
  [/"mirror_peer"/, 'page entries'],
  [/array_agg\(DISTINCT lexeme\)/, 'matched tools'],
];

function kindOf(text: string): string {
  const sql = text.replace('/* ard:prepared */', '').replace(/\s+/g, ' ').trim();
  return KINDS.find(([pattern]) => pattern.test(sql))?.[1] ?? sql.slice(0, 60);
}

/** Records every query any pg.Client of this process sends between start() and stop(). */
function recordQueries(): { start(): void; stop(): Step[] } {
  let steps: Step[] | undefined;
  let origin = 0;
  const send = pg.Client.prototype.query as (...args: unknown[]) => unknown;
  (pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown }).query = function (this: pg.Client, ...args: unknown[]) {
    const config = args[0] as string | { text?: string };
    const text = typeof config === 'string' ? config : (config?.text ?? '');
    const result = send.apply(this, args);
    if (steps && result instanceof Promise) {
      const step: Step = { kind: kindOf(text), start: performance.now() - origin, end: Number.NaN };
      steps.push(step);
      const done = () => (step.end = performance.now() - origin);
      result.then(done, done);
    }
    return result;
  };
  return {
    start() {
      steps = [];
      origin = performance.now();
    },
    stop() {
      const taken = steps ?? [];
      steps = undefined;
      return taken;
    },
  };
}

async function main(): Promise<void> {
  const name = process.argv[2];
  if (!name || name.startsWith('--')) throw new Error('usage: tsx bench/search-timeline.ts <database> [--runs N]');
  const runs = Number(argValue('--runs') ?? 1);
  const { embedder: model } = await bundledModel();
  const recorder = recordQueries();
  let embedding: Step[] = [];
  const embedder: QueryEmbedder = {
    id: model.id,
    dimensions: model.dimensions,
    embed: (texts) => model.embed(texts),
    embedOne: async (text) => {
      const step: Step = { kind: EMBEDDING, start: performance.now(), end: Number.NaN };
      const [vector] = await model.embed([text]);
      step.end = performance.now();
      embedding.push(step);
      return vector;
    },
  };
  const handle = await connectDatabase({ databaseUrl: databaseUrl(name), dataDir: '' });
  const search = createSearchService({
    db: handle.db,
    embedder,
    pageTokens: createPageTokenCodec('bench'),
    publicUrl: 'http://bench',
    matchCache: new MatchCache(50_000),
    ...PRODUCTION_RANKING,
  });
  const loadAtStart = loadAverage();
  const searches: Array<{ total: number; steps: Step[] }> = [];
  try {
    const firstPage = { page: { offset: 0, size: 10 }, collapse: true };
    await search.rankResults('warm up the pool', [], firstPage);
    for (let r = 0; r < runs; r++) {
      for (const q of filteredLabelledQueries()) {
        embedding = [];
        const started = performance.now();
        recorder.start();
        // What search() runs once the request is read: the ranked list and its first page.
        await search.rankResults(r === 0 ? q.text : `${q.text} ${r}`, q.filter, firstPage);
        const total = performance.now() - started;
        const steps = recorder.stop();
        for (const e of embedding) steps.push({ kind: e.kind, start: e.start - started, end: e.end - started });
        searches.push({ total, steps: steps.sort((a, b) => a.start - b.start) });
      }
    }
  } finally {
    await handle.close();
  }
  const byKind = new Map<string, { calls: number; starts: number[]; durations: number[] }>();
  for (const { steps } of searches)
    for (const s of steps) {
      const k = byKind.get(s.kind) ?? { calls: 0, starts: [], durations: [] };
      k.calls++;
      k.starts.push(s.start);
      k.durations.push(s.end - s.start);
      byKind.set(s.kind, k);
    }
  const n = searches.length;
  const fixed = (ms: number) => ms.toFixed(1);
  const totals = searches.map((s) => s.total);
  printTable(`${name}: ${n} searches (a new text each, first page of 10), load average ${loadAtStart} → ${loadAverage()}`, [
    ['step', 'calls per search', 'starts at p50 ms', 'takes p50 ms', 'p95 ms'],
    ...[...byKind.entries()]
      .sort((a, b) => percentile(a[1].starts, 50) - percentile(b[1].starts, 50))
      .map(([kind, k]) => [
        kind,
        (k.calls / n).toFixed(2),
        fixed(percentile(k.starts, 50)),
        fixed(percentile(k.durations, 50)),
        fixed(percentile(k.durations, 95)),
      ]),
    [
      'the whole search',
      (searches.reduce((sum, s) => sum + s.steps.length, 0) / n).toFixed(2),
      '',
      fixed(percentile(totals, 50)),
      fixed(percentile(totals, 95)),
    ],
  ]);
  // The time of a search when no statement and no embedding is in flight: the process's own work on the critical path.
  const between = searches.map(({ total, steps }) => {
    let covered = 0;
    let reach = 0;
    for (const step of steps) {
      if (step.end > reach) covered += step.end - Math.max(step.start, reach);
      reach = Math.max(reach, step.end);
    }
    return total - covered;
  });
  console.log(
    `\nnothing in flight (the process's own work between round trips) p50 / p95: ${fixed(percentile(between, 50))} / ${fixed(percentile(between, 95))} ms`,
  );
  // From the query vector to the HNSW scan's statement: the scan is a search's longest step at 100k entries.
  const toScan = searches.flatMap(({ steps }) => {
    const vector = steps.find((s) => s.kind === EMBEDDING);
    const scan = steps.find((s) => s.kind === SCAN);
    return vector && scan ? [scan.start - vector.end] : [];
  });
  console.log(
    `from the query vector to the HNSW scan's statement p50 / p95: ${fixed(percentile(toScan, 50))} / ${fixed(percentile(toScan, 95))} ms`,
  );
  const median = [...searches].sort((a, b) => a.total - b.total)[Math.floor(n / 2)];
  printTable(`the median search, ${fixed(median.total)} ms`, [
    ['starts ms', 'ends ms', 'takes ms', 'step'],
    ...median.steps.map((s) => [fixed(s.start), fixed(s.end), fixed(s.end - s.start), s.kind]),
  ]);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
