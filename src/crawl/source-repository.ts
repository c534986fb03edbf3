// Queries on `sources`. Claiming a due source takes a lease with FOR UPDATE SKIP LOCKED, so several
// registry processes on one database never crawl the same source at once.
import { sql, type Kysely } from 'kysely';
import { tombstoneMissingFromSource } from '../catalog/entry-repository';
import type { Database, SourceRow } from '../db/schema';
import type { CrawlReport } from './crawl-report';

export interface SourceView {
  id: string;
  location: string;
  trusted: boolean;
  intervalSeconds: number;
  nextCrawlAt: string;
  catalogUrl: string | null;
  discoveredVia: string | null;
  etag: string | null;
  lastModified: string | null;
  crawling: boolean;
  lastCrawl: {
    at: string;
    status: string | null;
    httpStatus: number | null;
    error: string | null;
    report: CrawlReport | null;
  } | null;
  createdAt: string;
}

export function toSourceView(row: SourceRow, now = new Date()): SourceView {
  return {
    id: String(row.id),
    location: row.location,
    trusted: row.trusted,
    intervalSeconds: row.interval_seconds,
    nextCrawlAt: row.next_crawl_at.toISOString(),
    catalogUrl: row.catalog_url,
    discoveredVia: row.discovered_via,
    etag: row.etag,
    lastModified: row.last_modified,
    crawling: row.lease_until !== null && row.lease_until > now,
    lastCrawl: row.last_crawl_at
      ? {
          at: row.last_crawl_at.toISOString(),
          status: row.last_status,
          httpStatus: row.last_http_status,
          error: row.last_error,
          report: (row.last_report as CrawlReport | null) ?? null,
        }
      : null,
    createdAt: row.created_at.toISOString(),
  };
}

/** Registers a source, or updates interval/trust of an existing one. */
export async function upsertSource(
  db: Kysely<Database>,
  input: { location: string; intervalSeconds: number; trusted?: boolean },
): Promise<{ row: SourceRow; created: boolean }> {
  const existing = await db.selectFrom('sources').selectAll().where('location', '=', input.location).executeTakeFirst();
  if (existing) {
    const row = await db
      .updateTable('sources')
      .set({ interval_seconds: input.intervalSeconds, ...(input.trusted === undefined ? {} : { trusted: input.trusted }) })
      .where('id', '=', existing.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    return { row, created: false };
  }
  const row = await db
    .insertInto('sources')
    .values({ location: input.location, interval_seconds: input.intervalSeconds, trusted: input.trusted ?? false })
    .onConflict((oc) => oc.column('location').doUpdateSet({ interval_seconds: input.intervalSeconds }))
    .returningAll()
    .executeTakeFirstOrThrow();
  return { row, created: true };
}

export async function getSource(db: Kysely<Database>, id: string): Promise<SourceRow | undefined> {
  if (!/^\d{1,18}$/.test(id)) return undefined;
  return db
    .selectFrom('sources')
    .selectAll()
    .where('id', '=', id as never)
    .executeTakeFirst();
}

export async function listSources(db: Kysely<Database>): Promise<SourceRow[]> {
  return db.selectFrom('sources').selectAll().orderBy('id').execute();
}

/** Deletes a source and tombstones its live entries (nobody keeps them current any more). */
export async function deleteSource(db: Kysely<Database>, id: string): Promise<boolean> {
  if (!/^\d{1,18}$/.test(id)) return false;
  return db.transaction().execute(async (trx) => {
    await tombstoneMissingFromSource(trx, id, new Set(), new Date());
    const result = await trx
      .deleteFrom('sources')
      .where('id', '=', id as never)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  });
}

/**
 * Takes the crawl lease of up to `limit` due sources (or of the one source `id`, due or not).
 * Rows locked by another process's claim are skipped, and a leased source is not due until its
 * lease expires, so two processes never crawl one source at the same time.
 */
export async function claimSources(
  db: Kysely<Database>,
  options: { limit: number; leaseSeconds: number; id?: string },
): Promise<SourceRow[]> {
  const result = await sql<SourceRow>`
    UPDATE sources SET lease_until = now() + make_interval(secs => ${options.leaseSeconds})
    WHERE id IN (
      SELECT id FROM sources
      WHERE (lease_until IS NULL OR lease_until < now())
        AND ${options.id === undefined ? sql`next_crawl_at <= now()` : sql`id = ${options.id}`}
      ORDER BY next_crawl_at
      LIMIT ${options.limit}
      FOR UPDATE SKIP LOCKED
    )
    RETURNING *`.execute(db);
  return result.rows;
}

export interface CrawlOutcome {
  status: CrawlReport['status'];
  httpStatus: number | null;
  error: string | null;
  report: CrawlReport;
  catalogUrl: string | null;
  discoveredVia: string | null;
  validators: Record<string, { etag?: string; lastModified?: string }>;
  nextCrawlAt: Date;
}

/** Records a finished crawl and releases the lease. */
export async function recordCrawl(db: Kysely<Database>, id: string, outcome: CrawlOutcome): Promise<void> {
  const root = outcome.catalogUrl ? outcome.validators[outcome.catalogUrl] : undefined;
  await db
    .updateTable('sources')
    .set({
      last_crawl_at: new Date(outcome.report.finishedAt),
      last_status: outcome.status,
      last_http_status: outcome.httpStatus,
      last_error: outcome.error,
      last_report: JSON.stringify(outcome.report),
      catalog_url: outcome.catalogUrl,
      discovered_via: outcome.discoveredVia,
      validators: JSON.stringify(outcome.validators),
      etag: root?.etag ?? null,
      last_modified: root?.lastModified ?? null,
      next_crawl_at: outcome.nextCrawlAt,
      lease_until: null,
    })
    .where('id', '=', id as never)
    .execute();
}

export async function releaseLease(db: Kysely<Database>, id: string): Promise<void> {
  await db
    .updateTable('sources')
    .set({ lease_until: null })
    .where('id', '=', id as never)
    .execute();
}
