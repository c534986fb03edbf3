// Stage profile of the production ranking over an existing database (read only), and a snapshot of every
// ranked list so a latency change can be checked to leave ranking untouched (diff two snapshots).
//   npx tsx bench/stages.ts <database> [--snapshot FILE] [--runs N]
// Queries: the labelled sets (bench/relevance/*.json; Alexandria ones with its type filter). The embedder
// is uncached, so every query pays for its embedding, as a new query text does in production.
import fs from 'node:fs';
import path from 'node:path';
import { connectDatabase } from '../src/db/connect';
import { ALEXANDRIA_MEDIA_TYPE } from '../src/alexandria/mapping';
import { normaliseFilter } from '../src/search/query-filter';
import { findMatches, matchText, prepareQuery, type QueryEmbedder } from '../src/search/relevance';
import { rankEntries, rankText } from '../src/search/search-service';
import { databaseUrl } from '../test/helpers/test-database';
import { bundledModel, PRODUCTION_RANKING, percentile, printTable } from './bench-util';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

async function main(): Promise<void> {
  const name = process.argv[2];
  if (!name || name.startsWith('--')) throw new Error('usage: tsx bench/stages.ts <database> [--snapshot FILE] [--runs N]');
  const { embedder: base } = await bundledModel();
  const embedder: QueryEmbedder = { id: base.id, dimensions: base.dimensions, embed: (t) => base.embed(t), embedOne: async (t) => (await base.embed([t]))[0] };
  const queries = ['registry-queries.json', 'alexandria-queries.json'].flatMap((set) => {
    const doc = JSON.parse(fs.readFileSync(path.join(__dirname, 'relevance', set), 'utf8')) as { queries: Array<{ id: string; text: string }> };
    return doc.queries.map((q) => ({ ...q, filter: normaliseFilter(set.startsWith('alexandria') ? { type: ALEXANDRIA_MEDIA_TYPE } : undefined) }));
  });
  const handle = await connectDatabase({ databaseUrl: databaseUrl(name), dataDir: '' });
  const runs = Number(arg('--runs') ?? 1);
  const stage: Record<string, number[]> = {
    embedding: [],
    prepareQuery: [],
    findMatches: [],
    'rankEntries (entries fetch)': [],
    'prepareQuery + rankEntries': [],
    'matchText (pipelined)': [],
    'rankText (matchText + every matched entry)': [],
  };
  const snapshot: Record<string, Array<[string, number]>> = {};
  try {
    await embedder.embed(['warm up']);
    await rankEntries(handle.db, await prepareQuery(handle.db, embedder, 'warm up the pool'), normaliseFilter(undefined));
    for (let r = 0; r < runs; r++) {
      for (const q of queries) {
        const text = r === 0 ? q.text : `${q.text} ${r}`;
        let t = performance.now();
        await embedder.embedOne(`${text} x`);
        stage.embedding.push(performance.now() - t);
        const start = performance.now();
        const prepared = await prepareQuery(handle.db, embedder, text);
        stage.prepareQuery.push(performance.now() - start);
        t = performance.now();
        const matches = await findMatches(handle.db, prepared, q.filter, PRODUCTION_RANKING);
        stage.findMatches.push(performance.now() - t);
        t = performance.now();
        await rankEntries(handle.db, prepared, q.filter, PRODUCTION_RANKING);
        stage['rankEntries (entries fetch)'].push(performance.now() - t);
        stage['prepareQuery + rankEntries'].push(performance.now() - start - stage.findMatches[stage.findMatches.length - 1]);
        // The production path: a fresh text each time (the embedder is uncached anyway).
        t = performance.now();
        const pipelined = await matchText(handle.db, embedder, text, q.filter, PRODUCTION_RANKING);
        stage['matchText (pipelined)'].push(performance.now() - t);
        t = performance.now();
        await rankText({ db: handle.db, embedder, typeWeights: PRODUCTION_RANKING.typeWeights }, text, q.filter);
        stage['rankText (matchText + every matched entry)'].push(performance.now() - t);
        if (r === 0) {
          snapshot[q.id] = matches.map((m) => [m.identifier, Number(m.relevance.toFixed(9))]);
          const same = JSON.stringify(pipelined.map((m) => [m.identifier, m.relevance.toFixed(9)])) === JSON.stringify(matches.map((m) => [m.identifier, m.relevance.toFixed(9)]));
          if (!same) process.stderr.write(`  ${q.id}: matchText differs from findMatches(prepareQuery)\n`);
        }
        const done = stage.embedding.length;
        if (done % 50 === 0) process.stderr.write(`  ${done} queries\n`);
      }
    }
  } finally {
    await handle.close();
  }
  printTable(`stages over ${name}, ${stage.embedding.length} queries (ms)`, [
    ['stage', 'p50', 'p95'],
    ...Object.entries(stage).map(([k, v]) => [k, percentile(v, 50).toFixed(1), percentile(v, 95).toFixed(1)]),
  ]);
  const file = arg('--snapshot');
  if (file) fs.writeFileSync(file, JSON.stringify(snapshot, null, 1));
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exitCode = 1;
});
