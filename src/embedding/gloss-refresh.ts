// Keeps stored glosses in step with the product glossary (src/catalog/product-glossary.ts). Ingestion writes
// an entry's gloss with the glossary it runs with; when a release ships another glossary (or the database
// predates migration 0013), the stored glosses, the lexical documents built from them and the doc vectors
// that embed them are those of the old one. At start the registry compares the glossary's version with the
// one the database was last refreshed to, and if they differ rewrites, in the background, the gloss and the
// doc vector of every entry whose gloss changes. Search keeps answering meanwhile, each entry with its old
// or its new gloss.
import { sql, type Kysely } from 'kysely';
import { storeVectors } from '../catalog/entry-repository';
import type { CatalogEntry } from '../catalog/catalog-entry';
import { glossFor, PRODUCT_GLOSSARY, type ProductGlossary } from '../catalog/product-glossary';
import type { Database } from '../db/schema';
import { getSetting, setSetting } from '../db/settings';
import type { Embedder } from './embedder';
import { entryEmbeddingTexts } from './entry-texts';

export const GLOSSARY_VERSION_SETTING = 'product_glossary_version';

export interface GlossRefreshOptions {
  glossary?: ProductGlossary;
  batchSize?: number;
  /** Called after each batch with the entries read so far; returning false stops the job (shutdown). */
  onBatch?: (read: number) => boolean | void;
}

export interface GlossRefreshResult {
  /** False when the database was already refreshed to this glossary (nothing was read). */
  ran: boolean;
  /** False when onBatch stopped it: the version is not recorded, so the next start goes on. */
  completed: boolean;
  read: number;
  /** Entries whose gloss changed (their lexical document and doc vector were rewritten). */
  changed: number;
}

/**
 * Rewrites the glosses that differ from `glossary`'s (deleted entries included, so an entry revived by a
 * re-ingest of the same content is right too) and the `embedder` model's doc vectors of those entries; the
 * doc vectors other models hold for them are deleted, and a model switch (model-switch.ts) fills them anew.
 * Records the glossary's version when done.
 */
export async function refreshGlosses(
  db: Kysely<Database>,
  embedder: Embedder,
  options: GlossRefreshOptions = {},
): Promise<GlossRefreshResult> {
  const glossary = options.glossary ?? PRODUCT_GLOSSARY;
  if ((await getSetting(db, GLOSSARY_VERSION_SETTING)) === glossary.version) return { ran: false, completed: true, read: 0, changed: 0 };
  const batchSize = options.batchSize ?? 200;
  let after = '';
  let read = 0;
  let changed = 0;
  const held: StaleEntry[] = [];
  for (;;) {
    const rows = await db
      .selectFrom('entries')
      .select(['identifier', 'entry', 'gloss', 'content_hash', 'deleted_at'])
      .where('identifier', '>', after)
      .orderBy('identifier')
      .limit(batchSize)
      .execute();
    if (rows.length === 0) break;
    after = rows[rows.length - 1].identifier;
    read += rows.length;
    const stale = rows.flatMap((r) => {
      const entry = r.entry as CatalogEntry;
      const gloss = glossFor(entry, glossary);
      return gloss === r.gloss ? [] : [{ identifier: r.identifier, entry, hash: r.content_hash, live: r.deleted_at === null, gloss }];
    });
    if (stale.length > 0) {
      const batch = await rewrite(db, embedder, stale, { skipLocked: true });
      changed += batch.done;
      held.push(...batch.held);
    }
    if (options.onBatch?.(read) === false) return { ran: true, completed: false, read, changed };
  }
  // The entries another write held, one at a time: waiting for one row while holding none cannot deadlock.
  for (const entry of held) {
    changed += (await rewrite(db, embedder, [entry], { skipLocked: false })).done;
    if (options.onBatch?.(read) === false) return { ran: true, completed: false, read, changed };
  }
  await setSetting(db, GLOSSARY_VERSION_SETTING, glossary.version);
  return { ran: true, completed: true, read, changed };
}

interface StaleEntry {
  identifier: string;
  entry: CatalogEntry;
  hash: string;
  live: boolean;
  gloss: string;
}

/**
 * One batch: the doc vectors are computed first, then written in the transaction that rewrites the glosses,
 * only for entries whose content is still the one read (an ingest that replaced an entry meanwhile wrote
 * its own gloss and vectors, and is not undone). The row locks of the update hold off a concurrent ingest
 * of the same entries until both are written. With `skipLocked`, an entry another transaction holds is left
 * out and returned in `held`: an ingest locks its entries in its manifest's order, a batch here in identifier
 * order, and waiting for each other's rows the two could deadlock.
 */
async function rewrite(
  db: Kysely<Database>,
  embedder: Embedder,
  stale: StaleEntry[],
  options: { skipLocked: boolean },
): Promise<{ done: number; held: StaleEntry[] }> {
  const live = stale.filter((s) => s.live);
  const texts = live.map((s) => entryEmbeddingTexts(s.entry, s.gloss).doc);
  const vectors = live.length > 0 ? await embedder.embed(texts) : [];
  return db.transaction().execute(async (trx) => {
    const locked = await sql<{ identifier: string }>`
      SELECT identifier FROM entries WHERE identifier = ANY(${stale.map((s) => s.identifier)}::text[]) ORDER BY identifier
      FOR UPDATE ${options.skipLocked ? sql`SKIP LOCKED` : sql``}`.execute(trx);
    const free = new Set(locked.rows.map((r) => r.identifier));
    const mine = stale.filter((s) => free.has(s.identifier));
    const updated = await sql<{ identifier: string }>`
      UPDATE entries e SET gloss = s.gloss
      FROM unnest(${mine.map((s) => s.identifier)}::text[], ${mine.map((s) => s.gloss)}::text[], ${mine.map((s) => s.hash)}::text[]) AS s(identifier, gloss, hash)
      WHERE e.identifier = s.identifier AND e.content_hash = s.hash
      RETURNING e.identifier`.execute(trx);
    const done = new Set(updated.rows.map((r) => r.identifier));
    const rewritten = live.flatMap((s, i) => (done.has(s.identifier) ? [{ identifier: s.identifier, vector: vectors[i] }] : []));
    if (rewritten.length > 0) {
      const ids = rewritten.map((r) => r.identifier);
      // Other models' doc vectors embed the old gloss: removed, so that a switch to that model re-embeds them.
      await sql`DELETE FROM entry_vectors WHERE identifier = ANY(${ids}::text[]) AND field = 'doc' AND model <> ${embedder.id}`.execute(
        trx,
      );
      const held = await sql<{ identifier: string }>`
        SELECT identifier FROM entry_vectors WHERE identifier = ANY(${ids}::text[]) AND field = 'doc' AND model = ${embedder.id}`.execute(
        trx,
      );
      // Only entries that had this model's doc vector get a new one: one without it is being embedded by
      // an ingest or a model switch, which embeds the current gloss.
      const had = new Set(held.rows.map((r) => r.identifier));
      await storeVectors(
        trx,
        embedder.id,
        'doc',
        rewritten.filter((r) => had.has(r.identifier)),
      );
    }
    return { done: done.size, held: stale.filter((s) => !free.has(s.identifier)) };
  });
}
