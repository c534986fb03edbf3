// Relevance of the Alexandria `search` tool on the registry's own engine (real Postgres + pgvector):
// runs the labelled set bench/relevance/alexandria-queries.json through AlexandriaLibraryService.searchLibrary
// (the code path of the MCP tool, sponsorship rule included) and prints recall@5 and MRR, overall and per kind.
//
//   npm run bench:alexandria                 (a scratch database, dropped at the end)
//   BENCH_DATABASE_URL=postgres://... npm run bench:alexandria   (an existing database holding the demo corpus)
//
// Definitions (R2 = records graded 2, "exactly serves the need"; R = records graded 1 or 2):
//   recall@5      |top 5 ∩ R2| / |R2|, averaged over queries
//   recall@5 any  |top 5 ∩ R|  / |R|
//   MRR           1 / rank of the first R2 record in the top 10 (0 if none), averaged
//   MRR any       the same with R
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

import { loadConfig } from '../src/config';
import { createContext } from '../src/context';
import { loadDemoCorpusUnlessLoaded } from '../src/ingest/load-files';
import { adminQuery as admin, databaseUrl as urlFor, TEMPLATE_DB } from '../test/helpers/test-database';

interface LabelledQuery {
  id: string;
  kind: string;
  text: string;
  relevant: Record<string, 1 | 2>;
}

async function main(): Promise<void> {
  const set = JSON.parse(fs.readFileSync(path.join(__dirname, 'relevance', 'alexandria-queries.json'), 'utf8')) as {
    queries: LabelledQuery[];
  };
  let databaseUrl = process.env.BENCH_DATABASE_URL ?? null;
  let scratch: string | null = null;
  if (!databaseUrl) {
    scratch = `ard_bench_${randomBytes(4).toString('hex')}`;
    // The test template holds exactly the demo corpus; clone it when it exists, else load the corpus.
    const haveTemplate = ((await admin('SELECT 1 FROM pg_database WHERE datname = $1', [TEMPLATE_DB])).rowCount ?? 0) > 0;
    await admin(`CREATE DATABASE ${scratch}${haveTemplate ? ` TEMPLATE ${TEMPLATE_DB}` : ''}`);
    databaseUrl = urlFor(scratch);
  }
  const ctx = await createContext(loadConfig({ databaseUrl, logLevel: 'warn', loadDemoCorpus: false }));
  try {
    await loadDemoCorpusUnlessLoaded({ db: ctx.db, embedder: ctx.embedder }, ctx.logger);
    const { service } = ctx.library;
    await service.searchLibrary({ query: 'warm up' });

    type Row = { kind: string; recall5: number; recall5Any: number; rr: number; rrAny: number; ms: number };
    const rows: Row[] = [];
    for (const q of set.queries) {
      const started = performance.now();
      const { results } = await service.searchLibrary({ query: q.text, limit: 10 });
      const ms = performance.now() - started;
      const ids = results.map((r) => r.id);
      const r2 = Object.keys(q.relevant).filter((id) => q.relevant[id] === 2);
      const r1 = Object.keys(q.relevant);
      const top5 = ids.slice(0, 5);
      const firstRank = (relevant: string[]) => {
        const i = ids.findIndex((id) => relevant.includes(id));
        return i < 0 ? 0 : 1 / (i + 1);
      };
      rows.push({
        kind: q.kind,
        recall5: top5.filter((id) => r2.includes(id)).length / r2.length,
        recall5Any: top5.filter((id) => r1.includes(id)).length / r1.length,
        rr: firstRank(r2),
        rrAny: firstRank(r1),
        ms,
      });
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
    const line = (label: string, group: Row[]) =>
      `${label.padEnd(11)} ${String(group.length).padStart(7)} ${mean(group.map((r) => r.recall5))
        .toFixed(3)
        .padStart(9)} ${mean(group.map((r) => r.recall5Any))
        .toFixed(3)
        .padStart(12)} ${mean(group.map((r) => r.rr))
        .toFixed(3)
        .padStart(6)} ${mean(group.map((r) => r.rrAny))
        .toFixed(3)
        .padStart(8)}`;
    const latencies = rows.map((r) => r.ms).sort((a, b) => a - b);
    process.stdout.write(`Alexandria search relevance (${set.queries.length} labelled queries, registry engine on ${ctx.database.kind})\n`);
    process.stdout.write(`${'kind'.padEnd(11)} queries  recall@5 recall@5 any    MRR  MRR any\n`);
    for (const kind of [...new Set(rows.map((r) => r.kind))])
      process.stdout.write(
        `${line(
          kind,
          rows.filter((r) => r.kind === kind),
        )}\n`,
      );
    process.stdout.write(`${line('overall', rows)}\n`);
    process.stdout.write(
      `latency per search: p50 ${latencies[Math.floor(latencies.length / 2)]!.toFixed(0)} ms, p95 ${latencies[Math.floor(latencies.length * 0.95)]!.toFixed(0)} ms\n`,
    );
  } finally {
    await ctx.destroy();
    if (scratch) await admin(`DROP DATABASE IF EXISTS ${scratch} WITH (FORCE)`);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:alexandria failed: ${(error as Error).stack ?? String(error)}\n`);
  process.exitCode = 1;
});
