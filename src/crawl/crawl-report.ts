// What one crawl of a source did: stored as sources.last_report, returned by the admin API and the CLI.

export type CrawlStatus =
  /** Every document was fetched (or answered 304) and the index now mirrors the source. */
  | 'ok'
  /** Every document answered 304 Not Modified: nothing was rewritten. */
  | 'not-modified'
  /** The root catalog was read but a nested one failed: valid entries were stored, nothing was removed. */
  | 'partial'
  /** Discovery or the root catalog failed (or a limit was exceeded): nothing was changed. */
  | 'failed';

export type DiscoveryMechanism = 'url' | 'well-known' | 'ard.json' | 'agentmap' | 'dns-svcb' | 'dns-txt' | 'html-link';

export interface CrawledDocument {
  url: string;
  depth: number;
  status: 'fetched' | 'not-modified' | 'failed' | 'skipped';
  httpStatus?: number;
  /** Entries the document lists (inline nested catalogs included). */
  entries?: number;
  /** Why it failed or was skipped (robots.txt, cycle, depth limit). */
  reason?: string;
}

export interface RejectedEntry {
  /** The catalog the entry was listed in. */
  url: string;
  /** Position in that catalog's `entries` (of the inline nested catalog, when `path` says so). */
  index: number;
  identifier: string | null;
  reason: string;
}

export interface CrawlReport {
  sourceId: string;
  location: string;
  status: CrawlStatus;
  catalogUrl: string | null;
  discoveredVia: DiscoveryMechanism | null;
  /** HTTP status of the root catalog request (304 included); null when none arrived. */
  httpStatus: number | null;
  error: string | null;
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  counts: { total: number; added: number; updated: number; unchanged: number; removed: number; rejected: number };
  /**
   * The server and agent cards fetched for their tools (docs/ingestion.md "Tools"): read, answered 304, failed
   * (their stored tools kept), and left unfetched past CRAWL_MAX_CARDS (theirs kept too).
   */
  cards: { fetched: number; notModified: number; failed: number; overLimit: number };
  /** Rejected entries with reasons, the first MAX_REPORTED_REJECTIONS of them. */
  rejected: RejectedEntry[];
  documents: CrawledDocument[];
  /** Identifiers tombstoned by this crawl (first 100). */
  removed: string[];
}

export const MAX_REPORTED_REJECTIONS = 100;
