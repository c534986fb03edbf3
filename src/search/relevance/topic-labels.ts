// Topic labels (docs/relevance.md "Topic labels"). The query embedding is compared with the embedding of every
// tag a live entry holds (tag_vectors, migration 0010); a tag whose cosine stands TOPIC_Z_FLOOR standard
// deviations above the mean over all tags marks the query's topic ("is it going to rain in Lisbon" ->
// weather-api, forecasting; "somewhere to stay in Barcelona" -> airbnb). An entry holding such a tag gains
// up to TOPIC_WEIGHT, in full from TOPIC_Z_FULL, fused like a third signal (noisy OR, scoring.ts). Relative to
// the other tags, not absolute: USE-lite gives every short label a cosine of 0.3-0.6 with any sentence, so
// only a label that stands out says something.
import { sql, type Kysely } from 'kysely';
import { PREPARED_STATEMENT } from '../../db/prepared-statements';
import type { Database } from '../../db/schema';
import type { PreparedQuery } from './query-understanding';
import { embeddingColumnSql, vectorSql } from './retrieval';

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

/** The query's topic labels (tag -> z-score); what the ranking pipeline's topic stage returns. */
export type TopicLabelsStage = (db: Kysely<Database>, q: PreparedQuery) => Promise<Map<string, number>>;

/**
 * The query's topic labels: live tags (some live entry holds them) whose embedding's cosine with the query
 * stands at least TOPIC_Z_FLOOR standard deviations above the mean over all live tags, with that z-score;
 * at most TOPIC_MAX_LABELS, none with fewer than TOPIC_MIN_LABELS live tags. One sequential read of the
 * tag vectors of the query's model (~800 rows for the demo corpus).
 */
export const topicLabels: TopicLabelsStage = async (db, q) => {
  const result = await sql<{ tag: string; z: number }>`${PREPARED_STATEMENT}
    WITH c AS MATERIALIZED (
      SELECT t.tag, 1 - (${embeddingColumnSql(q, 't')} <=> ${vectorSql(q)}) AS cosine
      FROM tag_vectors t JOIN facet_value_counts f ON f.field = 'tags' AND f.value = t.tag AND f.entries > 0
      WHERE t.model = ${q.model}),
    s AS (SELECT avg(cosine) AS mean, stddev_pop(cosine) AS sd, count(*) AS n FROM c)
    SELECT c.tag, (c.cosine - s.mean) / s.sd AS z FROM c CROSS JOIN s
    WHERE s.n >= ${TOPIC_MIN_LABELS} AND s.sd > 0 AND c.cosine >= s.mean + ${TOPIC_Z_FLOOR}::float8 * s.sd
    ORDER BY z DESC, c.tag LIMIT ${TOPIC_MAX_LABELS}`.execute(db);
  return new Map(result.rows.map((r) => [r.tag, Number(r.z)]));
};

/** What an entry with these tags gains from the query's topic labels: TOPIC_WEIGHT x its best label's share of the z range. */
export function topicBoost(tags: readonly string[], topics: ReadonlyMap<string, number>): number {
  let best = 0;
  for (const tag of tags) {
    const z = topics.get(tag);
    if (z !== undefined) best = Math.max(best, Math.min(1, (z - TOPIC_Z_FLOOR) / (TOPIC_Z_FULL - TOPIC_Z_FLOOR)));
  }
  return TOPIC_WEIGHT * best;
}
