// The retrieval statements and the pipeline of two checkouts side by side on one database, in one process, each on
// its own checkout's connections (how connectDatabase opens them is part of the code compared):
// for each labelled query, this checkout's and the other's lexical statement, vector statement and matchText,
// which goes first alternating from query to query, so both meet the same load. Prints their p50 / p95 / mean,
// and whether they agree: the largest difference of a candidate's lexical signals, candidate sets that differ,
// and ranked lists that differ (by more than the order of equal relevances). And the CPU time PostgreSQL
// spent per query on each side (its backends' utime + stime from /proc, so the server must run on this
// machine): on two cores shared with the model, CPU per search is what bounds throughput.
//   npx tsx bench/retrieval-ab.ts <database> <other checkout> [--runs N] [--texts <file.jsonl>]
// --texts: the texts of a JSON-lines file (a `text` field each, unfiltered) instead of the labelled queries, e.g.
// bench/livemcpbench/queries.jsonl for an orchestrator's whole tasks (several needs each).
// The other checkout (e.g. `git worktree add /tmp/base <commit>` with node_modules linked) must read the
// same schema: run the newer checkout's migrations on the database first. Read only; the embedder is
// uncached in matchText, as a new query text is in production.
import path from 'node:path';
import { connectDatabase } from '../src/db/connect';
import * as here from '../src/search/relevance';
import type { Kysely } from 'kysely';
import type { Database } from '../src/db/schema';
import type { NormalisedFilter } from '../src/search/query-filter';
import type { PreparedQuery, QueryEmbedder, RankingStages, SignalRow } from '../src/search/relevance';
import { databaseUrl } from '../test/helpers/test-database';
import {
  argValue,
  backendPids,
  bundledModel,
  cpuMs,
  filteredLabelledQueries,
  loadAverage,
  percentile,
  printTable,
  PRODUCTION_RANKING,
  readJsonLines,
} from './bench-util';

type Relevance = typeof here;

/** A ranked list as identifiers with relevances; sorted by (relevance, identifier) it ignores the order of ties. */
function listKeys(matches: Array<{ identifier: string; relevance: number }>): { exact: string; tiesAside: string } {
  const rows = matches.map((m) => [m.identifier, m.relevance.toFixed(9)] as const);
  const sorted = [...rows].sort((a, b) => (a[1] === b[1] ? a[0].localeCompare(b[0]) : b[1].localeCompare(a[1])));
  return { exact: JSON.stringify(rows), tiesAside: JSON.stringify(sorted) };
}

/**
 * A checkout's vector statements for the candidates the lexical one did not find (`known`): the nearest entries, then
 * their signals; a checkout before that split ran them as one `vectorRetrieval(db, q, filter, known)` stage.
 */
async function vectorStatements(
  stages: RankingStages,
  db: Kysely<Database>,
  q: PreparedQuery,
  filter: NormalisedFilter,
  known: readonly string[],
): Promise<SignalRow[]> {
  const joined = (stages as { vectorRetrieval?: (...args: unknown[]) => Promise<SignalRow[]> }).vectorRetrieval;
  if (joined) return joined(db, q, filter, known);
  const leftOut = new Set(known);
  const newNearest = (await stages.nearestEntries(db, q, filter)).filter((id) => !leftOut.has(id));
  return stages.vectorSignals(db, q, newNearest);
}

async function main(): Promise<void> {
  const [name, other] = process.argv.slice(2);
  if (!name || !other || name.startsWith('--'))
    throw new Error('usage: tsx bench/retrieval-ab.ts <database> <other checkout> [--runs N] [--texts <file.jsonl>]');
  const there = (await import(path.resolve(other, 'src/search/relevance/index.ts'))) as Relevance;
  const runs = Number(argValue('--runs') ?? 2);
  const { embedder: model } = await bundledModel();
  const embedder: QueryEmbedder = {
    id: model.id,
    dimensions: model.dimensions,
    embed: (t) => model.embed(t),
    embedOne: async (t) => (await model.embed([t]))[0],
  };
  // Each side on its own checkout's connections: how connectDatabase opens them is part of the code compared.
  const connectThere = (await import(path.resolve(other, 'src/db/connect.ts'))) as { connectDatabase: typeof connectDatabase };
  const handles = {
    other: await connectThere.connectDatabase({ databaseUrl: databaseUrl(name), dataDir: '' }),
    here: await connectDatabase({ databaseUrl: databaseUrl(name), dataDir: '' }),
  };
  const sides = { other: there, here } as const;
  const times = Object.fromEntries(
    Object.keys(sides).map((side) => [side, { lexical: [] as number[], vector: [] as number[], matchText: [] as number[] }]),
  );
  const serverCpu = Object.fromEntries(Object.keys(sides).map((side) => [side, { statements: 0, matchText: 0 }]));
  let signalDifference = 0;
  let candidateSetsDiffering = 0;
  let listsDiffering = 0;
  let listsDifferingInTiesOnly = 0;
  const loadAtStart = loadAverage();
  try {
    const queries = [];
    const textsFile = argValue('--texts');
    const texts: Array<{ text: string; filter: NormalisedFilter }> = textsFile
      ? readJsonLines<{ text: string }>(textsFile).map(({ text }) => ({ text, filter: [] }))
      : filteredLabelledQueries();
    for (const q of texts) queries.push({ ...q, prepared: await here.prepareQuery(handles.here.db, embedder, q.text) });
    for (let r = 0; r < runs; r++) {
      for (const [i, q] of queries.entries()) {
        const order = (i + r) % 2 === 0 ? (['other', 'here'] as const) : (['here', 'other'] as const);
        const signals: Record<string, Map<string, [number, number]>> = {};
        const lists: Record<string, { exact: string; tiesAside: string }> = {};
        for (const side of order) {
          const db = handles[side].db;
          const pids = await backendPids(db);
          let cpu = cpuMs(pids);
          const stages = sides[side].PRODUCTION_STAGES;
          let started = performance.now();
          const lexical = await stages.lexicalRetrieval(db, q.prepared, q.filter, null);
          times[side].lexical.push(performance.now() - started);
          started = performance.now();
          const vector = await vectorStatements(
            stages,
            db,
            q.prepared,
            q.filter,
            lexical.map((row) => row.identifier),
          );
          times[side].vector.push(performance.now() - started);
          serverCpu[side].statements += cpuMs(pids) - cpu;
          cpu = cpuMs(pids);
          signals[side] = new Map([...lexical, ...vector].map((row) => [row.identifier, [Number(row.lexical), Number(row.typed_lexical)]]));
          started = performance.now();
          const text = r === 0 ? q.text : `${q.text} ${r}`;
          const matches = await sides[side].matchText({ db, embedder, ...PRODUCTION_RANKING }, text, q.filter);
          times[side].matchText.push(performance.now() - started);
          serverCpu[side].matchText += cpuMs(pids) - cpu;
          lists[side] = listKeys(matches);
        }
        if (signals.here.size !== signals.other.size) candidateSetsDiffering++;
        else
          for (const [identifier, [lexical, typed]] of signals.other) {
            const mine = signals.here.get(identifier);
            if (!mine) {
              candidateSetsDiffering++;
              break;
            }
            signalDifference = Math.max(signalDifference, Math.abs(mine[0] - lexical), Math.abs(mine[1] - typed));
          }
        if (lists.here.exact !== lists.other.exact) {
          listsDiffering++;
          if (lists.here.tiesAside === lists.other.tiesAside) listsDifferingInTiesOnly++;
        }
      }
    }
    const count = queries.length * runs;
    const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
    const cells = (v: number[]) => [percentile(v, 50).toFixed(1), percentile(v, 95).toFixed(1), mean(v).toFixed(1)];
    printTable(
      `${name}: ${other} (other) against this checkout (here), ${count} query runs alternating, load average ${loadAtStart} → ${loadAverage()}`,
      [
        ['stage', 'other p50', 'p95', 'mean', 'here p50', 'p95', 'mean'],
        ...(['lexical', 'vector', 'matchText'] as const).map((stage) => [stage, ...cells(times.other[stage]), ...cells(times.here[stage])]),
      ],
    );
    const perQuery = (ms: number) => (ms / count).toFixed(1);
    process.stdout.write(
      `  PostgreSQL CPU per query run, ms: the lexical + vector statements ${perQuery(serverCpu.other.statements)} (other) / ` +
        `${perQuery(serverCpu.here.statements)} (here); matchText ${perQuery(serverCpu.other.matchText)} / ${perQuery(serverCpu.here.matchText)}\n`,
    );
    process.stdout.write(
      `  agreement: largest lexical signal difference ${signalDifference.toExponential(1)}, candidate sets differing ${candidateSetsDiffering}, ` +
        `ranked lists differing ${listsDiffering} of ${count} (${listsDifferingInTiesOnly} of them in the order of equal relevances only)\n`,
    );
  } finally {
    await handles.other.close();
    await handles.here.close();
    await model.close();
  }
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exitCode = 1;
});
