// Shared by the benches: the labelled query set, POST /search's ranking options, percentiles, a plain table.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { sql, type Kysely } from 'kysely';
import { DEFAULT_SEARCH_TYPE_WEIGHTS, envToConfig, readEnv, type RegistryConfig } from '../src/config';
import type { CatalogEntry } from '../src/catalog/catalog-entry';
import type { Database } from '../src/db/schema';
import { UseLiteEmbedder } from '../src/embedding/use-lite-embedder';
import { ingestManifest, type IngestDeps, type WriteStageTimings } from '../src/ingest/ingest-manifest';
import { entryStateRanking, type RankingDeps } from '../src/search/relevance';
import { normaliseFilter, type NormalisedFilter } from '../src/search/query-filter';
import { ALEXANDRIA_MEDIA_TYPE } from '../src/alexandria/mapping';
import { adminQuery } from '../test/helpers/test-database';

const DEFAULTS = envToConfig(readEnv({}));

/** POST /search's ranking options under the default configuration (SEARCH_TYPE_WEIGHTS unset, the entry-state stage as configured by default). */
export const PRODUCTION_RANKING: Pick<RankingDeps, 'typeWeights' | 'entryStates'> = {
  typeWeights: DEFAULT_SEARCH_TYPE_WEIGHTS,
  entryStates: entryStateRanking(DEFAULTS),
};

/**
 * The bundled model on the runtime EMBEDDING_RUNTIME names (auto when unset) and, on onnxruntime, the precision
 * EMBEDDING_PRECISION names (int8 when unset), loaded and printed: the same benchmark measures either runtime
 * (EMBEDDING_RUNTIME=tfjs) or precision. `vectors` names what computed the vectors (TF.js is float32).
 */
export async function bundledModel(): Promise<{
  embedder: UseLiteEmbedder;
  runtime: 'onnxruntime' | 'tfjs';
  vectors: 'int8' | 'float32';
}> {
  const config = envToConfig(readEnv());
  const embedder = new UseLiteEmbedder({ runtime: config.embeddingRuntime, precision: config.embeddingPrecision });
  const runtime = await embedder.runtime();
  const vectors = runtime === 'onnxruntime' ? config.embeddingPrecision : 'float32';
  console.log(`bundled model ${embedder.id} on ${runtime}, ${vectors}`);
  return { embedder, runtime, vectors };
}

export interface LabelledQuery {
  id: string;
  kind: string;
  text: string;
  /** ARD identifier -> grade (2 = exactly serves the need, 1 = partially); unlisted = irrelevant. */
  relevant: Record<string, number>;
}

export function labelledQueries(): LabelledQuery[] {
  const file = path.join(__dirname, 'relevance', 'registry-queries.json');
  return (JSON.parse(fs.readFileSync(file, 'utf8')) as { queries: LabelledQuery[] }).queries;
}

/**
 * The labelled queries of the registry and Alexandria sets, each with the filter it is asked with (the
 * Alexandria ones with the library's type filter, as its tools ask).
 */
export function filteredLabelledQueries(): Array<{ id: string; text: string; filter: NormalisedFilter }> {
  return ['registry-queries.json', 'alexandria-queries.json'].flatMap((set) => {
    const doc = JSON.parse(fs.readFileSync(path.join(__dirname, 'relevance', set), 'utf8')) as {
      queries: Array<{ id: string; text: string }>;
    };
    return doc.queries.map((q) => ({
      id: q.id,
      text: q.text,
      filter: normaliseFilter(set.startsWith('alexandria') ? { type: ALEXANDRIA_MEDIA_TYPE } : undefined),
    }));
  });
}

/** Milliseconds `work` takes for each item, one item at a time. */
export async function timeEach<T>(items: readonly T[], work: (item: T) => Promise<unknown>): Promise<number[]> {
  const ms: number[] = [];
  for (const item of items) {
    const started = process.hrtime.bigint();
    await work(item);
    ms.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return ms;
}

/** The records of a JSON-lines file, one per non-blank line. */
export function readJsonLines<T>(file: string): T[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as T);
}

/** A command-line option's value (`--name value`); undefined when it is not given. */
export function argValue(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** Whether the test database's PostgreSQL server (TEST_DATABASE_URL) holds a database of this name. */
export async function databaseExists(name: string): Promise<boolean> {
  return ((await adminQuery('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount ?? 0) > 0;
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** The machine's load average over 1, 5 and 15 minutes, for printing beside timing figures. */
export function loadAverage(): string {
  return os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
}

export function printTable(title: string, rows: string[][]): void {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  process.stdout.write(`\n${title}\n`);
  for (const row of rows)
    process.stdout.write(
      `  ${row
        .map((cell, c) => cell.padEnd(widths[c]))
        .join('  ')
        .trimEnd()}\n`,
    );
}

/** The PostgreSQL server the benches create their databases on. */
export const BENCH_ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** Runs one statement on the admin database (CREATE / DROP DATABASE). */
export async function adminStatement(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: BENCH_ADMIN_URL });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/** A port nothing listens on now. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Ingests `entries` as manifests of `manifestSize` (each one transaction), `lanes` manifests at a time, as the
 * crawler's CRAWL_CONCURRENCY does: one manifest's write runs while the next is embedded (bench:ingest: 38 entries/s
 * with 2 lanes against 29 with 1). `onManifest` hears of each manifest stored.
 */
export async function ingestInLanes(
  deps: IngestDeps,
  entries: CatalogEntry[],
  options: {
    manifestSize: number;
    lanes: number;
    origin: string;
    stageTimings?: WriteStageTimings;
    onManifest?: (entries: number) => void;
  },
): Promise<void> {
  const manifests: CatalogEntry[][] = [];
  for (let i = 0; i < entries.length; i += options.manifestSize) manifests.push(entries.slice(i, i + options.manifestSize));
  let next = 0;
  const lane = async () => {
    for (let m = next++; m < manifests.length; m = next++) {
      const report = await ingestManifest(
        deps,
        { specVersion: '1.0', entries: manifests[m] },
        { origin: options.origin, stageTimings: options.stageTimings },
      );
      if (report.rejected.length > 0) throw new Error(`manifest ${m}: ${report.rejected.length} entries rejected`);
      options.onManifest?.(manifests[m].length);
    }
  };
  await Promise.all(Array.from({ length: options.lanes }, lane));
}

/** Everyday queries a bench sends to POST /search while other work (a liveness round, an ingest) runs beside it. */
export const BESIDE_WORK_QUERIES = [
  'weather forecast',
  'send a slack message',
  'query a postgres database',
  'book a flight',
  'github issues',
  'translate text',
];

/**
 * One POST /search page of 10 of `text` at `base` (the page `pageToken` names, else the first): its time in ms and the
 * next page's token; throws unless it answers 200.
 */
export async function searchPage(base: string, text: string, pageToken?: string): Promise<{ ms: number; pageToken?: string }> {
  const started = performance.now();
  const res = await fetch(`${base}/search`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: { text }, pageSize: 10, ...(pageToken ? { pageToken } : {}) }),
  });
  const body = (await res.json()) as { pageToken?: string };
  if (res.status !== 200) throw new Error(`POST /search answered ${res.status}`);
  return { ms: performance.now() - started, pageToken: body.pageToken };
}

/** One POST /search of `text` (page size 10) at `base`, in ms; throws unless it answers 200. */
export async function timedSearch(base: string, text: string): Promise<number> {
  return (await searchPage(base, text)).ms;
}

/**
 * POST /search latencies (ms) at `base`, one request at a time while `keepGoing()` says so and until there are
 * `minimum`; `onEach` hears of each as it is measured. A new text each time: the query embedding is computed, not
 * cached, and takes turns with whatever else the embedder is doing.
 */
export async function searchLatencies(
  base: string,
  keepGoing: () => boolean,
  minimum = 0,
  onEach?: (ms: number) => void,
): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; keepGoing() || out.length < minimum; i++) {
    const ms = await timedSearch(base, `${BESIDE_WORK_QUERIES[i % BESIDE_WORK_QUERIES.length]} ${i}`);
    out.push(ms);
    onEach?.(ms);
  }
  return out;
}

/**
 * The settings of a registry a bench starts in the bench's own process (startRegistry) on `databaseUrl`: any free port,
 * no log, no demo corpus, no peers, no rate limit, no trust upkeep; `overrides` on top.
 */
export function inProcessBenchConfig(databaseUrl: string, overrides: Partial<RegistryConfig> = {}): Partial<RegistryConfig> {
  return {
    port: 0,
    host: '127.0.0.1',
    databaseUrl,
    logLevel: 'silent',
    loadDemoCorpus: false,
    publicUrl: 'http://bench.test/',
    peers: [],
    rateLimitPerMinute: 0,
    trustPollMs: 0,
    ...overrides,
  };
}

/**
 * `ard-registry serve` (from the sources, through tsx) in a process of its own on `databaseUrl`, no demo corpus, no
 * rate limit and no liveness probes, ready when this resolves. BENCH_NODE_ARGS adds node options (e.g. "--cpu-prof --cpu-prof-dir=/tmp/p").
 */
export async function startBenchRegistry(
  databaseUrl: string,
  env: Record<string, string> = {},
  stdout: 'inherit' | 'ignore' = 'inherit',
): Promise<{ child: ChildProcess; base: string; stop(): Promise<void> }> {
  const port = await freePort();
  const nodeArgs = process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', 'src/cli.ts', 'serve'], {
    cwd: path.resolve(__dirname, '..'),
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_MINUTE: '0',
      LOAD_DEMO_CORPUS: 'false',
      // Probes would write results for the bench's entries, whose hosts do not exist, while the bench measures.
      LIVENESS_PROBES: 'false',
      ...env,
    },
    stdio: ['ignore', stdout, 'inherit'],
  });
  const stop = async () => {
    if (child.exitCode !== null) return;
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  };
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (i > 300) {
      await stop();
      throw new Error('the registry did not become ready within 60 s');
    }
    if (
      await fetch(`${base}/readyz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { child, base, stop };
}

/** The database's client backends (this process's pooled connections when nothing else uses the database). */
export async function backendPids(db: Kysely<Database>): Promise<number[]> {
  const rows = await sql<{ pid: number }>`
    SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend'`.execute(db);
  return rows.rows.map((r) => r.pid);
}

/** CPU milliseconds (user + system) the processes have used, from /proc/<pid>/stat (clock ticks of 10 ms); 0 for a process not on this machine. */
export function cpuMs(pids: number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // not on this machine, or gone
    }
  }
  return ticks * 10;
}
