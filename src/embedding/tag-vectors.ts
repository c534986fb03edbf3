// The embeddings of the tags entries carry, per model (tag_vectors, migration 0010): the labels that
// src/search/relevance/topic-labels.ts topicLabels compares a query with. A tag's row depends on its text alone, so rows
// are only ever added: for the tags an ingest brings, and for every live tag at start and before a model
// switch (a database from before 0010, a crash between an ingest and its tags).
import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { toVectorLiteral } from '../db/vector-literal';
import type { Embedder } from './embedder';

/** Tags per embedding call: ~12 ms per short text with the bundled model keeps a batch well under a second. */
const TAG_BATCH = 64;

/** What is embedded for a tag: its words ("weather-api" -> "weather api", "region:us" -> "region us"). */
export function tagLabelText(tag: string): string {
  return tag.replace(/[-_:./]+/g, ' ').trim();
}

/**
 * Embeds and stores the tags among `tags` (every live tag when omitted) that have no vector of the
 * embedder's model yet. Returns how many it added.
 */
export async function fillTagVectors(db: Kysely<Database>, embedder: Embedder, tags?: readonly string[]): Promise<number> {
  // An ingest that changed nothing (a re-crawl) brings no tags: no round trip.
  if (tags !== undefined && tags.length === 0) return 0;
  const missing = await missingTags(db, embedder.id, tags);
  let added = 0;
  for (let i = 0; i < missing.length; i += TAG_BATCH) {
    const batch = missing.slice(i, i + TAG_BATCH);
    const vectors = await embedder.embed(batch.map((tag) => tagLabelText(tag) || tag));
    await db
      .insertInto('tag_vectors')
      .values(batch.map((tag, j) => ({ model: embedder.id, tag, embedding: toVectorLiteral(vectors[j]) })))
      .onConflict((oc) => oc.columns(['model', 'tag']).doNothing())
      .execute();
    added += batch.length;
  }
  return added;
}

async function missingTags(db: Kysely<Database>, model: string, tags?: readonly string[]): Promise<string[]> {
  const wanted =
    tags === undefined
      ? sql`SELECT f.value AS tag FROM facet_value_counts f WHERE f.field = 'tags' AND f.entries > 0`
      : sql`SELECT DISTINCT t.tag FROM unnest(${[...tags]}::text[]) AS t(tag) WHERE t.tag IS NOT NULL`;
  const result = await sql<{ tag: string }>`SELECT w.tag FROM (${wanted}) w
    WHERE NOT EXISTS (SELECT 1 FROM tag_vectors v WHERE v.model = ${model} AND v.tag = w.tag) ORDER BY w.tag`.execute(db);
  return result.rows.map((r) => r.tag);
}
