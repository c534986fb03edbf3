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
import { bundledModel, labelledQueries, loadAverage, percentile, printTable } from './bench-util';

const TEMPLATE = 'ard_bench_search_10000';
const ADDED_TAGS = Number(process.env.BENCH_TAGS ?? 50_000);

async function databaseExists(name: string): Promise<boolean> {
  return ((await adminQuery('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount ?? 0) > 0;
}

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
    const live = (
      await sql<{ value: string }>`SELECT value FROM facet_value_counts WHERE field = 'tags' AND entries > 0`.execute(handle.db)
    ).rows;
    const known = new Set(live.map((r) => r.value));
    const words = [...new Set(live.flatMap((r) => tagLabelText(r.value).split(' ')).filter((w) => /^[a-z]{3,}$/.test(w)))].sort();
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

async function liveTagsOf(name: string): Promise<Set<string>> {
  const handle = await connectDatabase({ databaseUrl: databaseUrl(name), dataDir: '' });
  try {
    const rows = await sql<{ value: string }>`SELECT value FROM facet_value_counts WHERE field = 'tags' AND entries > 0`.execute(handle.db);
    return new Set(rows.rows.map((r) => r.value));
  } finally {
    await handle.close();
  }
}

async function liveTagCount(db: Kysely<Database>): Promise<number> {
  const rows = await sql<{ n: string }>`SELECT count(*) AS n FROM facet_value_counts WHERE field = 'tags' AND entries > 0`.execute(db);
  return Number(rows.rows[0].n);
}

type Labels = Map<string, number>;

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

async function main(): Promise<void> {
  const sample = arg('--sample');
  if (sample) return agreementOnly(arg('--database') ?? TEMPLATE, Number(sample));
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
  const templateTags = await liveTagsOf(TEMPLATE);
  for (const name of [TEMPLATE, many]) {
    const handle = await connectDatabase({ databaseUrl: databaseUrl(name), dataDir: '' });
    try {
      const stages = {
        production: (q: Parameters<typeof topicLabels>[1]) => topicLabels(handle.db, q),
        'every live tag': (q: Parameters<typeof topicLabels>[1]) => everyLiveTagLabels(handle.db, q),
        sampled: (q: Parameters<typeof topicLabels>[1]) => sampledTopicLabels(handle.db, q),
      };
      const names = Object.keys(stages) as Array<keyof typeof stages>;
      const ms = Object.fromEntries(names.map((n) => [n, [] as number[]]));
      let sameFirst = 0;
      let ownShared = 0;
      let ownEvery = 0;
      const dz: number[] = [];
      for (const [i, vector] of vectors.entries()) {
        const q = { model: embedder.id, dimensions: embedder.dimensions, vector } as Parameters<typeof topicLabels>[1];
        const out: Partial<Record<keyof typeof stages, Labels>> = {};
        // Which statement goes first rotates from query to query.
        for (let k = 0; k < names.length; k++) {
          const stage = names[(i + k) % names.length];
          const started = performance.now();
          out[stage] = await stages[stage](q);
          ms[stage].push(performance.now() - started);
        }
        const every = out['every live tag']!;
        const sampled = out.sampled!;
        if ([...every.keys()][0] === [...sampled.keys()][0]) sameFirst++;
        for (const [tag, z] of every) {
          if (!templateTags.has(tag)) continue;
          ownEvery++;
          if (sampled.has(tag)) {
            ownShared++;
            dz.push(Math.abs(sampled.get(tag)! - z));
          }
        }
      }
      const tags = await liveTagCount(handle.db);
      for (const n of names) rows.push([name, String(tags), n, percentile(ms[n], 50).toFixed(1), percentile(ms[n], 95).toFixed(1)]);
      agreement.push([
        name,
        `${sameFirst} / ${vectors.length}`,
        `${ownShared} / ${ownEvery}`,
        dz.length ? `${percentile(dz, 50).toFixed(3)} / ${percentile(dz, 95).toFixed(3)}` : '-',
      ]);
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
  let sameFirst = 0;
  let kept = 0;
  let labels = 0;
  let extra = 0;
  const dz: number[] = [];
  try {
    for (const vector of vectors) {
      const q = { model: embedder.id, dimensions: embedder.dimensions, vector } as Parameters<typeof topicLabels>[1];
      const every = await everyLiveTagLabels(handle.db, q);
      const sampled = await sampledTopicLabels(handle.db, q, sample);
      if ([...every.keys()][0] === [...sampled.keys()][0]) sameFirst++;
      for (const [tag, z] of every) {
        labels++;
        if (!sampled.has(tag)) continue;
        kept++;
        dz.push(Math.abs(sampled.get(tag)! - z));
      }
      extra += [...sampled.keys()].filter((tag) => !every.has(tag)).length;
    }
    printTable(`a sample of ${sample} of ${await liveTagCount(handle.db)} live tags in ${name}, ${vectors.length} texts`, [
      ['same first label', 'labels kept', 'labels added', '|z difference| p50 / p95'],
      [
        `${sameFirst} / ${vectors.length}`,
        `${kept} / ${labels}`,
        String(extra),
        `${percentile(dz, 50).toFixed(3)} / ${percentile(dz, 95).toFixed(3)}`,
      ],
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
