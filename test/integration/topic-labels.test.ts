// Topic labels (docs/relevance.md, relevance6): the tags whose embedding stands out from all live tags'
// for a query mark its topic, and entries holding them rank higher. Pinned against an independent
// computation of the z-scores from the stored tag vectors, and against the ranking without them.
import { sql } from 'kysely';
import { withQueryCache } from '../../src/embedding/embedder';
import { fillTagVectors, tagLabelText } from '../../src/embedding/tag-vectors';
import { UseLiteEmbedder } from '../../src/embedding/use-lite-embedder';
import { normaliseFilter } from '../../src/search/query-filter';
import {
  baselineCosine,
  fuse,
  matchText,
  prepareQuery,
  RELEVANCE_CUTOFF,
  semanticAgreement,
  everyLiveTagLabels,
  sampledTopicLabels,
  TOPIC_MAX_LABELS,
  TOPIC_MIN_LABELS,
  TOPIC_POPULATION,
  TOPIC_Z_FLOOR,
  topicBoost,
  topicLabels,
  type QueryEmbedder,
} from '../../src/search/relevance';
import { ablatedStages } from '../../src/search/relevance/ablations';
import { useDemoCorpusDatabase } from '../helpers/demo-database';

const demo = useDemoCorpusDatabase();
const model = new UseLiteEmbedder();
const embedder: QueryEmbedder = withQueryCache(model);
const none = normaliseFilter(undefined);
const OPENWEATHER = 'urn:air:github.com:mschneider82:mcp-openweather';

afterAll(async () => {
  await model.close();
});

async function liveTags(): Promise<string[]> {
  const rows = await sql<{ value: string }>`SELECT value FROM facet_value_counts WHERE field = 'tags' AND entries > 0`.execute(demo.db);
  return rows.rows.map((r) => r.value);
}

describe('tag vectors (migration 0010)', () => {
  it('ingestion embedded every live tag, with the embedding of its words', async () => {
    const tags = await liveTags();
    expect(tags.length).toBeGreaterThan(TOPIC_MIN_LABELS);
    const stored = await sql<{
      tag: string;
      embedding: string;
    }>`SELECT tag, embedding::text FROM tag_vectors WHERE model = ${model.id}`.execute(demo.db);
    // Rows are never deleted: a tag no live entry holds any more may keep its vector (topicLabels skips it).
    const embedded = new Set(stored.rows.map((r) => r.tag));
    expect(tags.filter((t) => !embedded.has(t))).toEqual([]);
    const weather = stored.rows.find((r) => r.tag === 'weather-api');
    const [expected] = await model.embed([tagLabelText('weather-api')]);
    const vector = JSON.parse(weather!.embedding) as number[];
    vector.forEach((x, i) => expect(x).toBeCloseTo(expected[i], 5));
  });

  it('fillTagVectors adds the live tags that have no vector (a database from before 0010), and only those', async () => {
    await sql`DELETE FROM tag_vectors WHERE model = ${model.id} AND tag IN ('weather-api', 'flights', 'airbnb')`.execute(demo.db);
    expect(await fillTagVectors(demo.db, model)).toBe(3);
    expect(await fillTagVectors(demo.db, model)).toBe(0);
    expect(await fillTagVectors(demo.db, model, ['weather-api', 'a-tag-nobody-holds-yet'])).toBe(1);
    const rows = await sql<{
      n: string;
    }>`SELECT count(*) AS n FROM tag_vectors WHERE model = ${model.id} AND tag IN ('weather-api', 'flights', 'airbnb')`.execute(demo.db);
    expect(Number(rows.rows[0].n)).toBe(3);
  });
});

describe('topic labels', () => {
  it('are the live tags whose cosine with the query stands TOPIC_Z_FLOOR standard deviations above the mean (checked independently)', async () => {
    const q = await prepareQuery(demo.db, embedder, 'will I need an umbrella in Oslo tomorrow');
    const labels = await topicLabels(demo.db, q);
    // Independently: every live tag's cosine in JS, then the z-scores.
    const live = new Set(await liveTags());
    const stored = await sql<{
      tag: string;
      embedding: string;
    }>`SELECT tag, embedding::text FROM tag_vectors WHERE model = ${model.id}`.execute(demo.db);
    const cosines = stored.rows
      .filter((r) => live.has(r.tag))
      .map((r) => {
        const v = JSON.parse(r.embedding) as number[];
        const dot = v.reduce((sum, x, i) => sum + x * q.vector[i], 0);
        return { tag: r.tag, cosine: dot / Math.hypot(...v) / Math.hypot(...q.vector) };
      });
    const mean = cosines.reduce((s, c) => s + c.cosine, 0) / cosines.length;
    const sd = Math.sqrt(cosines.reduce((s, c) => s + (c.cosine - mean) ** 2, 0) / cosines.length);
    const expected = cosines
      .map((c) => ({ tag: c.tag, z: (c.cosine - mean) / sd }))
      .filter((c) => c.z >= TOPIC_Z_FLOOR)
      .sort((a, b) => b.z - a.z)
      .slice(0, TOPIC_MAX_LABELS);
    expect(expected.map((e) => e.tag)).toContain('weather-api');
    expect([...labels.keys()]).toEqual(expected.map((e) => e.tag));
    for (const e of expected) expect(labels.get(e.tag)).toBeCloseTo(e.z, 4);
  });

  it('lift the entries that hold them: relevance = noisy OR of the topic boost and the other signals', async () => {
    const text = 'will I need an umbrella in Oslo tomorrow';
    const q = await prepareQuery(demo.db, embedder, text);
    const labels = await topicLabels(demo.db, q);
    const withTopics = await matchText({ db: demo.db, embedder }, q.text, none);
    const without = await matchText({ db: demo.db, embedder }, q.text, none, ablatedStages({ topics: false }));
    const weather = withTopics.find((m) => m.identifier === OPENWEATHER)!;
    const plain = without.find((m) => m.identifier === OPENWEATHER)!;
    expect(weather.topic).toBeGreaterThan(0);
    const tags = await sql<{ tags: string[] }>`SELECT tags FROM entries WHERE identifier = ${OPENWEATHER}`.execute(demo.db);
    expect(weather.topic).toBeCloseTo(topicBoost(tags.rows[0].tags, labels), 12);
    expect(weather.relevance).toBeCloseTo(fuse(weather.topic, plain.relevance, 1), 12);
    expect(weather.score).toBeGreaterThan(plain.score + 10);
    // An entry without any of the labels keeps its relevance.
    for (const m of withTopics.filter((x) => x.topic === 0)) {
      expect(m.relevance).toBeCloseTo(without.find((x) => x.identifier === m.identifier)!.relevance, 12);
    }
  });

  it('never lift an entry over the cutoff: the matched set at the cutoff is the same with and without them', async () => {
    for (const text of [
      'book a cheap seat to Tokyo in March',
      'banana bread recipe with walnuts',
      'will I need an umbrella in Oslo tomorrow',
    ]) {
      const q = await prepareQuery(demo.db, embedder, text);
      const atCutoff = async (topics: boolean) =>
        (await matchText({ db: demo.db, embedder }, q.text, none, ablatedStages({ minimumMatches: 0, topics })))
          .map((m) => m.identifier)
          .sort();
      expect(await atCutoff(true)).toEqual(await atCutoff(false));
    }
    const kiwi = 'urn:air:github.com:alpic-ai:kiwi-mcp-server-public';
    const q = await prepareQuery(demo.db, embedder, 'book a cheap seat to Tokyo in March');
    const lifted = (await matchText({ db: demo.db, embedder }, q.text, none)).find((m) => m.identifier === kiwi)!;
    const plain = (await matchText({ db: demo.db, embedder }, q.text, none, ablatedStages({ topics: false }))).find(
      (m) => m.identifier === kiwi,
    )!;
    expect(lifted.topic).toBeGreaterThan(0);
    expect(lifted.score).toBeGreaterThan(plain.score + 5);
  });

  it('under the cutoff a label counts by semantic agreement ("banana bread" stands out for "fork", which does not lift GitHub)', async () => {
    const text = 'banana bread recipe with walnuts';
    const q = await prepareQuery(demo.db, embedder, text);
    const labels = await topicLabels(demo.db, q);
    expect(labels.has('fork')).toBe(true);
    // Every candidate, none cut: the baseline is the median of the best SEMANTIC_BASELINE_DEPTH cosines.
    const all = await matchText({ db: demo.db, embedder }, q.text, none, ablatedStages({ cutoff: 0, minimumMatches: 0 }));
    const baseline = baselineCosine(all.map((m) => m.cosine));
    const plain = new Map(
      (await matchText({ db: demo.db, embedder }, q.text, none, ablatedStages({ cutoff: 0, minimumMatches: 0, topics: false }))).map(
        (m) => [m.identifier, m.relevance],
      ),
    );
    const forked = await sql<{
      identifier: string;
      tags: string[];
    }>`SELECT identifier, tags FROM entries WHERE 'fork' = ANY(tags) AND deleted_at IS NULL`.execute(demo.db);
    const candidates = forked.rows.filter((r) => all.some((m) => m.identifier === r.identifier));
    expect(candidates.length).toBeGreaterThan(0);
    for (const { identifier, tags } of candidates) {
      const m = all.find((x) => x.identifier === identifier)!;
      expect(plain.get(identifier)!).toBeLessThan(RELEVANCE_CUTOFF);
      expect(m.topic).toBeCloseTo(topicBoost(tags, labels) * semanticAgreement(m.cosine, baseline), 12);
      expect(m.topic).toBeLessThan(topicBoost(tags, labels));
    }
    // So none of them is among the weak results the query gets.
    const results = await matchText({ db: demo.db, embedder }, q.text, none);
    expect(results.filter((m) => candidates.some((c) => c.identifier === m.identifier))).toEqual([]);
  });

  it('need a population of tags to stand out from: none with fewer than TOPIC_MIN_LABELS live tags', async () => {
    const q = await prepareQuery(demo.db, embedder, 'will I need an umbrella in Oslo tomorrow');
    await demo.db
      .transaction()
      .execute(async (trx) => {
        // Tombstone all but a few entries (the facet counts follow, inside this transaction), then roll back.
        await sql`UPDATE entries SET deleted_at = now() WHERE deleted_at IS NULL AND identifier <> ${OPENWEATHER}`.execute(trx);
        const tags = await sql<{ n: string }>`SELECT count(*) AS n FROM facet_value_counts WHERE field = 'tags' AND entries > 0`.execute(
          trx,
        );
        expect(Number(tags.rows[0].n)).toBeLessThan(TOPIC_MIN_LABELS);
        expect((await topicLabels(trx, q)).size).toBe(0);
        throw new Error('rolled back');
      })
      .catch((error: Error) => expect(error.message).toBe('rolled back'));
    expect((await topicLabels(demo.db, q)).size).toBeGreaterThan(0);
  });

  it('beyond TOPIC_POPULATION live tags are read from a sample and an HNSW scan, close to reading them all (migration 0026)', async () => {
    const q = await prepareQuery(demo.db, embedder, 'will I need an umbrella in Oslo tomorrow');
    const exactBefore = await everyLiveTagLabels(demo.db, q);
    expect(await topicLabels(demo.db, q)).toEqual(exactBefore);
    const indexes = await sql<{
      indexname: string;
    }>`SELECT indexname FROM pg_indexes WHERE tablename IN ('tag_vectors', 'facet_value_counts')`.execute(demo.db);
    expect(indexes.rows.map((r) => r.indexname)).toEqual(
      expect.arrayContaining(['tag_vectors_use_lite_512_hnsw', 'facet_value_counts_live_tags_sample_idx']),
    );
    await demo.db
      .transaction()
      .execute(async (trx) => {
        // More live tags than TOPIC_POPULATION: a copy of each live tag's vector under another name ("zz-copy-" sorts
        // after every tag of the corpus, so a copy never wins a tie), held by one entry as far as the counts say.
        const live = (await liveTags()).length;
        const copies = TOPIC_POPULATION + 1 - live + 50;
        await sql`INSERT INTO tag_vectors (model, tag, embedding)
          SELECT model, 'zz-copy-' || tag, embedding FROM tag_vectors t
          WHERE model = ${model.id} AND EXISTS (SELECT 1 FROM facet_value_counts f WHERE f.field = 'tags' AND f.value = t.tag AND f.entries > 0)
          ORDER BY tag LIMIT ${copies}`.execute(trx);
        await sql`INSERT INTO facet_value_counts (field, value, entries)
          SELECT 'tags', tag, 1 FROM tag_vectors WHERE model = ${model.id} AND tag LIKE 'zz-copy-%'`.execute(trx);
        const exact = await everyLiveTagLabels(trx, q);
        const sampled = await topicLabels(trx, q);
        // The production stage took the sampled statement (prepared on this transaction's connection).
        const prepared = await sql<{ statement: string }>`SELECT statement FROM pg_prepared_statements`.execute(trx);
        expect(prepared.rows.some((r) => r.statement.includes('ORDER BY md5(f.value)'))).toBe(true);
        expect(sampled).toEqual(await sampledTopicLabels(trx, q));
        expect([...exact.keys()]).toContain('weather-api');
        expect([...sampled.keys()]).toContain('weather-api');
        expect([...sampled.keys()][0]).toBe([...exact.keys()][0]);
        const shared = [...exact.keys()].filter((tag) => sampled.has(tag));
        expect(shared.length).toBeGreaterThanOrEqual(Math.ceil(0.8 * exact.size));
        for (const tag of shared) expect(Math.abs(sampled.get(tag)! - exact.get(tag)!)).toBeLessThan(0.5);
        throw new Error('rolled back');
      })
      .catch((error: Error) => expect(error.message).toBe('rolled back'));
  });

  it('an off-topic query gets no label that lifts anything over the cutoff', async () => {
    for (const text of ['purple elephant dancing ballet', 'xqzvbl frobnicate wug']) {
      expect(await matchText({ db: demo.db, embedder }, text, none, ablatedStages({ minimumMatches: 0 }))).toEqual([]);
    }
  });
});
