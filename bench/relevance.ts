// `npm run bench:relevance`: search quality and latency on the labelled evaluation sets
// (bench/relevance/*.json, see its README). Builds, or reuses, a database on the real PostgreSQL named
// after a hash of everything that shapes the index (migrations, corpus, ingest/embedding code), holding the
// demo corpus AND the Alexandria library as catalog entries, then runs every query through the production
// ranking and through each signal alone.
//
// Dev/test split: ranking changes are tuned on the DEV half (odd query numbers: r001, r003, a001, ...) and the
// TEST half (even numbers) is reported beside it, so an improvement that only fits the dev queries shows up
// as a gap between the two.
//
// Options: --sets a.json,b.json runs other query files of the same format instead of bench/relevance's two (a
// set judged by Alexandria record ids is asked with the library's type filter, as its tools ask); --no-10k
// skips the 10k-entry latency run; --only 'BM25 only,...' runs production and those rankers; --json FILE writes
// every figure; --verbose lists the production misses (queries whose top 10 has no grade-2 entry); --ranks FILE
// writes each query's first grade-2 rank and top three as JSON lines, LiveMCPBench's tasks after the repo sets' (to
// compare two builds query by query);
// --no-external skips the external benchmark.
//
// The external benchmark (bench/livemcpbench, README there): LiveMCPBench's 70-server catalog ingested alone
// into its own database, its 95 tasks asked through the same path, production beside plain BM25
// (plain-bm25.ts), on the repo sets too. covered@10: a task is covered when each of its needs (a
// `requiredAnyOf` group) has a member in the first 10; a repo query has one need, its grade-2 entries.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { sql, type Kysely } from 'kysely';
import { envToConfig, readEnv } from '../src/config';
import { connectDatabase } from '../src/db/connect';
import { migrateToLatest } from '../src/db/migrate';
import type { Database } from '../src/db/schema';
import { withQueryCache } from '../src/embedding/embedder';
import type { CatalogManifest } from '../src/catalog/catalog-entry';
import { ingestManifest } from '../src/ingest/ingest-manifest';
import { ingestFile } from '../src/ingest/load-files';
import { CORPUS_DIR, demoManifestPaths } from '../src/ingest/demo-corpus';
import { ALEXANDRIA_MEDIA_TYPE, alexandriaIdToUrn, recordToCatalogEntry } from '../src/alexandria/mapping';
import type { AlexandriaRecord } from '../src/alexandria/record';
import { normaliseFilter, type NormalisedFilter } from '../src/search/query-filter';
import { checkQueryText } from '../src/search/query-text';
import {
  matchText,
  needTexts,
  PRODUCTION_STAGES,
  RELEVANCE_CUTOFF,
  RELEVANT_SCORE,
  prepareQuery,
  type PreparedQuery,
  type QueryEmbedder,
} from '../src/search/relevance';
import { ablatedStages, type RankingAblations } from '../src/search/relevance/ablations';
import type { EntryStateRanking } from '../src/search/relevance/entry-state-adjustment';
import { createPageTokenCodec } from '../src/search/paging';
import { loadQueryVocabulary, type QueryVocabulary } from '../src/search/query-vocabulary';
import { matchedTools } from '../src/search/matched-tools';
import { collapseProducts, ProductKeyCache } from '../src/search/product-collapse';
import { createSearchService, entriesOfPage } from '../src/search/search-service';
import { argValue, bundledModel, databaseExists, PRODUCTION_RANKING, readJsonLines, timeEach } from './bench-util';
import { benchSignals, type Ranked } from './relevance-signals';
import { PlainBm25 } from './plain-bm25';
import { parseProductGlossary, type ProductGlossary } from '../src/catalog/product-glossary';
// The same PostgreSQL as the tests (TEST_DATABASE_URL, default postgres@127.0.0.1:5432).
import { adminQuery, databaseUrl } from '../test/helpers/test-database';

const ROOT = path.resolve(__dirname, '..');
const SETS = ['registry-queries.json', 'alexandria-queries.json'];
const KINDS = ['paraphrase', 'direct', 'typo', 'multi'] as const;
const SYNTHETIC_COPIES = 16;
/** Queries with no answer in the corpus: what the cutoff should mostly empty. */
const OFF_TOPIC = [
  'banana bread recipe with walnuts',
  'xqzvw plorf brindle',
  'who won the 1998 world cup final',
  'knitting pattern for a wool scarf',
  'best hiking boots for wide feet',
  'translate this poem into latin hexameter',
  'how tall is mount kilimanjaro',
  'adopt a kitten near me',
  // Products and needs the demo corpus does not serve (bench/relevance/README.md, "Needs left out because no entry
  // serves them"). "generate an image from a text prompt" is not one: awslabs-nova-canvas and glif generate images.
  'google calendar',
  'make me a sandwich',
  "what's on my calendar tomorrow",
  'send a whatsapp message to my mom',
  'play my spotify discover weekly playlist',
  'create a salesforce lead for this contact',
  'order a pizza for delivery',
];
/** A long query: LiveMCPBench's tasks and the repo's longer multi queries (the need texts' MIN_SPLIT_WORDS). */
const LONG_QUERY_WORDS = 12;

interface Query {
  id: string;
  kind: (typeof KINDS)[number];
  text: string;
  relevant: Record<string, number>;
  set: string;
  filter: NormalisedFilter;
  /** Each need of the query: covered when one member of each group is in the first 10. Default: its grade-2 entries. */
  needs?: string[][];
}

interface Run {
  query: Query;
  ranked: Ranked[];
}

interface Ranker {
  name: string;
  /** SEARCH_TYPE_WEIGHTS of this ranker (production's: PRODUCTION_RANKING). */
  typeWeights?: Readonly<Record<string, number>>;
  /** The pipeline's stages swapped for this ranker; none: production's. */
  ablations?: RankingAblations;
  /** The entry-state adjustment (liveness, TRUST_RANK_BOOST); none: the text alone ranks. */
  entryStates?: EntryStateRanking;
  rank?: (db: Kysely<Database>, q: PreparedQuery, filter: NormalisedFilter) => Promise<Ranked[]>;
  /** One entry per product, as the search service lists them (product-collapse.ts); none: every matched entry. */
  collapse?: boolean;
}

function argFlag(name: string): boolean {
  return process.argv.includes(name);
}
/** A database name's hash: `extra` (which vectors, int8 or float32, and the set) and the files that shape the index. */
function hashInputs(extra: string): string {
  const hash = createHash('sha256').update(extra);
  const walk = (p: string) => {
    const full = path.join(ROOT, p);
    if (!fs.existsSync(full)) return;
    if (fs.statSync(full).isDirectory()) for (const child of fs.readdirSync(full).sort()) walk(path.join(p, child));
    else hash.update(p).update(fs.readFileSync(full));
  };
  // What shapes the stored index: schema, corpus, the texts embedded and how, the ingest path.
  [
    'db/migrations',
    'data/corpus',
    'data/cjk-glossary',
    'src/catalog',
    'src/embedding/entry-texts.ts',
    'src/embedding/use-lite-embedder.ts',
    'src/embedding/use-lite-graph.ts',
    'src/embedding/use-lite-onnx.ts',
    'src/ingest',
    'src/alexandria/mapping.ts',
  ].forEach(walk);
  return hash.digest('hex').slice(0, 10);
}

function alexandriaManifest(): unknown {
  const library = JSON.parse(fs.readFileSync(path.join(CORPUS_DIR, 'alexandria-library.json'), 'utf8')) as { records: AlexandriaRecord[] };
  return { specVersion: '1.0', host: { displayName: 'Alexandria library' }, entries: library.records.map(recordToCatalogEntry) };
}

/**
 * CREATE DATABASE [TEMPLATE t], retried while another session (a concurrent bench run reading the
 * template) holds the template open: PostgreSQL refuses to copy a database in use (SQLSTATE 55006).
 */
async function createFromTemplate(name: string, template?: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await adminQuery(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`);
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== '55006' || attempt >= 120) throw error;
      if (attempt === 1) console.log(`  waiting for other sessions to leave ${template}`);
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
}

/** Builds under a temporary name and renames when complete, so an interrupted run leaves nothing half-filled. */
async function ensureDatabase(name: string, fill: (db: Kysely<Database>) => Promise<void>, template?: string): Promise<void> {
  if (await databaseExists(name)) return;
  const building = `${name}_building`;
  await adminQuery(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`);
  await createFromTemplate(building, template);
  const handle = await connectDatabase({ databaseUrl: databaseUrl(building), dataDir: '' });
  try {
    await migrateToLatest(handle.db);
    await fill(handle.db);
    // The state a running registry reaches (autovacuum): no dead row versions from the bulk load.
    await sql`VACUUM ANALYZE`.execute(handle.db);
  } finally {
    await handle.close();
  }
  await adminQuery(`ALTER DATABASE ${building} RENAME TO ${name}`);
}

async function fillCorpus(db: Kysely<Database>, embedder: QueryEmbedder): Promise<void> {
  for (const file of demoManifestPaths()) {
    const started = Date.now();
    const report = await ingestFile({ db, embedder }, file);
    console.log(`  ingested ${path.basename(file)}: +${report.added} ~${report.updated} (${Date.now() - started} ms)`);
  }
  const report = await ingestManifest({ db, embedder }, alexandriaManifest(), { origin: 'file:alexandria-library.json' });
  console.log(`  ingested alexandria-library.json: +${report.added}, rejected ${report.rejected.length}`);
}

/** ~10k entries: every real entry copied SYNTHETIC_COPIES times with a varied name and jittered vectors. */
async function fillSynthetic(db: Kysely<Database>): Promise<void> {
  for (let i = 1; i <= SYNTHETIC_COPIES; i++) {
    await sql`
      INSERT INTO entries (identifier, publisher, type, display_name, description, version, tags, capabilities, entry, host,
                           content_hash, origin, fetched_at, search_text, gloss, tools)
      SELECT identifier || ':syn' || ${i}, publisher, type,
             display_name || ' ' || (ARRAY['Pro','Lite','Cloud','Plus','Edge','Hub','Kit','Core'])[1 + ${i} % 8] || ' ' || ${i},
             description, version, tags, capabilities,
             jsonb_set(entry, '{identifier}', to_jsonb(identifier || ':syn' || ${i})), host, content_hash, origin, fetched_at,
             search_text || ' ' || ${String(i)}, gloss, tools
      FROM entries WHERE identifier NOT LIKE '%:syn%'`.execute(db);
    await sql`
      INSERT INTO entry_vectors (identifier, model, field, embedding)
      SELECT v.identifier || ':syn' || ${i}, v.model, v.field,
             (SELECT array_agg(x + (random() - 0.5) * 0.04) FROM unnest(v.embedding::real[]) AS x)::vector
      FROM entry_vectors v WHERE v.identifier NOT LIKE '%:syn%'`.execute(db);
  }
}

/** The query files: --sets a.json,b.json (paths from the working directory), else the two in bench/relevance. */
function setFiles(): string[] {
  const given = argValue('--sets');
  return given ? given.split(',').map((f) => path.resolve(f)) : SETS.map((f) => path.join(ROOT, 'bench', 'relevance', f));
}

/**
 * Every query of the sets. A set whose judged keys are Alexandria record ids ("arxiv:...", not "urn:...") is
 * asked the way the library's tools ask: record ids mapped to identifiers, the library's type as a filter.
 */
function loadQueries(): Query[] {
  const out: Query[] = [];
  for (const file of setFiles()) {
    const doc = JSON.parse(fs.readFileSync(file, 'utf8')) as { queries?: Array<Omit<Query, 'set' | 'filter'>> };
    if (!Array.isArray(doc.queries) || doc.queries.length === 0)
      throw new Error(`${file}: no "queries" array (format: bench/relevance/README.md)`);
    const keys = doc.queries.flatMap((q) => Object.keys(q.relevant ?? {}));
    const alexandria = keys.length > 0 && keys.every((k) => !k.startsWith('urn:'));
    for (const q of doc.queries) {
      if (typeof q.id !== 'string' || typeof q.text !== 'string' || !q.relevant || !Object.values(q.relevant).includes(2)) {
        throw new Error(`${file}: query ${JSON.stringify(q.id)} needs an id, a text and at least one grade-2 entry in "relevant"`);
      }
      const relevant = alexandria
        ? Object.fromEntries(Object.entries(q.relevant).map(([id, g]) => [alexandriaIdToUrn(id), g]))
        : q.relevant;
      // The Alexandria library asks the index with its media type as a filter (library-service.ts).
      const filter = normaliseFilter(alexandria ? { type: ALEXANDRIA_MEDIA_TYPE } : undefined);
      out.push({ ...q, relevant, set: alexandria ? 'alexandria' : 'registry', filter });
    }
  }
  return out;
}

function isDev(q: Query): boolean {
  return Number(q.id.replace(/\D/g, '')) % 2 === 1;
}

interface Figures {
  n: number;
  hit1: number;
  hit5: number;
  mrr: number;
  recall: number;
  ndcg: number;
  covered: number;
}

function needsOf(query: Query): string[][] {
  return query.needs ?? [Object.keys(query.relevant).filter((id) => query.relevant[id] === 2)];
}

function figures(runs: Run[]): Figures {
  const f: Figures = { n: runs.length, hit1: 0, hit5: 0, mrr: 0, recall: 0, ndcg: 0, covered: 0 };
  for (const { query, ranked } of runs) {
    const firstTen = new Set(ranked.slice(0, 10).map((r) => r.identifier));
    if (needsOf(query).every((need) => need.some((id) => firstTen.has(id)))) f.covered++;
    const top = ranked.slice(0, 10).map((r) => query.relevant[r.identifier] ?? 0);
    const first = top.findIndex((g) => g === 2);
    if (first === 0) f.hit1++;
    if (first >= 0 && first < 5) f.hit5++;
    if (first >= 0) f.mrr += 1 / (first + 1);
    const grade2 = Object.values(query.relevant).filter((g) => g === 2).length;
    f.recall += top.filter((g) => g === 2).length / grade2;
    const dcg = top.reduce((s, g, i) => s + (2 ** g - 1) / Math.log2(i + 2), 0);
    const ideal = Object.values(query.relevant)
      .sort((a, b) => b - a)
      .slice(0, 10)
      .reduce((s, g, i) => s + (2 ** g - 1) / Math.log2(i + 2), 0);
    f.ndcg += dcg / ideal;
  }
  const n = Math.max(1, runs.length);
  return {
    n: runs.length,
    hit1: f.hit1 / n,
    hit5: f.hit5 / n,
    mrr: f.mrr / n,
    recall: f.recall / n,
    ndcg: f.ndcg / n,
    covered: f.covered / n,
  };
}

function row(label: string, f: Figures): string {
  const c = (x: number) => x.toFixed(3).padStart(7);
  return `${label.padEnd(22)}${String(f.n).padStart(4)}${c(f.hit1)}${c(f.hit5)}${c(f.mrr)}${c(f.recall)}${c(f.ndcg)}${c(f.covered)}`;
}

function subsets(runs: Run[]): Array<[string, Run[]]> {
  return [
    ['all', runs],
    ['dev (odd ids)', runs.filter((r) => isDev(r.query))],
    ['test (even ids)', runs.filter((r) => !isDev(r.query))],
    ...KINDS.map((k) => [k, runs.filter((r) => r.query.kind === k)] as [string, Run[]]),
  ];
}

const HEADER = `${'ranker / subset'.padEnd(22)}   n  hit@1  hit@5 MRR@10  R@10 nDCG@10 cov@10`;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

/** The product keys remembered across queries, as the search service remembers them (keyed by content hash). */
const productKeyCache = new ProductKeyCache();

/** SEARCH_SYNONYMS_FILE / SEARCH_RELATED_WORDS_FILE, when set: every ranking here uses them, as the registry would. */
let operatorVocabulary: QueryVocabulary | undefined;

async function runAll(
  db: Kysely<Database>,
  embedder: QueryEmbedder,
  queries: Query[],
  ranker: Ranker,
): Promise<{ runs: Run[]; ms: number[] }> {
  const runs: Run[] = [];
  const ms: number[] = [];
  const stages = ranker.ablations ? ablatedStages(ranker.ablations) : PRODUCTION_STAGES;
  const deps = { db, embedder, vocabulary: operatorVocabulary, typeWeights: ranker.typeWeights, entryStates: ranker.entryStates };
  // The whole ranked list with its entries, as federation and the Alexandria tools read it.
  const rank = async (query: Query): Promise<Ranked[]> => {
    // The text as POST /search searches it: a text over 2,000 characters on its first part (query-text.ts).
    const text = checkQueryText(query.text);
    if (ranker.rank) return ranker.rank(db, await prepareQuery(db, embedder, text, operatorVocabulary), query.filter);
    const ranked = await matchText(deps, text, query.filter, stages);
    const matches = ranker.collapse ? (await collapseProducts(db, ranked, productKeyCache)).matches : ranked;
    return (await entriesOfPage(db, matches, 0, matches.length)).map((r) => ({
      identifier: r.entry.identifier,
      relevance: r.relevance,
      score: r.score,
    }));
  };
  for (const query of queries) {
    const started = process.hrtime.bigint();
    const ranked = await rank(query);
    ms.push(Number(process.hrtime.bigint() - started) / 1e6);
    runs.push({ query, ranked });
  }
  return { runs, ms };
}

/**
 * A query's production path through the search service, one query at a time; ms per query. 'search': POST
 * /search's (search: the pipeline + the first page's 10 entries); 'whole list': rank (the pipeline + every
 * matched entry), what the referrals read.
 */
async function timeProductionPath(
  db: Kysely<Database>,
  embedder: QueryEmbedder,
  queries: Query[],
  path: 'search' | 'whole list' = 'search',
): Promise<number[]> {
  const search = createSearchService({
    db,
    embedder,
    pageTokens: createPageTokenCodec('bench'),
    publicUrl: 'http://bench',
    typeWeights: PRODUCTION_RANKING.typeWeights,
    entryStates: PRODUCTION_RANKING.entryStates,
    vocabulary: operatorVocabulary,
  });
  return timeEach(queries, (query) => {
    if (path === 'whole list') return search.rank(query.text, query.filter);
    const filter = Object.fromEntries(query.filter.map((f) => [f.path, f.values]));
    return search.search({ text: query.text, filter, pageSize: 10 });
  });
}

/** Production's ranking settings and its collapse by product; the rows below take one thing out of it. */
const PRODUCTION = { ...PRODUCTION_RANKING, collapse: true };
const production: Ranker = { name: 'production', ...PRODUCTION };
/** Every candidate with its relevance, no cutoff: for the precision/recall curve of the cutoff. */
const productionUncut: Ranker = { name: 'uncut', ...PRODUCTION_RANKING, ablations: { cutoff: 0 } };
const withoutTypeWeights: Ranker = { name: '- type weights', collapse: true };
/** Every text one need: the ranking before need texts and the coverage-first page (docs/relevance.md, "Several needs"). */
const withoutNeeds: Ranker = { name: '- several needs', ...PRODUCTION, ablations: { needs: false } };
/** The clauses' needs only: none implied by a file path, a relative date or a web address (need-texts.ts). */
const withoutImpliedNeeds: Ranker = { name: '- implied needs', ...PRODUCTION, ablations: { impliedNeeds: false } };
/** The entries' tool vectors do not raise their cosine (signals.ts withToolCosine; decision 0037). */
const withoutToolVectors: Ranker = { name: '- tool vectors', ...PRODUCTION, ablations: { toolVectors: false } };
const RANKERS: Ranker[] = [
  production,
  { name: 'semantic only', ...PRODUCTION, ablations: { signals: { lexical: false }, cutoff: 0 } },
  { name: 'BM25 only', ...PRODUCTION, ablations: { signals: { semantic: false }, cutoff: 0 } },
  { name: '- corrections', ...PRODUCTION, ablations: { corrections: false } },
  { name: '- expansions', ...PRODUCTION, ablations: { expansions: false } },
  withoutTypeWeights,
  { name: '- topic labels', ...PRODUCTION, ablations: { topics: false } },
  { name: '- minimum matches', ...PRODUCTION, ablations: { minimumMatches: 0 } },
  withoutNeeds,
  withoutImpliedNeeds,
  { name: 'semantic: doc only', ...PRODUCTION, ablations: { semanticFields: ['doc'] } },
  withoutToolVectors,
  ...[0.1, 0.25].map((boost) => ({ name: `+ verified boost ${boost}`, ...PRODUCTION, entryStates: verifiedBoost(boost) })),
  { name: '- archived demotion', ...PRODUCTION, entryStates: { ...PRODUCTION.entryStates!, archivedDemotion: 0 } },
  { name: '- product collapse', ...PRODUCTION, collapse: false },
  ...benchSignals.map((s) => ({ name: s.name, rank: s.rank.bind(s) })),
  plainBm25Ranker(),
];

/**
 * TRUST_RANK_BOOST's effect: the corpus has no signed entries, so VERIFIED_SHARE of them, drawn by a hash of the
 * identifier (not by relevance), are marked verified in the bench database (markVerifiedAtRandom). The rows
 * weigh nothing for the rankers without `entryStates`.
 */
const VERIFIED_SHARE = 0.1;
function verifiedBoost(boost: number): EntryStateRanking {
  return { ...PRODUCTION_RANKING.entryStates!, verifiedBoost: boost };
}
async function markVerifiedAtRandom(db: Kysely<Database>): Promise<void> {
  await sql`INSERT INTO entry_verification (identifier, content_hash, state, reason, method, detail, checked_at, next_check_at)
    SELECT identifier, content_hash, 'verified', NULL, 'jws+did:web', 'bench: marked at random', now(), 'infinity'
    FROM entries WHERE get_byte(decode(md5(identifier), 'hex'), 0) < ${Math.round(256 * VERIFIED_SHARE)}
    ON CONFLICT (identifier) DO NOTHING`.execute(db);
}

/** Plain BM25 (plain-bm25.ts), its index built once per database. */
function plainBm25Ranker(): Ranker {
  const built = new Map<Kysely<Database>, Promise<PlainBm25>>();
  return {
    name: 'plain BM25',
    async rank(db, q, filter) {
      if (!built.has(db)) built.set(db, PlainBm25.build(db));
      return (await built.get(db)!).rank(q.text, filter);
    },
  };
}

const EXTERNAL_DIR = path.join(ROOT, 'bench', 'livemcpbench');

/** LiveMCPBench's tasks (bench/livemcpbench/queries.jsonl): every labelled server grade 2, one need per `requiredAnyOf` group. */
function externalQueries(): Query[] {
  const tasks = readJsonLines<{ text: string; relevant: string[]; requiredAnyOf: string[][] }>(path.join(EXTERNAL_DIR, 'queries.jsonl'));
  return tasks.map((task, i) => ({
    id: `t${String(i + 1).padStart(3, '0')}`,
    kind: 'multi',
    text: task.text,
    relevant: Object.fromEntries(task.relevant.map((id) => [id, 2])),
    set: 'livemcpbench',
    filter: [],
    needs: task.requiredAnyOf,
  }));
}

/**
 * The external benchmark: its catalog alone in its own database, its tasks through the production ranking
 * and plain BM25, all tasks and by number of needs.
 */
async function externalBenchmark(embedder: QueryEmbedder, vectors: string, report: Record<string, unknown>): Promise<void> {
  const catalog = fs.readFileSync(path.join(EXTERNAL_DIR, 'catalog.json'), 'utf8');
  const tools = fs.readFileSync(path.join(EXTERNAL_DIR, 'tools.jsonl'), 'utf8');
  const hash = hashInputs(`livemcpbench ${vectors} ${createHash('sha256').update(catalog).update(tools).digest('hex')}`);
  const withTools = JSON.stringify(catalogWithInlineCards(JSON.parse(catalog) as CatalogManifest, tools));
  // The catalog three times: with its servers' cards inline and glossed by the product glossary, as the registry
  // does; the same with no glossary (what the glossary is worth); as published, tool names only (what the tool
  // descriptions are worth).
  const databases: Array<[string, string, ProductGlossary | undefined, string]> = [
    ['', `ard_bench_livemcp_${hash}`, undefined, withTools],
    [' - glossary', `ard_bench_livemcp_unglossed_${hash}`, parseProductGlossary({}, 'no glossary'), withTools],
    [' - tool descriptions', `ard_bench_livemcp_toolless_${hash}`, undefined, catalog],
  ];
  const queries = externalQueries();
  console.log(`\n== LiveMCPBench (${queries.length} tasks, its catalog alone) ==\n${HEADER}`);
  for (const [suffix, name, glossary, manifest] of databases) {
    await ensureDatabase(name, async (db) => {
      const ingested = await ingestManifest({ db, embedder, glossary }, JSON.parse(manifest), { origin: 'file:livemcpbench/catalog.json' });
      console.log(`  ingested livemcpbench/catalog.json into ${name}: +${ingested.added}, rejected ${ingested.rejected.length}`);
    });
    const handle = await connectDatabase({ databaseUrl: databaseUrl(name), dataDir: '' });
    try {
      await externalRuns(
        handle.db,
        embedder,
        queries,
        suffix,
        suffix === ' - glossary'
          ? [production]
          : suffix
            ? [production, plainBm25Ranker()]
            : [production, withoutNeeds, withoutImpliedNeeds, withoutToolVectors, plainBm25Ranker()],
        report,
      );
    } finally {
      await handle.close();
    }
  }
}

/**
 * The catalog with each server's card inline (`data`, ARD §4.3): its name, description and the tools its own
 * tools/list returned (tools.jsonl), read by the same path as any entry's inline card (src/catalog/entry-tools.ts).
 * `data` and `url` are exclusive: the repository `url` stays in `metadata.repositoryUrl`.
 */
function catalogWithInlineCards(catalog: CatalogManifest, toolsJsonl: string): CatalogManifest {
  const byServer = new Map<string, Array<{ name: string; description?: string; inputSchema?: unknown }>>();
  for (const line of toolsJsonl.split('\n').filter((l) => l.trim())) {
    const { server, ...tool } = JSON.parse(line) as { server: string; name: string; description?: string; inputSchema?: unknown };
    byServer.set(server, [...(byServer.get(server) ?? []), tool]);
  }
  return {
    ...catalog,
    entries: catalog.entries.map(({ url: _url, ...entry }) => ({
      ...entry,
      data: { name: entry.displayName, description: entry.description ?? '', tools: byServer.get(entry.identifier) ?? [] },
    })),
  };
}

/** The external tasks through `rankers` on one database: all tasks and by number of needs. */
async function externalRuns(
  db: Kysely<Database>,
  embedder: QueryEmbedder,
  queries: Query[],
  suffix: string,
  rankers: Ranker[],
  report: Record<string, unknown>,
): Promise<void> {
  const byRanker = new Map<Ranker, Run[]>();
  for (const ranker of rankers) {
    const { runs } = await runAll(db, embedder, queries, ranker);
    byRanker.set(ranker, runs);
    const subs: Array<[string, Run[]]> = [
      ['all', runs],
      ['one need', runs.filter((r) => r.query.needs!.length === 1)],
      ['several needs', runs.filter((r) => r.query.needs!.length > 1)],
    ];
    for (const [sub, rs] of subs) {
      const f = figures(rs);
      console.log(row(`${ranker.name}${suffix}${sub === 'all' ? '' : ` ${sub}`}`, f));
      report[`livemcpbench/${ranker.name}${suffix}/${sub}`] = f;
    }
    // LiveMCPBench's tasks follow the repo sets' lines in the --ranks file (set "livemcpbench").
    const ranksFile = argValue('--ranks');
    if (ranker === production && suffix === '' && ranksFile) fs.appendFileSync(ranksFile, rankLines(runs));
    if (ranker === production && suffix !== ' - glossary' && argFlag('--verbose')) {
      for (const { query, ranked } of runs) {
        const firstTen = new Set(ranked.slice(0, 10).map((r) => r.identifier));
        const missed = query.needs!.filter((need) => !need.some((id) => firstTen.has(id)));
        if (missed.length > 0)
          console.log(`  ${query.id} missed ${missed.map((n) => n[0].split(':').pop()).join(', ')}: ${query.text.slice(0, 120)}`);
      }
    }
  }
  const productionRuns = byRanker.get(production);
  const bm25Runs = [...byRanker].find(([ranker]) => ranker.name === 'plain BM25')?.[1];
  if (productionRuns && bm25Runs) {
    console.log(confidenceLine(`livemcpbench${suffix}`, productionRuns));
    console.log(longQueryLine(`livemcpbench${suffix}`, productionRuns, bm25Runs));
  }
}

/**
 * --ranks: per query, to compare two builds query by query (docs/relevance.md), the rank of its first grade-2 entry
 * and the first three entries, one JSON line each.
 */
function rankLines(runs: Run[]): string {
  return runs
    .map(({ query, ranked }) => {
      const first = ranked.findIndex((r) => query.relevant[r.identifier] === 2);
      return `${JSON.stringify({
        id: query.id,
        set: query.set,
        kind: query.kind,
        text: query.text,
        firstGrade2Rank: first < 0 ? null : first + 1,
        top3: ranked.slice(0, 3).map((r) => r.identifier),
      })}\n`;
    })
    .join('');
}

/**
 * What a score at RELEVANT_SCORE or above is worth on labelled queries: of the results there (whole ranked
 * lists), the share graded relevant (grade 1 or 2) and grade 2; of the grade-2 entries in the first 10, the share
 * scored there; the queries whose first result is there.
 */
function confidenceLine(label: string, runs: Run[]): string {
  let above = 0;
  let aboveRelevant = 0;
  let aboveGrade2 = 0;
  let topGrade2 = 0;
  let topGrade2Above = 0;
  let firstAbove = 0;
  for (const { query, ranked } of runs) {
    for (const [i, r] of ranked.entries()) {
      const grade = query.relevant[r.identifier] ?? 0;
      const isAbove = (r.score ?? 0) >= RELEVANT_SCORE;
      if (isAbove) {
        above++;
        if (grade > 0) aboveRelevant++;
        if (grade === 2) aboveGrade2++;
      }
      if (i < 10 && grade === 2) {
        topGrade2++;
        if (isAbove) topGrade2Above++;
      }
    }
    if ((ranked[0]?.score ?? 0) >= RELEVANT_SCORE) firstAbove++;
  }
  const share = (a: number, b: number) => (b ? a / b : 0).toFixed(3);
  return `  ${label.padEnd(14)}${String(runs.length).padStart(4)} queries: ${(above / Math.max(1, runs.length)).toFixed(1)} results/query at score >= ${RELEVANT_SCORE}, graded relevant ${share(aboveRelevant, above)} (grade 2 ${share(aboveGrade2, above)}); grade-2 entries of the first 10 at it ${share(topGrade2Above, topGrade2)}; first result at it ${share(firstAbove, runs.length)}`;
}

function wordCount(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

/** Recall@10 of the long queries (LONG_QUERY_WORDS words or more), production beside plain BM25. */
function longQueryLine(label: string, production: Run[], bm25: Run[]): string {
  const long = (runs: Run[]) => runs.filter((r) => wordCount(r.query.text) >= LONG_QUERY_WORDS);
  const prod = figures(long(production));
  const plain = figures(long(bm25));
  const byQuery = new Map(long(bm25).map((r) => [r.query.id, r]));
  const recallOf = (run: Run) => figures([run]).recall;
  const worse = long(production).filter((r) => byQuery.has(r.query.id) && recallOf(r) < recallOf(byQuery.get(r.query.id)!) - 1e-9);
  return `  ${label.padEnd(14)}${String(prod.n).padStart(4)} queries of ${LONG_QUERY_WORDS}+ words: R@10 production ${prod.recall.toFixed(3)}, plain BM25 ${plain.recall.toFixed(3)}; production below plain BM25 on ${worse.length}${worse.length ? ` (${worse.map((r) => r.query.id).join(', ')})` : ''}`;
}

function cutoffCurve(runs: Run[], offTopic: Run[]): string[] {
  const lines = ['threshold  recall(g2)  precision(g>=1)  results/query  off-topic results/query'];
  for (let t = 0.05; t <= 0.951; t += 0.05) {
    let g2 = 0;
    let g2kept = 0;
    let kept = 0;
    let keptRelevant = 0;
    for (const { query, ranked } of runs) {
      const above = ranked.filter((r) => r.relevance >= t - 1e-9);
      g2 += Object.values(query.relevant).filter((g) => g === 2).length;
      g2kept += above.filter((r) => query.relevant[r.identifier] === 2).length;
      kept += above.length;
      keptRelevant += above.filter((r) => (query.relevant[r.identifier] ?? 0) > 0).length;
    }
    const off = offTopic.reduce((s, r) => s + r.ranked.filter((x) => x.relevance >= t - 1e-9).length, 0) / Math.max(1, offTopic.length);
    const mark = Math.abs(t - RELEVANCE_CUTOFF) < 0.025 ? '  <- RELEVANCE_CUTOFF' : '';
    lines.push(
      `${t.toFixed(2).padStart(9)}  ${(g2kept / g2).toFixed(3).padStart(10)}  ${(kept ? keptRelevant / kept : 0).toFixed(3).padStart(15)}  ${(kept / runs.length).toFixed(1).padStart(13)}  ${off.toFixed(1).padStart(23)}${mark}`,
    );
  }
  return lines;
}

async function main(): Promise<void> {
  const config = envToConfig(readEnv());
  if (config.searchSynonymsFile || config.searchRelatedWordsFile) {
    operatorVocabulary = await loadQueryVocabulary({
      synonymsFile: config.searchSynonymsFile,
      relatedWordsFile: config.searchRelatedWordsFile,
    });
    console.log(
      `query vocabulary: the bundled tables with ${[config.searchSynonymsFile, config.searchRelatedWordsFile].filter(Boolean).join(', ')}`,
    );
  }
  const { embedder: useLite, runtime, vectors } = await bundledModel();
  const embedder = withQueryCache(useLite);
  // Latency must include the query embedding: a cache-free embedder for the timed runs.
  const uncached: QueryEmbedder = {
    id: embedder.id,
    dimensions: embedder.dimensions,
    embed: (t) => embedder.embed(t),
    embedOne: async (t) => (await embedder.embed([t]))[0],
  };
  const hash = hashInputs(`v2 ${vectors}`);
  const name = `ard_bench_relevance_${hash}`;
  console.log(`bench database ${name}${(await databaseExists(name)) ? ' (reused)' : ' (building)'}`);
  await ensureDatabase(name, (db) => fillCorpus(db, embedder));
  const handle = await connectDatabase({ databaseUrl: databaseUrl(name), dataDir: '' });
  const report: Record<string, unknown> = { database: name, runtime };
  try {
    const db = handle.db;
    const queries = loadQueries();
    // A judged identifier the index does not hold can never be found: say so rather than score it silently.
    const judged = [...new Set(queries.flatMap((q) => Object.keys(q.relevant)))];
    const held = new Set(
      (
        await sql<{
          identifier: string;
        }>`SELECT identifier FROM entries WHERE identifier = ANY(${judged}::text[]) AND deleted_at IS NULL`.execute(db)
      ).rows.map((r) => r.identifier),
    );
    const missing = judged.filter((id) => !held.has(id));
    if (missing.length > 0)
      console.log(`warning: ${missing.length} judged identifiers are not in the index, e.g. ${missing.slice(0, 3).join(', ')}`);
    await markVerifiedAtRandom(db);
    await embedder.embed(['warm up']);
    const header = HEADER;
    const only = argValue('--only');
    const rankers = RANKERS.filter((r) => r === production || !only || only.split(',').includes(r.name));
    const all: Record<string, Run[]> = {};
    let prodMs: number[] = [];
    for (const ranker of rankers) {
      const { runs, ms } = await runAll(db, ranker === production ? uncached : embedder, queries, ranker);
      all[ranker.name] = runs;
      if (ranker === production) prodMs = ms;
    }
    for (const set of ['registry', 'alexandria', 'both']) {
      console.log(`\n== ${set} ==\n${header}`);
      for (const { name: label } of rankers) {
        const runs = all[label].filter((r) => set === 'both' || r.query.set === set);
        const list = label === 'production' ? subsets(runs) : subsets(runs).slice(0, 1);
        for (const [sub, rs] of list) {
          const f = figures(rs);
          console.log(row(`${label}${sub === 'all' ? '' : ` ${sub}`}`, f));
          report[`${set}/${label}/${sub}`] = f;
        }
      }
    }
    // The type weights' cost: the library's questions asked through a plain POST /search, without the type
    // filter its own tools add (an unfiltered client sees papers ranked at SEARCH_TYPE_WEIGHTS of relevance).
    const unfiltered = queries.filter((q) => q.set === 'alexandria').map((q) => ({ ...q, filter: normaliseFilter(undefined) }));
    console.log(`\n== alexandria asked without its type filter ==\n${header}`);
    for (const ranker of [production, withoutTypeWeights]) {
      const { runs } = await runAll(db, embedder, unfiltered, ranker);
      const f = figures(runs);
      console.log(row(ranker.name, f));
      report[`alexandria-unfiltered/${ranker.name}/all`] = f;
    }

    console.log(
      `\nproduction latency over ${prodMs.length} queries (query embedding included): p50 ${percentile(prodMs, 50).toFixed(1)} ms, p95 ${percentile(prodMs, 95).toFixed(1)} ms`,
    );
    report.latency = { p50: percentile(prodMs, 50), p95: percentile(prodMs, 95) };

    const uncut = await runAll(db, embedder, queries, productionUncut);
    const offTopic: Query[] = OFF_TOPIC.map((text, i) => ({ id: `x${i}`, kind: 'direct', text, relevant: {}, set: 'off', filter: [] }));
    const off = await runAll(db, embedder, offTopic, productionUncut);
    // What the cutoff's rule reads (docs/relevance.md): the answers off-topic texts get, minimum matches included.
    const offRuns = (await runAll(db, embedder, offTopic, production)).runs;
    const offAnswered = offRuns.map((r) => r.ranked.length);
    const offMean = offAnswered.reduce((a, b) => a + b, 0) / offAnswered.length;
    const offBest = offRuns.map((r) => r.ranked[0]?.score ?? 0);
    console.log(
      `production off-topic results per query (cutoff and minimum matches, ${offAnswered.length} texts): ${offMean.toFixed(2)} (${offAnswered.join(', ')}); best score ${Math.max(...offBest)}, ${offBest.filter((x) => x >= RELEVANT_SCORE).length} texts with a result at ${RELEVANT_SCORE}+`,
    );
    for (const { query, ranked } of offRuns)
      console.log(
        `  ${query.text.padEnd(44)}${String(ranked.length).padStart(3)} results, best ${ranked[0] ? `${ranked[0].score} ${ranked[0].identifier.split(':').pop()}` : '-'}`,
      );
    report.offTopicResults = { mean: offMean, perQuery: offAnswered, bestScore: offBest };

    console.log(`\nproduction scores at the "relevant" line (${RELEVANT_SCORE}), labelled queries:`);
    for (const set of ['registry', 'alexandria'])
      console.log(
        confidenceLine(
          set,
          all.production.filter((r) => r.query.set === set),
        ),
      );
    if (all['plain BM25']) {
      console.log(`\nlong queries (${LONG_QUERY_WORDS}+ words):`);
      for (const set of ['registry', 'alexandria'])
        console.log(
          longQueryLine(
            set,
            all.production.filter((r) => r.query.set === set),
            all['plain BM25'].filter((r) => r.query.set === set),
          ),
        );
    }
    for (const [label, pick] of [
      ['dev', true],
      ['test', false],
    ] as const) {
      console.log(`\ncutoff curve (${label} half; production relevance, whole candidate list)`);
      console.log(
        cutoffCurve(
          uncut.runs.filter((r) => isDev(r.query) === pick),
          off.runs,
        ).join('\n'),
      );
    }

    // Per query, to compare two builds query by query (docs/relevance.md): the rank of its first grade-2 entry.
    const ranksFile = argValue('--ranks');
    if (ranksFile) fs.writeFileSync(ranksFile, rankLines(all.production));

    if (argFlag('--verbose')) {
      console.log('\nproduction misses (no grade-2 entry in the top 10):');
      for (const { query, ranked } of all.production) {
        if (!ranked.slice(0, 10).some((r) => query.relevant[r.identifier] === 2)) {
          console.log(
            `  ${query.id} [${query.kind}] ${query.text}\n     top: ${ranked
              .slice(0, 3)
              .map((r) => r.identifier.split(':').slice(-1)[0])
              .join(', ')}`,
          );
        }
      }
    }
  } finally {
    await handle.close();
  }

  if (!argFlag('--no-10k')) {
    const big = `ard_bench_relevance_10k_${hash}`;
    console.log(`\n10k latency database ${big}${(await databaseExists(big)) ? ' (reused)' : ' (building)'}`);
    await ensureDatabase(big, fillSynthetic, name);
    const h = await connectDatabase({ databaseUrl: databaseUrl(big), dataDir: '' });
    try {
      const count = await sql<{ n: string }>`SELECT count(*) AS n FROM entries`.execute(h.db);
      const queries = loadQueries();
      await timeProductionPath(h.db, uncached, queries.slice(0, 20)); // warm the caches
      const ms = await timeProductionPath(h.db, uncached, queries);
      console.log(
        `production latency (POST /search's path: the search service's search, first page) at ${count.rows[0].n} entries over ${ms.length} queries (query embedding included): p50 ${percentile(ms, 50).toFixed(1)} ms, p95 ${percentile(ms, 95).toFixed(1)} ms`,
      );
      const whole = await timeProductionPath(h.db, uncached, queries, 'whole list');
      console.log(
        `  the whole ranked list with its entries (the search service's rank: referrals): p50 ${percentile(whole, 50).toFixed(1)} ms, p95 ${percentile(whole, 95).toFixed(1)} ms`,
      );
      // What several needs cost: the first page's path (the pipeline + the page's 10 entries) with and without
      // need texts, query by query in turn, so both see the same machine state.
      const withNeeds: number[] = [];
      const oneNeed: number[] = [];
      const single = ablatedStages({ needs: false });
      const firstPage = async (query: Query, stages: typeof single) => {
        const deps = { db: h.db, embedder: uncached, vocabulary: operatorVocabulary, ...PRODUCTION_RANKING };
        return entriesOfPage(h.db, await matchText(deps, query.text, query.filter, stages), 0, 10);
      };
      for (const [i, query] of queries.entries()) {
        // Which goes first alternates: the second run of a text finds its pages in PostgreSQL's cache.
        const timeWithNeeds = async () => withNeeds.push(...(await timeEach([query], (q) => firstPage(q, PRODUCTION_STAGES))));
        const timeOneNeed = async () => oneNeed.push(...(await timeEach([query], (q) => firstPage(q, single))));
        for (const run of i % 2 === 0 ? [timeWithNeeds, timeOneNeed] : [timeOneNeed, timeWithNeeds]) await run();
      }
      const split = queries.filter((q) => needTexts(q.text).length > 0).length;
      console.log(
        `  several needs (${split} of ${queries.length} texts split), the first page, in turn: p50 ${percentile(withNeeds, 50).toFixed(1)} ms, p95 ${percentile(withNeeds, 95).toFixed(1)} ms; every text one need: p50 ${percentile(oneNeed, 50).toFixed(1)} ms, p95 ${percentile(oneNeed, 95).toFixed(1)} ms`,
      );
      // What @matchedTools adds to POST /search (included in its figure above): one statement per first page.
      const firstPageIds = new Map<Query, string[]>();
      for (const query of queries)
        firstPageIds.set(
          query,
          (await firstPage(query, PRODUCTION_STAGES)).map((e) => e.entry.identifier),
        );
      const toolsMs = await timeEach(queries, (query) => matchedTools(h.db, query.text, firstPageIds.get(query)!));
      console.log(
        `  @matchedTools of the first page (one statement, part of POST /search's path): p50 ${percentile(toolsMs, 50).toFixed(1)} ms, p95 ${percentile(toolsMs, 95).toFixed(1)} ms`,
      );
      // The machine's own speed, to read the figures above by: the same embeddings with nothing else running.
      const embeddingMs = await timeEach(queries, (query) => uncached.embedOne(query.text));
      console.log(
        `  the query embedding alone (the query texts as typed, one at a time, PostgreSQL idle): p50 ${percentile(embeddingMs, 50).toFixed(1)} ms, p95 ${percentile(embeddingMs, 95).toFixed(1)} ms`,
      );
      report.latency10k = {
        entries: Number(count.rows[0].n),
        p50: percentile(ms, 50),
        p95: percentile(ms, 95),
        wholeListP50: percentile(whole, 50),
        wholeListP95: percentile(whole, 95),
        embeddingAloneP50: percentile(embeddingMs, 50),
        severalNeedsP50: percentile(withNeeds, 50),
        oneNeedP50: percentile(oneNeed, 50),
      };
    } finally {
      await h.close();
    }
  }
  if (!argFlag('--no-external')) await externalBenchmark(embedder, vectors, report);
  const out = argValue('--json');
  if (out) fs.writeFileSync(out, JSON.stringify(report, null, 2));
  await embedder.close?.();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
