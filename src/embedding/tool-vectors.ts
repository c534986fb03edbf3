// The vectors of entries' tools (tool_vectors, migration 0023; decision 0037): each of an entry's first
// TOOL_VECTORS_PER_ENTRY tools embedded on its own (toolEmbeddingTexts). Written by the ingest in the transaction
// that writes the entry when its tools change (ingest-manifest.ts); filled here for live entries that have tools
// and no tool vector of a model: a database from before 0023 at start, and the goal model before a switch.
import { sql, type Kysely } from 'kysely';
import { storeToolVectors, type ToolVectorRow } from '../catalog/entry-repository';
import { storedTools, type EntryTool } from '../catalog/entry-tools';
import type { Database } from '../db/schema';
import type { Embedder } from './embedder';
import { toolEmbeddingTexts } from './entry-texts';

/** Tool texts per model call: 4.3-4.6 ms each with the bundled model keeps the event loop blocked under 0.3 s. */
const TOOL_BATCH = 64;

/** The vectors of the tools of `entries` (toolEmbeddingTexts; a tool with no text gets none). */
export async function embedTools(
  embedder: Embedder,
  entries: ReadonlyArray<{ identifier: string; tools: readonly EntryTool[] }>,
): Promise<ToolVectorRow[]> {
  const texts = entries.flatMap((e) =>
    toolEmbeddingTexts(e.tools).flatMap((text, position) => (text === '' ? [] : [{ identifier: e.identifier, position, text }])),
  );
  const out: ToolVectorRow[] = [];
  for (let i = 0; i < texts.length; i += TOOL_BATCH) {
    const chunk = texts.slice(i, i + TOOL_BATCH);
    const vectors = await embedder.embed(chunk.map((t) => t.text));
    chunk.forEach((t, j) => out.push({ identifier: t.identifier, position: t.position, vector: vectors[j] }));
    // CPU work on the main thread: let queued requests run between batches.
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return out;
}

/**
 * Embeds, with `embedder`'s model, the tools of live entries that have tools and no tool vector of that model, in
 * batches of `batchSize` entries. Each batch is written only for entries whose tools are still those embedded:
 * their rows are locked (FOR SHARE) while it is written, so an ingest that changes them waits, then writes its own.
 * A row another transaction holds (an ingest writing it) is skipped rather than waited for: the ingest locks its
 * entries in its manifest's order, this in identifier order, and waiting could deadlock the two. The ingest embeds
 * the tools of an entry it writes that has none of its model's (ingest-manifest.ts); what is still missing after a
 * pass that skipped rows is read again in another, as long as a pass fills something.
 * Returns how many entries it filled; `onBatch` returning false stops it.
 */
export async function fillToolVectors(
  db: Kysely<Database>,
  embedder: Embedder,
  options: { batchSize?: number; onBatch?: (done: number) => boolean | void } = {},
): Promise<number> {
  const batchSize = options.batchSize ?? 32;
  let filled = 0;
  for (;;) {
    const pass = { filled: 0, skipped: 0 };
    let after = '';
    for (;;) {
      const batch = await sql<{ identifier: string; tools: unknown }>`
        SELECT e.identifier, e.tools FROM entries e
        WHERE e.identifier > ${after} AND e.deleted_at IS NULL AND e.tools <> '[]'::jsonb
          AND NOT EXISTS (SELECT 1 FROM tool_vectors t WHERE t.identifier = e.identifier AND t.model = ${embedder.id})
        ORDER BY e.identifier LIMIT ${batchSize}`.execute(db);
      if (batch.rows.length === 0) break;
      after = batch.rows[batch.rows.length - 1].identifier;
      const read = batch.rows.map((r) => ({ identifier: r.identifier, tools: storedTools(r.tools) }));
      const vectors = await embedTools(embedder, read);
      const written = await db.transaction().execute(async (trx) => {
        const now = await sql<{ identifier: string; tools: unknown }>`
          SELECT identifier, tools FROM entries WHERE identifier = ANY(${read.map((r) => r.identifier)}::text[]) AND deleted_at IS NULL
          FOR SHARE SKIP LOCKED`.execute(trx);
        const current = new Map(now.rows.map((r) => [r.identifier, JSON.stringify(storedTools(r.tools))]));
        const unchanged = new Set(read.filter((r) => current.get(r.identifier) === JSON.stringify(r.tools)).map((r) => r.identifier));
        // Another process filling them meanwhile wrote the same rows: the upsert keeps one of each.
        await storeToolVectors(
          trx,
          embedder.id,
          vectors.filter((v) => unchanged.has(v.identifier)),
        );
        // Rows not read: held by another transaction (skipped), or tombstoned meanwhile.
        return { unchanged: unchanged.size, skipped: read.length - now.rows.length };
      });
      pass.filled += written.unchanged;
      pass.skipped += written.skipped;
      filled += written.unchanged;
      if (options.onBatch?.(filled) === false) return filled;
    }
    if (pass.skipped === 0 || pass.filled === 0) return filled;
  }
}
