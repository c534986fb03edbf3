// Queries on `entry_verification` (db/migrations/0015_entry_verification.sql). Every function takes the
// db (or a transaction) first.
import { sql, type Kysely } from 'kysely';
import type { CatalogEntry } from '../catalog/catalog-entry';
import type { Database } from '../db/schema';
import type { VerificationOutcome, VerificationState } from './verification-outcome';

export interface StoredVerification {
  state: VerificationState;
  reason: string | null;
  method: string | null;
  detail: string;
  checkedAt: Date;
}

/**
 * Live entries with a trust manifest never checked, changed since their check, or due for a re-check
 * (oldest first). An entry without a trust manifest needs no row: it is 'unverified' by definition.
 */
export async function entriesDueForVerification(
  db: Kysely<Database>,
  now: Date,
  limit: number,
): Promise<Array<{ identifier: string; entry: CatalogEntry; contentHash: string }>> {
  const rows = await db
    .selectFrom('entries as e')
    .leftJoin('entry_verification as v', 'v.identifier', 'e.identifier')
    .select(['e.identifier', 'e.entry', 'e.content_hash'])
    .where('e.deleted_at', 'is', null)
    .where(sql<boolean>`e.entry ? 'trustManifest'`)
    .where((eb) =>
      eb.or([eb('v.identifier', 'is', null), eb('v.content_hash', '<>', eb.ref('e.content_hash')), eb('v.next_check_at', '<=', now)]),
    )
    .orderBy(sql`coalesce(v.next_check_at, '-infinity'::timestamptz)`)
    .orderBy('e.identifier')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ identifier: r.identifier, entry: r.entry as CatalogEntry, contentHash: r.content_hash }));
}

/**
 * Stores outcomes for the content they were computed on. An entry deleted meanwhile gets no row (the
 * INSERT ... SELECT finds nothing); one changed meanwhile keeps the old hash and is checked again.
 */
export async function recordVerifications(
  db: Kysely<Database>,
  items: Array<{ identifier: string; contentHash: string; outcome: VerificationOutcome; checkedAt: Date; nextCheckAt: Date }>,
): Promise<void> {
  for (let i = 0; i < items.length; i += 200) {
    const chunk = items.slice(i, i + 200);
    const col = <T>(f: (item: (typeof chunk)[number]) => T) => chunk.map(f);
    await sql`
      INSERT INTO entry_verification (identifier, content_hash, state, reason, method, detail, checked_at, next_check_at)
      SELECT u.identifier, u.content_hash, u.state, u.reason, u.method, u.detail, u.checked_at, u.next_check_at
      FROM unnest(${col((x) => x.identifier)}::text[], ${col((x) => x.contentHash)}::text[], ${col((x) => x.outcome.state)}::text[],
                  ${col((x) => x.outcome.reason)}::text[], ${col((x) => x.outcome.method)}::text[], ${col((x) => x.outcome.detail)}::text[],
                  ${col((x) => x.checkedAt.toISOString())}::timestamptz[], ${col((x) => x.nextCheckAt.toISOString())}::timestamptz[])
        AS u(identifier, content_hash, state, reason, method, detail, checked_at, next_check_at)
      WHERE EXISTS (SELECT 1 FROM entries e WHERE e.identifier = u.identifier)
      ON CONFLICT (identifier) DO UPDATE SET content_hash = excluded.content_hash, state = excluded.state, reason = excluded.reason,
        method = excluded.method, detail = excluded.detail, checked_at = excluded.checked_at, next_check_at = excluded.next_check_at`.execute(
      db,
    );
  }
}

/** The stored check of an entry's current content; null when it has not been checked since it changed. */
export async function currentVerification(db: Kysely<Database>, identifier: string): Promise<StoredVerification | null> {
  const row = await db
    .selectFrom('entry_verification as v')
    .innerJoin('entries as e', 'e.identifier', 'v.identifier')
    .select(['v.state', 'v.reason', 'v.method', 'v.detail', 'v.checked_at'])
    .where('v.identifier', '=', identifier)
    .whereRef('v.content_hash', '=', 'e.content_hash')
    .executeTakeFirst();
  return row
    ? { state: row.state as VerificationState, reason: row.reason, method: row.method, detail: row.detail, checkedAt: row.checked_at }
    : null;
}
