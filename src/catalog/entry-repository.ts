// Queries on `entries` and `entry_vectors`. Every function takes the db (or a transaction) first,
// so the caller decides the transaction.
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { toVectorLiteral } from '../db/vector-literal';
import type { CatalogEntry, HostInfo } from './catalog-entry';
import { contentHash, publisherOf, searchableText } from './catalog-entry';
import { inlineTools, storedTools, type EntryTool } from './entry-tools';
import { glossFor, PRODUCT_GLOSSARY, type ProductGlossary } from './product-glossary';

export interface EntryToStore {
  entry: CatalogEntry;
  host: HostInfo | undefined;
  origin: string;
  fetchedAt: Date;
  /** The crawl source it came from; absent for files (stored as null). */
  sourceId?: string | null;
  /** The peer (base URL) whose change feed it is mirrored from; absent for own entries (stored as null). */
  mirrorPeer?: string | null;
  /** Its tools from a card fetched from its `url` (the crawler); absent: those of its inline card, if any. */
  tools?: EntryTool[];
}

export interface PreparedEntry extends EntryToStore {
  hash: string;
  text: string;
  /** The product glossary's glosses for it (glossFor): indexed, never part of the entry served. */
  gloss: string;
  /** Its tools with their descriptions (entry-tools.ts): indexed, never part of the entry served. */
  tools: EntryTool[];
  /**
   * Its card could not be read this time (answered 304, failed, or past CRAWL_MAX_CARDS): the write keeps the tools
   * stored with it ([] for a new entry) instead of `tools`, from the stored state it reads anyway.
   */
  keepStoredTools?: boolean;
}

export function prepareEntry(input: EntryToStore, glossary: ProductGlossary = PRODUCT_GLOSSARY): PreparedEntry {
  return {
    ...input,
    hash: contentHash(input.entry, input.host),
    text: searchableText(input.entry),
    gloss: glossFor(input.entry, glossary),
    tools: input.tools ?? inlineTools(input.entry),
  };
}

export interface StoredState {
  hash: string;
  deleted: boolean;
  sourceId: string | null;
  origin: string;
  /** The peer the entry is mirrored from; null for an own entry. */
  mirrorPeer: string | null;
  /** The tools stored with it (entries.tools). */
  tools: EntryTool[];
}

/** Content hashes of the given identifiers (deleted ones included), to skip unchanged entries. */
export async function storedHashes(db: Kysely<Database>, identifiers: string[]): Promise<Map<string, StoredState>> {
  const out = new Map<string, StoredState>();
  for (let i = 0; i < identifiers.length; i += 1000) {
    const rows = await db
      .selectFrom('entries')
      .select(['identifier', 'content_hash', 'deleted_at', 'source_id', 'origin', 'mirror_peer', 'tools'])
      .where('identifier', 'in', identifiers.slice(i, i + 1000))
      .execute();
    for (const r of rows)
      out.set(r.identifier, {
        hash: r.content_hash,
        deleted: r.deleted_at !== null,
        sourceId: r.source_id === null ? null : String(r.source_id),
        origin: r.origin,
        mirrorPeer: r.mirror_peer,
        tools: storedTools(r.tools),
      });
  }
  return out;
}

/**
 * Inserts or replaces entries by identifier. `created_at` survives replacement; `updated_at` is the
 * entry's own updatedAt when it has one, else the time its content last changed here. A mirrored
 * copy (`mirrorPeer` set) never replaces a live entry that is this registry's own or another peer's
 * (decision 0029); returns the identifiers written.
 */
export async function upsertEntries(db: Kysely<Database>, items: PreparedEntry[]): Promise<Set<string>> {
  const written = new Set<string>();
  for (let i = 0; i < items.length; i += 200) {
    const chunk = items.slice(i, i + 200);
    const rows = await db
      .insertInto('entries')
      .values(
        chunk.map((item) => ({
          identifier: item.entry.identifier,
          publisher: publisherOf(item.entry.identifier),
          type: item.entry.type,
          display_name: item.entry.displayName,
          description: item.entry.description ?? null,
          version: item.entry.version ?? null,
          tags: item.entry.tags ?? [],
          capabilities: item.entry.capabilities ?? [],
          entry: JSON.stringify(item.entry),
          host: item.host ? JSON.stringify(item.host) : null,
          content_hash: item.hash,
          origin: item.origin,
          fetched_at: item.fetchedAt,
          updated_at: item.entry.updatedAt ?? item.fetchedAt,
          deleted_at: null,
          search_text: item.text,
          gloss: item.gloss,
          tools: JSON.stringify(item.tools),
          source_id: item.sourceId ?? null,
          mirror_peer: item.mirrorPeer ?? null,
        })),
      )
      .onConflict((oc) =>
        oc
          .column('identifier')
          .doUpdateSet((eb) => ({
            publisher: eb.ref('excluded.publisher'),
            type: eb.ref('excluded.type'),
            display_name: eb.ref('excluded.display_name'),
            description: eb.ref('excluded.description'),
            version: eb.ref('excluded.version'),
            tags: eb.ref('excluded.tags'),
            capabilities: eb.ref('excluded.capabilities'),
            entry: eb.ref('excluded.entry'),
            host: eb.ref('excluded.host'),
            content_hash: eb.ref('excluded.content_hash'),
            origin: eb.ref('excluded.origin'),
            fetched_at: eb.ref('excluded.fetched_at'),
            updated_at: eb.ref('excluded.updated_at'),
            deleted_at: null,
            search_text: eb.ref('excluded.search_text'),
            gloss: eb.ref('excluded.gloss'),
            tools: eb.ref('excluded.tools'),
            source_id: eb.ref('excluded.source_id'),
            mirror_peer: eb.ref('excluded.mirror_peer'),
          }))
          .where((eb) =>
            eb.or([
              eb('excluded.mirror_peer', 'is', null),
              eb('entries.deleted_at', 'is not', null),
              eb('entries.mirror_peer', '=', eb.ref('excluded.mirror_peer')),
            ]),
          ),
      )
      .returning('identifier')
      .execute();
    for (const r of rows) written.add(r.identifier);
  }
  return written;
}

export async function storeVectors(
  db: Kysely<Database>,
  model: string,
  field: string,
  rows: Array<{ identifier: string; vector: number[] }>,
): Promise<void> {
  for (let i = 0; i < rows.length; i += 200) {
    await db
      .insertInto('entry_vectors')
      .values(rows.slice(i, i + 200).map((r) => ({ identifier: r.identifier, model, field, embedding: toVectorLiteral(r.vector) })))
      .onConflict((oc) => oc.columns(['identifier', 'model', 'field']).doUpdateSet((eb) => ({ embedding: eb.ref('excluded.embedding') })))
      .execute();
  }
}

export async function deleteVectors(db: Kysely<Database>, model: string, identifiers: string[]): Promise<void> {
  for (let i = 0; i < identifiers.length; i += 1000) {
    await db
      .deleteFrom('entry_vectors')
      .where('model', '=', model)
      .where('identifier', 'in', identifiers.slice(i, i + 1000))
      .execute();
  }
}

/** One vector of an entry's tool (tool_vectors, migration 0023): the tool's index in entries.tools. */
export interface ToolVectorRow {
  identifier: string;
  position: number;
  vector: number[];
}

/** Those of `identifiers` that have at least one tool vector of `model`. */
export async function withToolVectors(db: Kysely<Database>, model: string, identifiers: readonly string[]): Promise<Set<string>> {
  const out = new Set<string>();
  for (let i = 0; i < identifiers.length; i += 1000) {
    const rows = await db
      .selectFrom('tool_vectors')
      .select('identifier')
      .distinct()
      .where('model', '=', model)
      .where('identifier', 'in', identifiers.slice(i, i + 1000))
      .execute();
    for (const r of rows) out.add(r.identifier);
  }
  return out;
}

/** Deletes every model's tool vectors of `identifiers`. */
export async function deleteToolVectors(db: Kysely<Database>, identifiers: readonly string[]): Promise<void> {
  for (let i = 0; i < identifiers.length; i += 1000)
    await db
      .deleteFrom('tool_vectors')
      .where('identifier', 'in', identifiers.slice(i, i + 1000))
      .execute();
}

export async function storeToolVectors(db: Kysely<Database>, model: string, rows: readonly ToolVectorRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 200)
    await db
      .insertInto('tool_vectors')
      .values(
        rows
          .slice(i, i + 200)
          .map((r) => ({ identifier: r.identifier, model, position: r.position, embedding: toVectorLiteral(r.vector) })),
      )
      .onConflict((oc) =>
        oc.columns(['identifier', 'model', 'position']).doUpdateSet((eb) => ({ embedding: eb.ref('excluded.embedding') })),
      )
      .execute();
}

export async function getLiveEntry(
  db: Kysely<Database>,
  identifier: string,
): Promise<{ entry: CatalogEntry; updatedAt: Date; contentHash: string } | null> {
  const row = await db
    .selectFrom('entries')
    .select(['entry', 'updated_at', 'content_hash'])
    .where('identifier', '=', identifier)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return row ? { entry: row.entry as CatalogEntry, updatedAt: row.updated_at, contentHash: row.content_hash } : null;
}

export interface LiveEntry {
  entry: CatalogEntry;
  /** The peer (base URL) the entry is mirrored from; null for an own entry. */
  mirroredFrom: string | null;
}

/** The live (not tombstoned) entries among `identifiers`, by identifier; absent ones are left out. */
export async function getLiveEntries(db: Kysely<Database>, identifiers: string[]): Promise<Map<string, LiveEntry>> {
  if (identifiers.length === 0) return new Map();
  const rows = await db
    .selectFrom('entries')
    .select(['identifier', 'entry', 'mirror_peer'])
    .where('identifier', 'in', identifiers)
    .where('deleted_at', 'is', null)
    .execute();
  return new Map(rows.map((r) => [r.identifier, { entry: r.entry as CatalogEntry, mirroredFrom: r.mirror_peer }]));
}

export async function countLiveEntries(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('entries')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('deleted_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Marks entries as deleted (tombstones): hidden from every read, remembered with the time. */
export async function markDeleted(db: Kysely<Database>, identifiers: string[], at: Date): Promise<number> {
  if (identifiers.length === 0) return 0;
  const result = await db
    .updateTable('entries')
    .set({ deleted_at: at })
    .where('identifier', 'in', identifiers)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Tombstones the live entries among `identifiers` that are mirrored from `peer` (its feed removed them); returns how many. */
export async function markMirroredDeleted(db: Kysely<Database>, peer: string, identifiers: string[], at: Date): Promise<number> {
  let removed = 0;
  for (let i = 0; i < identifiers.length; i += 1000) {
    const result = await db
      .updateTable('entries')
      .set({ deleted_at: at })
      .where('identifier', 'in', identifiers.slice(i, i + 1000))
      .where('mirror_peer', '=', peer)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    removed += Number(result.numUpdatedRows);
  }
  return removed;
}

/**
 * Removes (marks deleted) the live entries mirrored from peers that are no longer followed: a peer taken out of
 * PEERS_MIRROR takes its entries with it at the next start. Returns how many were removed.
 */
export async function markUnfollowedMirrorsDeleted(db: Kysely<Database>, followed: readonly string[], at: Date): Promise<number> {
  let query = db.updateTable('entries').set({ deleted_at: at }).where('mirror_peer', 'is not', null).where('deleted_at', 'is', null);
  if (followed.length > 0) query = query.where('mirror_peer', 'not in', [...followed]);
  return Number((await query.executeTakeFirst()).numUpdatedRows);
}

/** How many live entries are mirrored from `peer`. */
export async function countLiveMirrored(db: Kysely<Database>, peer: string): Promise<number> {
  const row = await db
    .selectFrom('entries')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('mirror_peer', '=', peer)
    .where('deleted_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Live entries that came from `sourceId` (identifier, origin and stored entry). */
export async function liveEntriesOfSource(
  db: Kysely<Database>,
  sourceId: string,
): Promise<Array<{ identifier: string; origin: string; entry: CatalogEntry }>> {
  const rows = await db
    .selectFrom('entries')
    .select(['identifier', 'origin', 'entry'])
    .where('source_id', '=', sourceId)
    .where('deleted_at', 'is', null)
    .execute();
  return rows.map((r) => ({ identifier: r.identifier, origin: r.origin, entry: r.entry as CatalogEntry }));
}

/** Of `identifiers`, the live ones held by a crawl source other than `sourceId`, with that source. */
export async function liveClaimsOfOtherSources(
  db: Kysely<Database>,
  identifiers: string[],
  sourceId: string,
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (let i = 0; i < identifiers.length; i += 1000) {
    const rows = await db
      .selectFrom('entries')
      .select(['identifier', 'source_id'])
      .where('identifier', 'in', identifiers.slice(i, i + 1000))
      .where('deleted_at', 'is', null)
      .where('source_id', 'is not', null)
      .where('source_id', '<>', sourceId)
      .execute();
    for (const r of rows) out.set(r.identifier, r.source_id as string);
  }
  return out;
}

/** Tombstones the live entries of `sourceId` whose identifier is not in `keep`; returns the identifiers removed. */
export async function tombstoneMissingFromSource(db: Kysely<Database>, sourceId: string, keep: Set<string>, at: Date): Promise<string[]> {
  const live = await db
    .selectFrom('entries')
    .select('identifier')
    .where('source_id', '=', sourceId)
    .where('deleted_at', 'is', null)
    .execute();
  const gone = live.map((r) => r.identifier).filter((id) => !keep.has(id));
  for (let i = 0; i < gone.length; i += 1000) await markDeleted(db, gone.slice(i, i + 1000), at);
  return gone;
}

/** Live entries of one media type, by identifier (e.g. every Alexandria record for the sitemap). */
export async function listLiveEntriesOfType(db: Kysely<Database>, type: string): Promise<Array<{ entry: CatalogEntry; updatedAt: Date }>> {
  const rows = await db
    .selectFrom('entries')
    .select(['entry', 'updated_at'])
    .where('type', '=', type)
    .where('deleted_at', 'is', null)
    .orderBy('identifier')
    .execute();
  return rows.map((row) => ({ entry: row.entry as CatalogEntry, updatedAt: row.updated_at }));
}
