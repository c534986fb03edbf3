// Housekeeping the write paths run after they change entries.
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema';

/**
 * VACUUM (ANALYZE) of the statistics tables the relevance triggers rewrite on every write (0003), and of
 * the lexical postings (0009), whose retrieval scan reads the index alone only where the visibility map
 * says the pages are all-visible (88 ms at 10k entries after 50 changed entries, mostly ANALYZE).
 * Every ingest batch updates most rows of term_stats and lexeme_stats; their dead versions pile up in
 * the GiST trigram index that typo correction scans (migration 0006), and the KNN lookup of one unknown
 * word went from 2.8 ms to 20-27 ms at 10k entries until a VACUUM (docs/performance.md). PostgreSQL's
 * autovacuum gets there eventually; the embedded PGlite has no autovacuum at all. Small tables: a few ms. The index
 * generation's one row (0027) gets a new version at every write's commit: vacuumed with them.
 * Skipped inside a transaction (VACUUM cannot run there); a failure is not the write's failure.
 */
export async function vacuumSearchStatistics(db: Kysely<Database>): Promise<boolean> {
  if (db.isTransaction) return false;
  try {
    await sql`VACUUM (ANALYZE) term_stats, lexeme_stats, corpus_stats, lexeme_postings, index_generation`.execute(db);
    return true;
  } catch {
    return false;
  }
}
