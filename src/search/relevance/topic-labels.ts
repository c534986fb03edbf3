// Topic labels (docs/relevance.md "Topic labels"). The query embedding is compared with the embedding of every
// tag a live entry holds (tag_vectors, migration 0010); a tag whose cosine stands TOPIC_Z_FLOOR standard
// deviations above the mean over all tags marks the query's topic ("is it going to rain in Lisbon" ->
// weather-api, forecasting; "somewhere to stay in Barcelona" -> airbnb). An entry holding such a tag gains
// up to TOPIC_WEIGHT, in full from TOPIC_Z_FULL, fused like a third signal (noisy OR, scoring.ts). Relative to
// the other tags, not absolute: USE-lite gives every short label a cosine of 0.3-0.6 with any sentence, so
// only a label that stands out says something. Beyond TOPIC_POPULATION live tags the mean and spread come from a
// sample and the candidates from an HNSW scan (migration 0026, decision 0047).
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { PREPARED_STATEMENT, withLocalSettings } from '../../db/prepared-statements';
import type { Database } from '../../db/schema';
import type { PreparedQuery } from './query-understanding';
import { embeddingColumnSql, HNSW_EF_SEARCH, vectorSql } from './retrieval';

/** The most a topic label lifts an entry (before fusion). Fitted on the dev half of bench/relevance (0.2-0.5 all fit). */
export const TOPIC_WEIGHT = 0.3;
/** A tag is a label from this z-score up; below, USE-lite's noise between short labels (fitted: 2.5-3.5). */
export const TOPIC_Z_FLOOR = 3;
/** A label lifts by the whole TOPIC_WEIGHT from this z-score up (fitted: 4-5). */
export const TOPIC_Z_FULL = 5;
/** Fewer live tags than this: no population to stand out from, no topic labels. */
export const TOPIC_MIN_LABELS = 50;
/** The most topic labels one query keeps (the best by z-score). */
export const TOPIC_MAX_LABELS = 20;
/**
 * Live tags beyond which a query's topic labels come from a sample (sampledTopicLabels): the mean and spread of its
 * cosines over this many of them, its candidate labels from the TOPIC_MAX_LABELS nearest live tags (HNSW). At or under
 * it every live tag serves for both (everyLiveTagLabels), as the z-score's definition says. A sample of 1,000 puts
 * the mean within ~0.03 standard deviations and the spread within ~2 % of their value over every tag: a label's
 * z-score moves by ~0.1 (0.047 at the median over 50,866 tags: decision 0047).
 */
export const TOPIC_POPULATION = 1000;
/** How long a process keeps a database's count of live tags (which statement runs) before reading it again. */
export const LIVE_TAG_COUNT_TTL_MS = 60_000;

/** The query's topic labels (tag -> z-score); what the ranking pipeline's topic stage returns. */
export type TopicLabelsStage = (db: Kysely<Database>, q: PreparedQuery) => Promise<Map<string, number>>;

type VectorQuery = Pick<PreparedQuery, 'model' | 'vector' | 'dimensions'>;

/**
 * The query's topic labels: live tags (some live entry holds them) whose embedding's cosine with the query
 * stands at least TOPIC_Z_FLOOR standard deviations above the mean over the live tags, with that z-score;
 * at most TOPIC_MAX_LABELS, none with fewer than TOPIC_MIN_LABELS live tags. Up to TOPIC_POPULATION live tags
 * (~800 for the demo corpus) one read of them all; beyond, a sample and an HNSW scan, so the cost stays flat as tags
 * grow with the entries: p50 2.7 ms at 866 live tags; at 50,866, 98.2 ms read whole and 13.8 ms sampled (npm run
 * bench:topic-labels).
 */
export const topicLabels: TopicLabelsStage = async (db, q) =>
  (await liveTagsBeyond(db, TOPIC_POPULATION)) ? sampledTopicLabels(db, q) : everyLiveTagLabels(db, q);

/** A live tag: some live entry holds it (facet_value_counts as `f`). */
const LIVE_TAG = sql`f.field = 'tags' AND f.entries > 0`;

/** The cosine of the query with the tag vector `t`. */
function tagCosine(q: VectorQuery): RawBuilder<unknown> {
  return sql`1 - (${embeddingColumnSql(q, 't')} <=> ${vectorSql(q)})`;
}

/** The labels from every live tag's cosine: one read of them all. */
export function everyLiveTagLabels(db: Kysely<Database>, q: VectorQuery): Promise<Map<string, number>> {
  return labelsOf(
    db,
    sql`
    WITH c AS MATERIALIZED (
      SELECT t.tag, ${tagCosine(q)} AS cosine
      FROM tag_vectors t JOIN facet_value_counts f ON f.value = t.tag AND ${LIVE_TAG}
      WHERE t.model = ${q.model}),
    s AS (SELECT avg(cosine) AS mean, stddev_pop(cosine) AS sd, count(*) AS n FROM c)`,
  );
}

/**
 * The labels from a sample: the mean and spread over the first `sample` live tags by md5 of the tag (an order
 * that knows nothing of what a tag means; migration 0026's index), the candidates from the TOPIC_MAX_LABELS live tags
 * nearest the query (the model's HNSW index of tag vectors, migration 0026 or a model switch).
 */
export function sampledTopicLabels(db: Kysely<Database>, q: VectorQuery, sample = TOPIC_POPULATION): Promise<Map<string, number>> {
  const cosine = tagCosine(q);
  // Literals, so the generic plan of the prepared statement can use the model's partial HNSW index.
  const model = sql.lit(q.model);
  return withLocalSettings(db, { 'hnsw.ef_search': String(HNSW_EF_SEARCH) }, (trx) =>
    labelsOf(
      trx,
      sql`
    WITH sample AS MATERIALIZED (
      SELECT ${cosine} AS cosine
      FROM (SELECT f.value FROM facet_value_counts f WHERE ${LIVE_TAG} ORDER BY md5(f.value) LIMIT ${sql.lit(sample)}) f
      JOIN tag_vectors t ON t.model = ${model} AND t.tag = f.value),
    s AS (SELECT avg(cosine) AS mean, stddev_pop(cosine) AS sd, count(*) AS n FROM sample),
    c AS (
      SELECT t.tag, ${cosine} AS cosine
      FROM tag_vectors t JOIN facet_value_counts f ON f.value = t.tag AND ${LIVE_TAG}
      WHERE t.model = ${model}
      ORDER BY ${embeddingColumnSql(q, 't')} <=> ${vectorSql(q)} LIMIT ${sql.lit(TOPIC_MAX_LABELS)})`,
    ),
  );
}

/** The candidates of `ctes`' `c` (tag, cosine) at TOPIC_Z_FLOOR or more over its `s` (mean, sd, n), best first. */
async function labelsOf(db: Kysely<Database>, ctes: RawBuilder<unknown>): Promise<Map<string, number>> {
  const result = await sql<{ tag: string; z: number }>`${PREPARED_STATEMENT}${ctes}
    SELECT c.tag, (c.cosine - s.mean) / s.sd AS z FROM c CROSS JOIN s
    WHERE s.n >= ${TOPIC_MIN_LABELS} AND s.sd > 0 AND c.cosine >= s.mean + ${TOPIC_Z_FLOOR}::float8 * s.sd
    ORDER BY z DESC, c.tag LIMIT ${TOPIC_MAX_LABELS}`.execute(db);
  return new Map(result.rows.map((r) => [r.tag, Number(r.z)]));
}

/** A database's count of live tags as this process last read it (LIVE_TAG_COUNT_TTL_MS), per database handle. */
const liveTagCounts = new WeakMap<Kysely<Database>, { at: number; count: Promise<number> }>();

/** Whether the database holds more than `limit` live tags (counting no further than limit + 1). */
async function liveTagsBeyond(db: Kysely<Database>, limit: number): Promise<boolean> {
  const known = liveTagCounts.get(db);
  if (known && Date.now() - known.at < LIVE_TAG_COUNT_TTL_MS) return (await known.count) > limit;
  const count = sql<{ n: string }>`
    SELECT count(*) AS n FROM (SELECT 1 FROM facet_value_counts f WHERE ${LIVE_TAG} LIMIT ${limit + 1}) l`
    .execute(db)
    .then((r) => Number(r.rows[0].n));
  const entry = { at: Date.now(), count };
  liveTagCounts.set(db, entry);
  // A failed count is read again by the next query, not kept for the TTL.
  count.catch(() => liveTagCounts.get(db) === entry && liveTagCounts.delete(db));
  return (await count) > limit;
}

/** What an entry with these tags gains from the query's topic labels: TOPIC_WEIGHT x its best label's share of the z range. */
export function topicBoost(tags: readonly string[], topics: ReadonlyMap<string, number>): number {
  let best = 0;
  for (const tag of tags) {
    const z = topics.get(tag);
    if (z !== undefined) best = Math.max(best, Math.min(1, (z - TOPIC_Z_FLOOR) / (TOPIC_Z_FULL - TOPIC_Z_FLOOR)));
  }
  return TOPIC_WEIGHT * best;
}
