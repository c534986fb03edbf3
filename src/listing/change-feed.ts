// GET /changes (a registry extension, docs/api.md "Change feed"): this registry's own entries in the
// order they were written, removals (tombstones) included, for a registry that mirrors this one
// (docs/federation.md "Mirroring"). The order is `entries.change_seq` (db/migrations/0017_change_feed.sql),
// taken in commit order, so paging from a cursor neither skips nor repeats a write under concurrent ones;
// an entry written again after a page moved past it comes again, later. Mirrored entries are not listed:
// a mirror does not republish what it copied.
import { randomBytes } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { CatalogEntry } from '../catalog/catalog-entry';
import { getOrCreateSetting } from '../db/settings';
import type { Database } from '../db/schema';
import { InvalidArgumentError } from '../errors';

export const CHANGE_FEED_DEFAULT_LIMIT = 100;
export const CHANGE_FEED_MAX_LIMIT = 500;
/** A cursor longer than this is not one of ours (ours are ~40 characters). */
const MAX_CURSOR_LENGTH = 200;

export type Change =
  { identifier: string; removed: false; updatedAt: string; entry: CatalogEntry } | { identifier: string; removed: true; removedAt: string };

export interface ChangePage {
  changes: Change[];
  /** Where the next page starts: send it back as `since`. Present even when nothing changed. */
  nextCursor: string;
  /** True when more changes follow at once (the page was full). */
  hasMore: boolean;
}

/**
 * The feed's identity, created once per database: a cursor names it, so a cursor of another registry,
 * or of this one before its database was rebuilt, is refused instead of silently skipping changes.
 */
function feedId(db: Kysely<Database>): Promise<string> {
  return getOrCreateSetting(db, 'change_feed_id', () => randomBytes(9).toString('base64url'));
}

function encodeCursor(id: string, seq: string): string {
  return Buffer.from(`${id}:${seq}`, 'utf8').toString('base64url');
}

/** The sequence position of `cursor` (validated), or '0' when absent. */
async function positionOf(db: Kysely<Database>, id: string, cursor: string | undefined): Promise<string> {
  if (cursor === undefined) return '0';
  const decoded =
    cursor.length <= MAX_CURSOR_LENGTH && /^[A-Za-z0-9_-]+$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
  const match = /^([A-Za-z0-9_-]{12}):(0|[1-9]\d{0,17})$/.exec(decoded);
  if (!match)
    throw new InvalidArgumentError(
      `query parameter 'since' is not a cursor of this feed: send a nextCursor this registry returned, or no since to start from the beginning`,
    );
  if (match[1] !== id)
    throw new InvalidArgumentError(
      `query parameter 'since' is a cursor of another change feed (another registry, or this one before its database was rebuilt): start again without since`,
    );
  const { rows } = await sql<{
    last: string;
  }>`SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS last FROM entries_change_seq`.execute(db);
  if (BigInt(match[2]!) > BigInt(rows[0]?.last ?? '0'))
    throw new InvalidArgumentError(`query parameter 'since' points past the end of this feed: start again without since`);
  return match[2]!;
}

function checkLimit(limit: number | undefined): number {
  if (limit === undefined) return CHANGE_FEED_DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > CHANGE_FEED_MAX_LIMIT)
    throw new InvalidArgumentError(`query parameter 'limit' must be an integer from 1 to ${CHANGE_FEED_MAX_LIMIT}; got ${limit}`);
  return limit;
}

/** The changes after `since`, at most `limit` of them, oldest first. */
export async function readChanges(db: Kysely<Database>, input: { since?: string; limit?: number }): Promise<ChangePage> {
  const limit = checkLimit(input.limit);
  const id = await feedId(db);
  const after = await positionOf(db, id, input.since);
  const rows = await db
    .selectFrom('entries')
    .select(['identifier', 'entry', 'updated_at', 'deleted_at', 'change_seq'])
    .where('mirror_peer', 'is', null)
    .where('change_seq', '>', after)
    .orderBy('change_seq')
    .limit(limit + 1)
    .execute();
  const page = rows.slice(0, limit);
  const changes = page.map((r): Change =>
    r.deleted_at !== null
      ? { identifier: r.identifier, removed: true, removedAt: r.deleted_at.toISOString() }
      : { identifier: r.identifier, removed: false, updatedAt: r.updated_at.toISOString(), entry: r.entry as CatalogEntry },
  );
  const last = page.at(-1);
  return { changes, nextCursor: encodeCursor(id, last ? String(last.change_seq) : after), hasMore: rows.length > limit };
}
