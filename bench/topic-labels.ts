// Topic labels as tags grow with the entries (migration 0026, decision 0047): the
// production stage, the labels read from every live tag (its statement before 0026) and the sampled labels, side by
// side over the same query vectors, on the search bench's database and on a copy of it holding BENCH_TAGS (50,000)
// more live tags: two words of its tags joined ("weather-calendar"), each embedded by the model as ingestion embeds a
// tag and counted as held by one entry. Prints each statement's p50 / p95 and how far the sampled labels stand from
// those of every live tag: the same first label, the template's own tags among both, and the z-scores of the labels
// both hold.
//   npx tsx bench/topic-labels.ts            (needs ard_bench_search_10000: `npm run bench -- search` builds it)
//   BENCH_TAGS=20000 npx tsx bench/topic-labels.ts
//   npx tsx bench/topic-labels.ts --database <name> --sample 300
//     only the agreement, on a database as it is, of a smaller sample (the demo corpus has 769 live tags, fewer than
//     TOPIC_POPULATION: its bench database is ard_bench_relevance_<hash>, which `npm run bench:relevance` prints)
import { sql, type Kysely } from 'kysely';
import { connectDatabase } from '../src/db/connect';
import { migrateToLatest } from '../src/db/migrate';
import type { Database } from '../src/db/schema';
import { everyLiveTagLabels, sampledTopicLabels, topicLabels } from '../src/search/relevance';
import type { Embedder } from '../src/embedding/embedder';
import { tagLabelText } from '../src/embedding/tag-vectors';
import { toVectorLiteral } from '../src/db/vector-literal';
import { adminQuery, databaseUrl } from '../test/helpers/test-database';
import { argValue, bundledModel, databaseExists, labelledQueries, loadAverage, percentile, printTable } from './bench-util';

const TEMPLATE = 'ard_bench_search_10000';
const ADDED_TAGS = Number(process.env.BENCH_TAGS ?? 50_000);

/**
 * TEMPLATE with ADDED_TAGS more live tags, built once under a temporary name and renamed when complete: two words of
 * the live tags joined ("weather-calendar"), drawn in a fixed pseudo-random order, each embedded by the model as
 * ingestion embeds a tag, so their cosines with a query spread as real tags' do.
 */
async function ensureManyTags(name: string, embedder: Embedder): Promise<void> {
  if (await databaseExists(name)) return;
  const building = `${name}_building`;
  await adminQuery(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`);
  await adminQuery(`CREATE DATABASE ${building} TEMPLATE ${TEMPLATE}`);
  // The inserts maintain the tag vectors' HNSW index: past the pool's statement timeout.
  const handle = await connectDatabase({ databaseUrl: databaseUrl(building), dataDir: '', statementTimeoutMs: 0 });
  try {
    await migrateToLatest(handle.db);
    const known = await liveTags(handle.db);
    const words = [...new Set([...known].flatMap((tag) => tagLabelText(tag).split(' ')).filter((w) => /^[a-z]{3,}$/.test(w)))].sort();
    const tags: string[] = [];
    let seed = 1;
    const next = () => (seed = (seed * 48271) % 2147483647);
    while (tags.length < ADDED_TAGS) {
      const tag = `${words[next() % words.length]}-${words[next() % words.length]}`;
      if (!known.has(tag)) {
        known.add(tag);
        tags.push(tag);
      }
    }
    for (let i = 0; i < tags.length; i += 500) {
      const batch = tags.slice(i, i + 500);
      const vectors = await embedder.embed(batch.map(tagLabelText));
      await handle.db
        .insertInto('tag_vectors')
        .values(batch.map((tag, j) => ({ model: embedder.id, tag, embedding: toVectorLiteral(vectors[j]) })))
        .execute();
      await sql`INSERT INTO facet_value_counts (field, value, entries) SELECT 'tags', tag, 1 FROM unnest(${batch}::text[]) AS t(tag)`.execute(
        handle.db,
      );
      if ((i / 500) % 20 === 0) process.stderr.write(`  embedded ${i + batch.length} / ${tags.length} tags\n`);
    }
    await sql`VACUUM ANALYZE tag_vectors`.execute(handle.db);
    await sql`VACUUM ANALYZE facet_value_counts`.execute(handle.db);
  } finally {
    await handle.close();
  }
  await adminQuery(`ALTER DATABASE ${building} RENAME TO ${name}`);
}

/** The live tags (some live entry holds them). */
async function liveTags(db: Kysely<Database>): Promise<Set<string>> {
  const rows = await sql<{ value: string }>`SELECT value FROM facet_value_counts WHERE field = 'tags' AND entries > 0`.execute(db);
  return new Set(rows.rows.map((r) => r.value));
}

type Labels = Map<string, number>;
type VectorQuery = Parameters<typeof topicLabels>[1];

/** How far sampled labels stand from every live tag's, over many queries; `counts` picks the tags that count. */
class Agreement {
  sameFirst = 0;
  queries = 0;
  labels = 0;
  kept = 0;
  added = 0;
  readonly dz: number[] = [];
  constructor(private readonly counts: (tag: string) => boolean = () => true) {}

  add(every: Labels, sampled: Labels): void {
    this.queries++;
    if ([...every.keys()][0] === [...sampled.keys()][0]) this.sameFirst++;
    for (const [tag, z] of every) {
      if (!this.counts(tag)) continue;
      this.labels++;
      if (!sampled.has(tag)) continue;
      this.kept++;
      this.dz.push(Math.abs(sampled.get(tag)! - z));
    }
    this.added += [...sampled.keys()].filter((tag) => this.counts(tag) && !every.has(tag)).length;
  }

  zDifference(): string {
    return this.dz.length ? `${percentile(this.dz, 50).toFixed(3)} / ${percentile(this.dz, 95).toFixed(3)}` : '-';
  }
}

async function main(): Promise<void> {
  const sample = argValue('--sample');
  if (sample) return agreementOnly(argValue('--database') ?? TEMPLATE, Number(sample));
  if (!(await databaseExists(TEMPLATE))) throw new Error(`${TEMPLATE} is missing: npm run bench -- search builds it`);
  const many = `ard_bench_topic_labels_${ADDED_TAGS}`;
  const { embedder } = await bundledModel();
  await ensureManyTags(many, embedder);
  const texts = labelledQueries()
    .map((q) => q.text)
    .slice(0, 200);
  const vectors = await embedder.embed(texts);
  const loadAtStart = loadAverage();
  const rows: string[][] = [];
  const agreement: string[][] = [];
  // The template's own tags, read on the first database (the template), are the ones the agreement counts.
  let templateTags = new Set<string>();
  for (const name of [TEMPLATE, many]) {
    const handle = await connectDatabase({ databaseUrl: databaseUrl(name), dataDir: '' });
    try {
      const live = await liveTags(handle.db);
      if (name === TEMPLATE) templateTags = live;
      const stages = {
        production: (q: VectorQuery) => topicLabels(handle.db, q),
        'every live tag': (q: VectorQuery) => everyLiveTagLabels(handle.db, q),
        sampled: (q: VectorQuery) => sampledTopicLabels(handle.db, q),
      };
      const names = Object.keys(stages) as Array<keyof typeof stages>;
      const ms = Object.fromEntries(names.map((n) => [n, [] as number[]]));
      const own = templateTags;
      const tally = new Agreement((tag) => own.has(tag));
      for (const [i, vector] of vectors.entries()) {
        const q: VectorQuery = { model: embedder.id, dimensions: embedder.dimensions, vector } as VectorQuery;
        const out: Partial<Record<keyof typeof stages, Labels>> = {};
        // Which statement goes first rotates from query to query.
        for (let k = 0; k < names.length; k++) {
          const stage = names[(i + k) % names.length];
          const started = performance.now();
          out[stage] = await stages[stage](q);
          ms[stage].push(performance.now() - started);
        }
        tally.add(out['every live tag']!, out.sampled!);
      }
      for (const n of names) rows.push([name, String(live.size), n, percentile(ms[n], 50).toFixed(1), percentile(ms[n], 95).toFixed(1)]);
      agreement.push([name, `${tally.sameFirst} / ${tally.queries}`, `${tally.kept} / ${tally.labels}`, tally.zDifference()]);
    } finally {
      await handle.close();
    }
  }
  await embedder.close();
  printTable(`topic labels, ${vectors.length} query vectors (ms), load average ${loadAtStart} → ${loadAverage()}`, [
    ['database', 'live tags', 'statement', 'p50', 'p95'],
    ...rows,
  ]);
  printTable("sampled labels against every live tag's", [
    ['database', 'same first label', "corpus's own labels kept", '|z difference| p50 / p95'],
    ...agreement,
  ]);
}

/** The sampled labels (a sample of `sample` live tags) against every live tag's, over the labelled texts. */
async function agreementOnly(name: string, sample: number): Promise<void> {
  const { embedder } = await bundledModel();
  const vectors = await embedder.embed(labelledQueries().map((q) => q.text));
  const handle = await connectDatabase({ databaseUrl: databaseUrl(name), dataDir: '' });
  const tally = new Agreement();
  try {
    for (const vector of vectors) {
      const q = { model: embedder.id, dimensions: embedder.dimensions, vector } as VectorQuery;
      tally.add(await everyLiveTagLabels(handle.db, q), await sampledTopicLabels(handle.db, q, sample));
    }
    printTable(`a sample of ${sample} of ${(await liveTags(handle.db)).size} live tags in ${name}, ${vectors.length} texts`, [
      ['same first label', 'labels kept', 'labels added', '|z difference| p50 / p95'],
      [`${tally.sameFirst} / ${tally.queries}`, `${tally.kept} / ${tally.labels}`, String(tally.added), tally.zDifference()],
    ]);
  } finally {
    await handle.close();
    await embedder.close();
  }
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exitCode = 1;
});
