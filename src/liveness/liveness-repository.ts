// Queries on `entry_liveness` (db/migrations/0016_entry_liveness.sql). Every function takes the db (or a
// transaction) first.
import { sql, type Kysely } from 'kysely';
import type { CatalogEntry } from '../catalog/catalog-entry';
import type { Database } from '../db/schema';
import type { LivenessState, ProbeKind } from './liveness-state';

/** An entry's stored liveness, as Retrieve and the portal show it. */
export interface StoredLiveness {
  state: LivenessState;
  probe: ProbeKind;
  target: string | null;
  /** Why there is nothing to probe, or the last failure's reason while failing. */
  reason: string | null;
  detail: string;
  latencyMs: number | null;
  lastSuccessAt: Date | null;
  lastFailureAt: Date | null;
  lastFailureReason: string | null;
  failingSince: Date | null;
  deadSince: Date | null;
  checkedAt: Date;
  nextProbeAt: Date;
}

export interface DueEntry {
  identifier: string;
  entry: CatalogEntry;
  contentHash: string;
  /** The row written by the last probe, of this content or an earlier one; null when never probed. */
  previous: StoredLiveness | null;
}

const COLUMNS = [
  'l.state',
  'l.probe',
  'l.target',
  'l.reason',
  'l.detail',
  'l.latency_ms',
  'l.last_success_at',
  'l.last_failure_at',
  'l.last_failure_reason',
  'l.failing_since',
  'l.dead_since',
  'l.checked_at',
  'l.next_probe_at',
] as const;

type LivenessColumns = {
  state: string | null;
  probe: string | null;
  target: string | null;
  reason: string | null;
  detail: string | null;
  latency_ms: number | null;
  last_success_at: Date | null;
  last_failure_at: Date | null;
  last_failure_reason: string | null;
  failing_since: Date | null;
  dead_since: Date | null;
  checked_at: Date | null;
  next_probe_at: Date | null;
};

function toStored(row: LivenessColumns): StoredLiveness | null {
  if (row.state === null || row.checked_at === null || row.next_probe_at === null) return null;
  return {
    state: row.state as LivenessState,
    probe: row.probe as ProbeKind,
    target: row.target,
    reason: row.reason,
    detail: row.detail ?? '',
    latencyMs: row.latency_ms,
    lastSuccessAt: row.last_success_at,
    lastFailureAt: row.last_failure_at,
    lastFailureReason: row.last_failure_reason,
    failingSince: row.failing_since,
    deadSince: row.dead_since,
    checkedAt: row.checked_at,
    nextProbeAt: row.next_probe_at,
  };
}

/** Live entries never probed, changed since their probe, or due (oldest due first), at most `limit`. */
export async function entriesDueForProbe(db: Kysely<Database>, now: Date, limit: number): Promise<DueEntry[]> {
  const rows = await db
    .selectFrom('entries as e')
    .leftJoin('entry_liveness as l', 'l.identifier', 'e.identifier')
    .select(['e.identifier', 'e.entry', 'e.content_hash', ...COLUMNS])
    .where('e.deleted_at', 'is', null)
    .where((eb) =>
      eb.or([eb('l.identifier', 'is', null), eb('l.content_hash', '<>', eb.ref('e.content_hash')), eb('l.next_probe_at', '<=', now)]),
    )
    .orderBy(sql`coalesce(l.next_probe_at, '-infinity'::timestamptz)`)
    .orderBy('e.identifier')
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    identifier: r.identifier,
    entry: r.entry as CatalogEntry,
    contentHash: r.content_hash,
    previous: toStored(r),
  }));
}

export interface LivenessRecord extends StoredLiveness {
  identifier: string;
  contentHash: string;
}

/**
 * Stores probe results for the content they were computed on. An entry deleted meanwhile gets no row; one
 * changed meanwhile keeps the old hash and is probed again.
 */
export async function recordLiveness(db: Kysely<Database>, items: LivenessRecord[]): Promise<void> {
  for (let i = 0; i < items.length; i += 500) {
    const chunk = items.slice(i, i + 500);
    const col = <T>(f: (item: LivenessRecord) => T) => chunk.map(f);
    const time = (d: Date | null) => d?.toISOString() ?? null;
    await sql`
      INSERT INTO entry_liveness (identifier, content_hash, state, probe, target, reason, detail, latency_ms, last_success_at,
        last_failure_at, last_failure_reason, failing_since, dead_since, checked_at, next_probe_at)
      SELECT u.* FROM unnest(${col((x) => x.identifier)}::text[], ${col((x) => x.contentHash)}::text[], ${col((x) => x.state)}::text[],
        ${col((x) => x.probe)}::text[], ${col((x) => x.target)}::text[], ${col((x) => x.reason)}::text[], ${col((x) => x.detail)}::text[],
        ${col((x) => x.latencyMs)}::integer[], ${col((x) => time(x.lastSuccessAt))}::timestamptz[],
        ${col((x) => time(x.lastFailureAt))}::timestamptz[], ${col((x) => x.lastFailureReason)}::text[],
        ${col((x) => time(x.failingSince))}::timestamptz[], ${col((x) => time(x.deadSince))}::timestamptz[],
        ${col((x) => time(x.checkedAt))}::timestamptz[], ${col((x) => time(x.nextProbeAt))}::timestamptz[])
        AS u(identifier, content_hash, state, probe, target, reason, detail, latency_ms, last_success_at, last_failure_at,
             last_failure_reason, failing_since, dead_since, checked_at, next_probe_at)
      WHERE EXISTS (SELECT 1 FROM entries e WHERE e.identifier = u.identifier)
      ON CONFLICT (identifier) DO UPDATE SET content_hash = excluded.content_hash, state = excluded.state, probe = excluded.probe,
        target = excluded.target, reason = excluded.reason, detail = excluded.detail, latency_ms = excluded.latency_ms,
        last_success_at = excluded.last_success_at, last_failure_at = excluded.last_failure_at,
        last_failure_reason = excluded.last_failure_reason, failing_since = excluded.failing_since, dead_since = excluded.dead_since,
        checked_at = excluded.checked_at, next_probe_at = excluded.next_probe_at`.execute(db);
  }
}

/** The stored liveness of an entry's current content; null when it has not been probed since it changed. */
export async function currentLiveness(db: Kysely<Database>, identifier: string): Promise<StoredLiveness | null> {
  const row = await db
    .selectFrom('entry_liveness as l')
    .innerJoin('entries as e', 'e.identifier', 'l.identifier')
    .select(COLUMNS)
    .where('l.identifier', '=', identifier)
    .whereRef('l.content_hash', '=', 'e.content_hash')
    .executeTakeFirst();
  return row ? toStored(row) : null;
}
