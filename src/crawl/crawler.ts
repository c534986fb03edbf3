// Crawls one source (ARD §6): discovers its catalog, follows nested catalogs, validates every entry,
// applies the ownership rule, then stores the result in one transaction after all network I/O and
// embedding. A source whose catalog cannot be read keeps everything it had; entries are tombstoned
// only when every document of the source was read, and never while a fetched catalog still lists them
// (valid or not). Whatever a crawl ends with, an exception included, is recorded and releases the lease.
import type { Kysely } from 'kysely';
import pLimit from 'p-limit';
import { canonicalJson, MEDIA_TYPES, type CatalogEntry, type HostInfo } from '../catalog/catalog-entry';
import {
  liveClaimsOfOtherSources,
  liveEntriesOfSource,
  prepareEntry,
  tombstoneMissingFromSource,
  type PreparedEntry,
} from '../catalog/entry-repository';
import { hasToolCard, toolsOfCard } from '../catalog/entry-tools';
import type { ProductGlossary } from '../catalog/product-glossary';
import type { CrawlConfig } from '../config';
import type { Database, SourceRow } from '../db/schema';
import type { Embedder } from '../embedding/embedder';
import { NotFoundError, ServiceUnavailableError } from '../errors';
import { ENTRY_FIELD_LIMITS } from '../catalog/entry-limits';
import { storableJson, storableText } from '../storable-text';
import { ManifestInvalidError, validateManifestInTurns, writeEntries, type BindingMode } from '../ingest/ingest-manifest';
import type { Logger } from '../logger';
import {
  fetchRobots,
  findCatalogLinks,
  isOutboundError,
  type DnsClient,
  type HostLimiter,
  type HttpClient,
  type RobotsRules,
} from '../outbound';
import {
  MAX_REPORTED_REJECTIONS,
  type CrawledDocument,
  type CrawlReport,
  type CrawlStatus,
  type DiscoveryMechanism,
  type RejectedEntry,
} from './crawl-report';
import { createCatalogBodyReader, type CatalogBodyReader, type OversizedParts } from './catalog-body';
import { hasDnsName, lookupDnsCandidates } from './dns-discovery';
import { hostAuthority, ownershipProblem } from './ownership';
import { parseSourceLocation } from './source-location';
import { claimSources, getSource, recordCrawl, releaseLease } from './source-repository';

export interface CrawlerDeps {
  db: Kysely<Database>;
  embedder: Embedder;
  http: HttpClient;
  limiter: HostLimiter;
  config: CrawlConfig;
  logger: Logger;
  /** The product glossary crawled entries are glossed with; default the bundled one. */
  glossary?: ProductGlossary;
  /** TRUST_BINDING: a trust manifest not bound to its publisher is rejected (default) or stored and flagged. */
  binding?: BindingMode;
  /** Reads a domain's DNS discovery records (dns-discovery.ts); absent: no DNS discovery. */
  dns?: DnsClient;
}

export interface CrawlEvents {
  /** A document was fetched, answered 304, failed or was skipped. */
  onDocument?(document: CrawledDocument): void;
  onEmbedProgress?(done: number, total: number): void;
}

export interface CrawlOptions {
  signal?: AbortSignal;
  events?: CrawlEvents;
}

export interface Crawler {
  /**
   * Crawls a source whose lease the caller holds; records the outcome and releases the lease. A crawl that
   * throws is recorded as failed (its error made storable); only a crawl stopped by `options.signal`
   * (shutdown) gives its source back untouched, due again, and rejects.
   */
  crawlClaimed(source: SourceRow, options?: CrawlOptions): Promise<CrawlReport>;
  /** Claims and crawls source `id` now, due or not. NotFoundError; ServiceUnavailableError while another crawl runs. */
  crawlNow(id: string, options?: CrawlOptions): Promise<CrawlReport>;
  /**
   * Claims source `id` and crawls it in the background (the admin API's 202): resolves at once with the
   * claimed row, `started: false` and the current row when a crawl of it already runs. NotFoundError.
   */
  startCrawl(id: string): Promise<{ source: SourceRow; started: boolean }>;
  /** Aborts the background crawls (their sources are released untouched) and waits for them. */
  stop(): Promise<void>;
}

/** A crawl must finish within its lease; the lease is what keeps other processes off the source. */
export const CRAWL_LEASE_SECONDS = 1800;
const CRAWL_DEADLINE_MS = (CRAWL_LEASE_SECONDS - 60) * 1000;
const HTML_MAX_BYTES = 256 * 1024;
/** Largest server or agent card read for its tools: 40 times LiveMCPBench's largest (43 kB, 35 tools with schemas). */
const CARD_MAX_BYTES = 2 * 1024 * 1024;
/** Entries validated or prepared between two turns of the event loop (~20-50 µs each). */
const ENTRIES_PER_TURN = 200;
const JITTER = 0.1;
/** Stands for "robots.txt says no" among optional discovery candidates (451: unavailable for legal reasons). */
const ROBOTS_REFUSED = 451;

/** Runs a crawl's embedding and writing when no other crawl of the process is storing (createCrawler). */
type StoreTurn = <T>(store: () => Promise<T>) => Promise<T>;

/** A failure that ends the crawl with nothing changed. */
class CrawlAbort extends Error {
  constructor(
    message: string,
    readonly httpStatus: number | null = null,
  ) {
    super(message);
  }
}

type Fetched =
  | {
      kind: 'json';
      status: number;
      url: string;
      requested: string;
      json: unknown;
      oversized: OversizedParts;
      etag?: string;
      lastModified?: string;
    }
  | { kind: 'html'; status: number; url: string; text: string }
  | { kind: 'not-modified'; status: number; url: string; requested: string }
  | { kind: 'http-error'; status: number; url: string };

interface QueuedDocument {
  url: string;
  depth: number;
  authorities: Set<string>;
  via: DiscoveryMechanism;
}

export function createCrawler(deps: CrawlerDeps): Crawler {
  const background = new Set<Promise<unknown>>();
  const stopping = new AbortController();
  const bodies = createCatalogBodyReader();
  // The crawls of this process fetch at the same time (CRAWL_CONCURRENCY), and embed and write one at a time: the
  // model takes one core and the writes PostgreSQL's, so two sources stored at once left searches no core (search p99
  // 1.6-2.8x idle per tenth of a 10k crawl, 1.4-1.7x one store at a time, for 11 % fewer entries/s; decision 0042).
  const storeTurn: StoreTurn = pLimit(1);

  async function crawlClaimed(source: SourceRow, options: CrawlOptions = {}): Promise<CrawlReport> {
    const signal = options.signal
      ? AbortSignal.any([options.signal, AbortSignal.timeout(CRAWL_DEADLINE_MS)])
      : AbortSignal.timeout(CRAWL_DEADLINE_MS);
    const session = new CrawlSession(deps, bodies, source, signal, options.events ?? {}, storeTurn);
    let report: CrawlReport;
    let crashed = false;
    try {
      report = await session.run();
    } catch (error) {
      if (options.signal?.aborted) {
        // Stopped (shutdown): give the source back untouched, to be crawled again.
        await releaseLease(deps.db, String(source.id)).catch(() => undefined);
        throw error;
      }
      // A bug, a database failure or the deadline: recorded like any failure, so the source is not
      // claimed again at once to hit the same error lease after lease.
      crashed = true;
      deps.logger.error({ err: error, sourceId: String(source.id) }, 'crawl failed unexpectedly');
      report = session.failedReport(error);
    }
    // What a publisher sent may be quoted in the report (a parse error citing a NUL byte): stored as storable text.
    report = storableJson(report);
    const interval = source.interval_seconds * 1000;
    const nextCrawlAt = new Date(Date.now() + interval * (1 - JITTER + Math.random() * 2 * JITTER));
    const failed = report.status === 'failed';
    try {
      await recordCrawl(deps.db, String(source.id), {
        status: report.status,
        httpStatus: report.httpStatus,
        error: report.error,
        report,
        catalogUrl: failed ? source.catalog_url : report.catalogUrl,
        discoveredVia: failed ? source.discovered_via : report.discoveredVia,
        validators: failed ? source.validators : session.newValidators(),
        nextCrawlAt,
      });
    } catch (error) {
      await releaseLease(deps.db, String(source.id)).catch(() => undefined);
      throw error;
    }
    if (!crashed) {
      deps.logger.info(
        { sourceId: report.sourceId, location: report.location, status: report.status, ...report.counts, error: report.error ?? undefined },
        'source crawled',
      );
    }
    return report;
  }

  async function claim(id: string): Promise<SourceRow | null> {
    const source = await getSource(deps.db, id);
    if (!source) throw new NotFoundError(`no source with id '${storableText(id.slice(0, 40))}'`);
    const [claimed] = await claimSources(deps.db, { limit: 1, leaseSeconds: CRAWL_LEASE_SECONDS, id: String(source.id) });
    return claimed ?? null;
  }

  return {
    crawlClaimed,
    async crawlNow(id, options) {
      const claimed = await claim(id);
      if (!claimed) throw new ServiceUnavailableError(`source ${id} is being crawled right now; retry when that crawl ends`);
      return crawlClaimed(claimed, options);
    },
    async startCrawl(id) {
      const claimed = await claim(id);
      if (!claimed) {
        const running = await getSource(deps.db, id);
        if (!running) throw new NotFoundError(`no source with id '${id}'`);
        return { source: running, started: false };
      }
      const run = crawlClaimed(claimed, { signal: stopping.signal })
        .catch((error: unknown) => {
          if (!stopping.signal.aborted) deps.logger.error({ err: error, sourceId: id }, 'background crawl could not be recorded');
        })
        .finally(() => background.delete(run));
      background.add(run);
      return { source: claimed, started: true };
    },
    async stop() {
      stopping.abort(new Error('registry stopping'));
      await Promise.all([...background]);
      await bodies.close();
    },
  };
}

class CrawlSession {
  private readonly started = new Date();
  private readonly sourceId: string;
  private readonly robots = new Map<string, Promise<RobotsRules>>();
  private readonly documents: CrawledDocument[] = [];
  private readonly rejected: RejectedEntry[] = [];
  private rejectedCount = 0;
  private readonly accepted: PreparedEntry[] = [];
  private readonly kept = new Set<string>();
  private readonly seenIdentifiers = new Set<string>();
  /** Listed by a fetched catalog but not stored by this crawl (invalid, not owned): kept as they were. */
  private readonly listedNotStored = new Set<string>();
  private readonly visited = new Set<string>();
  private readonly validators = new Map<string, { etag?: string; lastModified?: string }>();
  private entriesSeen = 0;
  /** A document of the source could not be read, or an entry listed could not be identified: store what was read, remove nothing. */
  private incomplete = false;
  private stored: Promise<Map<string, CatalogEntry[]>> | null = null;
  private readonly cards = { fetched: 0, notModified: 0, failed: 0, overLimit: 0 };
  /** Entries of /.well-known/ard.json (canonical JSON by identifier): they win over ai-catalog.json's. */
  private readonly ardJsonEntries = new Map<string, string>();

  constructor(
    private readonly deps: CrawlerDeps,
    private readonly bodies: CatalogBodyReader,
    private readonly source: SourceRow,
    private readonly signal: AbortSignal,
    private readonly events: CrawlEvents,
    private readonly storeTurn: StoreTurn,
  ) {
    this.sourceId = String(source.id);
  }

  newValidators(): Record<string, { etag?: string; lastModified?: string }> {
    return Object.fromEntries(this.validators);
  }

  /** The report of a crawl that threw: failed, nothing counted as changed. */
  failedReport(error: unknown): CrawlReport {
    const reason = this.signal.aborted ? 'the crawl did not finish within its lease' : 'internal error';
    const message = error instanceof Error ? error.message : String(error);
    return this.report({ status: 'failed', error: `${reason}: ${message.slice(0, 500)}` });
  }

  async run(): Promise<CrawlReport> {
    let catalogUrl: string | null = null;
    let via: DiscoveryMechanism | null = null;
    let httpStatus: number | null = null;
    try {
      const root = await this.discover();
      catalogUrl = root.fetched.url;
      via = root.via;
      httpStatus = root.fetched.status;
      await this.processDocument({ url: root.fetched.url, depth: 0, authorities: root.authorities, via }, root.fetched, true);
      if (root.companion)
        await this.processDocument(
          { url: root.companion.url, depth: 0, authorities: root.authorities, via: 'well-known' },
          root.companion,
          false,
        );
      const queue = this.pendingQueue;
      while (queue.length > 0) {
        const next = queue.shift() as QueuedDocument;
        await this.readNested(next);
      }
      if (this.documents.every((d) => d.status === 'not-modified' || d.status === 'skipped') && this.accepted.length === 0) {
        return this.report({
          status: 'not-modified',
          catalogUrl,
          via,
          httpStatus,
          counts: { added: 0, updated: 0, unchanged: this.kept.size },
        });
      }
      await this.readCards();
      const { counts, removed } = await this.store();
      return this.report({ status: this.incomplete ? 'partial' : 'ok', catalogUrl, via, httpStatus, counts, removed });
    } catch (error) {
      if (this.signal.aborted && !(error instanceof CrawlAbort)) throw error;
      if (error instanceof CrawlAbort) {
        return this.report({ status: 'failed', catalogUrl, via, httpStatus: error.httpStatus ?? httpStatus, error: error.message });
      }
      if (isOutboundError(error)) {
        return this.report({ status: 'failed', catalogUrl, via, httpStatus, error: `${error.code}: ${error.message}` });
      }
      throw error;
    }
  }

  private readonly pendingQueue: QueuedDocument[] = [];

  // ---- discovery (ARD §6.1) ----

  /**
   * v0.91 §5.1: a consumer MUST fetch /.well-known/ard.json; the predecessor's ai-catalog.json is read
   * too. When both exist, ard.json is the root and ai-catalog.json its companion; an identifier both
   * list is taken from ard.json (readManifest). Then Agentmap lines, then the domain's DNS records
   * (dns-discovery.ts), then <link rel="ard"> and rel="ai-catalog", both followed.
   */
  private async discover(): Promise<{ fetched: Fetched; via: DiscoveryMechanism; authorities: Set<string>; companion?: Fetched }> {
    const location = parseSourceLocation(this.source.location);
    const locationHost = hostAuthority(location.url.href);
    if (!location.discover) {
      const fetched = await this.fetchAllowed(location.url.href, true);
      if (fetched.kind === 'html') {
        const link = findCatalogLinks(fetched.text, fetched.url)[0];
        if (!link)
          throw new CrawlAbort(`${fetched.url} is an HTML page without <link rel="ard"> or <link rel="ai-catalog">`, fetched.status);
        return this.rootFrom(await this.fetchAllowed(link, false), 'html-link', locationHost);
      }
      return this.rootFrom(fetched, 'url', locationHost);
    }
    const origin = location.url.origin;
    const robots = await this.robotsFor(origin);
    const candidates: Array<{ url: string; via: DiscoveryMechanism }> = [
      { url: `${origin}/.well-known/ard.json`, via: 'ard.json' },
      { url: `${origin}/.well-known/ai-catalog.json`, via: 'well-known' },
      ...robots.agentmaps().map((url) => ({ url, via: 'agentmap' as const })),
    ];
    const tried: string[] = [];
    const absent = (fetched: Fetched) =>
      fetched.kind === 'http-error' && fetched.status >= 400 && fetched.status < 500 && fetched.status !== 429;
    const asked = new Set<string>();
    const firstPresent = async (list: Array<{ url: string; via: DiscoveryMechanism }>) => {
      for (const candidate of list) {
        // A DNS record may name a path already tried (an SVCB record for the domain itself, without a path).
        if (asked.has(candidate.url)) continue;
        asked.add(candidate.url);
        const fetched = await this.fetchAllowed(candidate.url, false, true);
        if (!absent(fetched)) return { fetched, via: candidate.via };
        tried.push(`${candidate.url} (${fetched.status === ROBOTS_REFUSED ? 'disallowed by robots.txt' : `HTTP ${fetched.status}`})`);
      }
      return null;
    };
    const found = await firstPresent(candidates);
    if (found) {
      const root = this.rootFrom(found.fetched, found.via, locationHost);
      if (found.via !== 'ard.json') return root;
      const companion = await this.fetchAllowed(candidates[1].url, false, true);
      return absent(companion) ? root : { ...root, companion: this.rootFrom(companion, 'well-known', locationHost).fetched };
    }
    // A DNS failure (timeout, SERVFAIL, a malformed answer) ends the crawl like a 5xx: never another catalog instead.
    let dnsTried = this.deps.dns
      ? 'no DNS discovery for an IP address or a one-label name'
      : 'no DNS discovery (CRAWL_DNS_DISCOVERY=false)';
    if (this.deps.dns && hasDnsName(location.url.hostname)) {
      const lookup = await lookupDnsCandidates(this.deps.dns, location.url, this.signal);
      const named = await firstPresent(lookup.candidates);
      if (named) return this.rootFrom(named.fetched, named.via, locationHost);
      const none = lookup.candidates.length === 0 ? ': no SVCB or TXT record naming a catalog' : '';
      dnsTried = `the DNS records of ${lookup.name}${none}${lookup.skipped.length > 0 ? ` (${lookup.skipped.join('; ')})` : ''}`;
    }
    const page = await this.fetchAllowed(`${origin}/`, true, true);
    if (page.kind === 'html') {
      const link = findCatalogLinks(page.text, page.url)[0];
      if (link) return this.rootFrom(await this.fetchAllowed(link, false), 'html-link', locationHost);
    }
    throw new CrawlAbort(
      `no catalog found for ${this.source.location}: tried ${tried.join(', ') || 'nothing allowed'}, Agentmap lines in robots.txt, ` +
        `${dnsTried}, and <link rel="ard"> or <link rel="ai-catalog"> on ${origin}/`,
    );
  }

  private rootFrom(fetched: Fetched, via: DiscoveryMechanism, locationHost: string) {
    if (fetched.kind === 'http-error') throw new CrawlAbort(`${fetched.url} answered HTTP ${fetched.status}`, fetched.status);
    if (fetched.kind === 'html') throw new CrawlAbort(`${fetched.url} is an HTML page, not an ai-catalog manifest`, fetched.status);
    return { fetched, via, authorities: new Set([locationHost, hostAuthority(fetched.url)]) };
  }

  // ---- documents ----

  private async readNested(doc: QueuedDocument): Promise<void> {
    if (this.visited.has(doc.url)) {
      this.note({ url: doc.url, depth: doc.depth, status: 'skipped', reason: 'cycle: this catalog was already read in this crawl' });
      return;
    }
    if (doc.depth > this.deps.config.maxDepth) {
      this.note({
        url: doc.url,
        depth: doc.depth,
        status: 'skipped',
        reason: `nesting deeper than CRAWL_MAX_DEPTH=${this.deps.config.maxDepth}`,
      });
      return;
    }
    let fetched: Fetched;
    try {
      fetched = await this.fetchAllowed(doc.url, false);
    } catch (error) {
      if (error instanceof CrawlAbort || isOutboundError(error)) {
        if (this.signal.aborted) throw error;
        this.incomplete = true;
        const reason = isOutboundError(error) ? `${error.code}: ${error.message}` : error.message;
        this.note({
          url: doc.url,
          depth: doc.depth,
          status: 'failed',
          reason,
          httpStatus: error instanceof CrawlAbort ? (error.httpStatus ?? undefined) : undefined,
        });
        return;
      }
      throw error;
    }
    if (fetched.kind === 'http-error' || fetched.kind === 'html') {
      this.incomplete = true;
      const reason = fetched.kind === 'html' ? 'an HTML page, not an ai-catalog manifest' : `HTTP ${fetched.status}`;
      this.note({ url: doc.url, depth: doc.depth, status: 'failed', httpStatus: fetched.status, reason });
      return;
    }
    await this.processDocument({ ...doc, authorities: new Set([...doc.authorities, hostAuthority(fetched.url)]) }, fetched, false);
  }

  /** Reads a fetched (200 or 304) document; for the root, an unreadable manifest ends the crawl. */
  private async processDocument(doc: QueuedDocument, fetched: Fetched, isRoot: boolean): Promise<void> {
    this.visited.add(doc.url);
    this.visited.add(fetched.url);
    if (fetched.kind === 'not-modified') {
      const before = (await this.storedByOrigin()).get(fetched.url) ?? [];
      const previous = this.source.validators[fetched.requested];
      if (previous) this.validators.set(fetched.requested, previous);
      for (const entry of before) {
        if (doc.via === 'ard.json') this.ardJsonEntries.set(entry.identifier, canonicalJson(entry));
        this.kept.add(entry.identifier);
        this.seenIdentifiers.add(entry.identifier);
        if (entry.type === MEDIA_TYPES.catalog && typeof entry.url === 'string') this.enqueue(entry.url, fetched.url, doc);
      }
      this.note({ url: fetched.url, depth: doc.depth, status: 'not-modified', httpStatus: fetched.status, entries: before.length });
      return;
    }
    if (fetched.kind !== 'json') throw new Error('unreachable: only JSON and 304 documents are processed');
    // Listed before the catalogs it nests, reported once its entries are counted.
    const noted: CrawledDocument = { url: fetched.url, depth: doc.depth, status: 'fetched', httpStatus: fetched.status, entries: 0 };
    this.documents.push(noted);
    try {
      noted.entries = await this.readManifest(fetched.json, fetched.url, doc, doc.via === 'ard.json', undefined, fetched.oversized);
    } catch (error) {
      if (!(error instanceof ManifestInvalidError)) throw error;
      if (isRoot) throw new CrawlAbort(error.message, fetched.status);
      this.incomplete = true;
      noted.status = 'failed';
      noted.reason = error.message;
      return;
    } finally {
      this.events.onDocument?.(noted);
    }
    const validator = { etag: fetched.etag, lastModified: fetched.lastModified };
    if (validator.etag || validator.lastModified) this.validators.set(fetched.requested, validator);
  }

  /** Validates one manifest (a fetched document or a nested catalog's inline `data`); returns its entry count. */
  private async readManifest(
    raw: unknown,
    docUrl: string,
    doc: QueuedDocument,
    ardJson: boolean,
    parentHost: HostInfo | undefined,
    oversized: OversizedParts = { entries: {} },
  ): Promise<number> {
    if (oversized.host) throw new ManifestInvalidError([oversized.host], docUrl);
    const manifest = ardJson ? normaliseArdJson(raw) : raw;
    const count = Array.isArray((manifest as { entries?: unknown })?.entries) ? (manifest as { entries: unknown[] }).entries.length : 0;
    if (this.entriesSeen + count > this.deps.config.maxEntries) {
      throw new CrawlAbort(
        `the source lists more than CRAWL_MAX_ENTRIES=${this.deps.config.maxEntries} entries (${docUrl} alone has ${count}); nothing was changed`,
      );
    }
    this.entriesSeen += count;
    const { host, valid, rejected } = await validateManifestInTurns(manifest, docUrl, ENTRIES_PER_TURN, oversized.entries, {
      binding: this.deps.binding,
    });
    const effectiveHost = host ?? parentHost;
    for (const problem of rejected) {
      // Still listed, so not gone: what was stored for it stays. Without an identifier nobody can tell
      // which stored entry it was: nothing is removed.
      if (problem.identifier === null) this.incomplete = true;
      else if (problem.identifier.length <= ENTRY_FIELD_LIMITS.identifier) this.listedNotStored.add(problem.identifier);
      this.reject({ url: docUrl, ...problem });
    }
    const indexOf = new Map<CatalogEntry, number>();
    (manifest as { entries: unknown[] }).entries.forEach((e, i) => indexOf.set(e as CatalogEntry, i));
    for (const [position, entry] of valid.entries()) {
      if (position > 0 && position % ENTRIES_PER_TURN === 0) await nextTurn();
      const index = indexOf.get(entry) ?? -1;
      const preferred = doc.via === 'well-known' && !ardJson ? this.ardJsonEntries.get(entry.identifier) : undefined;
      if (preferred !== undefined) {
        // The same entry in both well-known documents is one listing; a different one loses to ard.json.
        if (preferred !== canonicalJson(entry)) {
          this.reject({
            url: docUrl,
            index,
            identifier: entry.identifier,
            reason: 'also listed, differently, in /.well-known/ard.json, which takes precedence (ARD v0.91 §5.1)',
          });
        }
        continue;
      }
      const ownership = this.source.trusted ? null : ownershipProblem(entry.identifier, doc.authorities);
      if (ownership) {
        this.listedNotStored.add(entry.identifier);
        this.reject({ url: docUrl, index, identifier: entry.identifier, reason: ownership });
        continue;
      }
      if (this.seenIdentifiers.has(entry.identifier)) {
        this.reject({
          url: docUrl,
          index,
          identifier: entry.identifier,
          reason: 'duplicate identifier: another catalog of this source already lists it',
        });
        continue;
      }
      this.seenIdentifiers.add(entry.identifier);
      if (ardJson) this.ardJsonEntries.set(entry.identifier, canonicalJson(entry));
      this.accepted.push(
        prepareEntry({ entry, host: effectiveHost, origin: docUrl, fetchedAt: this.started, sourceId: this.sourceId }, this.deps.glossary),
      );
      if (entry.type !== MEDIA_TYPES.catalog) continue;
      if (typeof entry.url === 'string') {
        this.enqueue(entry.url, docUrl, doc);
      } else if (entry.data !== undefined) {
        if (doc.depth + 1 > this.deps.config.maxDepth) {
          this.reject({
            url: docUrl,
            index,
            identifier: entry.identifier,
            reason: `inline catalog not read: nesting deeper than CRAWL_MAX_DEPTH=${this.deps.config.maxDepth}`,
          });
          continue;
        }
        try {
          await this.readManifest(entry.data, docUrl, { ...doc, depth: doc.depth + 1 }, false, effectiveHost);
        } catch (error) {
          if (!(error instanceof ManifestInvalidError)) throw error;
          // Like a nested catalog that cannot be read: what it listed before is kept.
          this.incomplete = true;
          this.reject({
            url: docUrl,
            index,
            identifier: entry.identifier,
            reason: `inline catalog data is not a valid manifest: ${error.problems.slice(0, 3).join('; ')}`,
          });
        }
      }
    }
    return count;
  }

  private enqueue(href: string, base: string, parent: QueuedDocument): void {
    let url: string;
    try {
      const parsed = new URL(href, base);
      parsed.hash = '';
      url = parsed.href;
    } catch {
      return;
    }
    this.pendingQueue.push({ url, depth: parent.depth + 1, authorities: parent.authorities, via: 'url' });
  }

  // ---- fetching ----

  private async robotsFor(origin: string): Promise<RobotsRules> {
    let rules = this.robots.get(origin);
    if (!rules) {
      rules = this.deps.limiter.schedule(
        new URL(origin).host,
        () => fetchRobots(this.deps.http, origin, { signal: this.signal, timeoutMs: this.deps.config.timeoutMs }),
        this.signal,
      );
      this.robots.set(origin, rules);
      const loaded = await rules;
      const delay = loaded.crawlDelayMs(this.deps.http.userAgent);
      if (delay !== undefined) this.deps.limiter.setHostDelay(new URL(origin).host, Math.min(delay, 60_000));
    }
    return rules;
  }

  /**
   * GETs `url` after checking robots.txt, politely, with the conditional headers of the last crawl.
   * `optional`: a robots.txt refusal returns a 403-like http-error instead of ending the crawl.
   */
  private async fetchAllowed(url: string, allowHtml: boolean, optional = false): Promise<Fetched> {
    const target = new URL(url);
    const robots = await this.robotsFor(target.origin);
    if (robots.status === 'unreachable') {
      throw new CrawlAbort(
        `robots.txt of ${target.origin} is unreachable (HTTP ${robots.httpStatus ?? 'no response'}): not crawling it now (RFC 9309 §2.3.1.4)`,
      );
    }
    if (!robots.isAllowed(target.href, this.deps.http.userAgent)) {
      if (optional) return { kind: 'http-error', status: ROBOTS_REFUSED, url: target.href };
      throw new CrawlAbort(`robots.txt of ${target.origin} disallows ${target.href}`);
    }
    const res = await this.conditionalGet(
      target,
      allowHtml
        ? 'application/ai-catalog+json, application/json;q=0.9, text/html;q=0.5'
        : 'application/ai-catalog+json, application/json;q=0.9',
      allowHtml ? Math.max(HTML_MAX_BYTES, this.deps.config.maxBytes) : this.deps.config.maxBytes,
    );
    if (res.status === 304) return { kind: 'not-modified', status: 304, url: res.url, requested: target.href };
    if (res.status < 200 || res.status >= 300) return { kind: 'http-error', status: res.status, url: res.url };
    const html = allowHtml && /html/i.test(res.headers['content-type'] ?? '');
    const body = await this.bodies.read(res.body, { html });
    switch (body.kind) {
      case 'html':
        return { kind: 'html', status: res.status, url: res.url, text: body.text };
      case 'invalid-json':
        throw new CrawlAbort(`${res.url} is not valid JSON: ${body.message}`, res.status);
      case 'json':
        return {
          kind: 'json',
          status: res.status,
          url: res.url,
          requested: target.href,
          json: body.json,
          oversized: body.oversized,
          etag: res.headers.etag,
          lastModified: res.headers['last-modified'],
        };
      default:
        throw new Error(`unreachable: ${(body as { kind: string }).kind}`);
    }
  }

  // ---- cards: the tools of a server or agent whose artifact `url` references ----

  /**
   * The tools of each accepted MCP server or A2A agent entry whose `url` references its card: the card fetched
   * (robots.txt, the host's queue, CARD_MAX_BYTES, conditionally with the last crawl's validators) and read by
   * toolsOfCard. A card that answers 304, cannot be read, or is past CRAWL_MAX_CARDS leaves the stored tools.
   */
  private async readCards(): Promise<void> {
    const referenced = this.accepted.filter((item) => hasToolCard(item.entry.type) && typeof item.entry.url === 'string');
    for (const [position, item] of referenced.entries()) {
      if (position >= this.deps.config.maxCards) {
        this.cards.overLimit++;
        item.keepStoredTools = true;
        continue;
      }
      const card = await this.fetchCard(item.entry.url as string, item.origin, item.entry.type);
      if (card === 'not-modified') this.cards.notModified++;
      else if (card === 'failed') this.cards.failed++;
      else this.cards.fetched++;
      if (typeof card === 'string') item.keepStoredTools = true;
      else item.tools = toolsOfCard(item.entry.type, card.json);
    }
  }

  /** GETs one card; its JSON, or why its stored tools stay. Never ends the crawl, but for the crawl's own abort. */
  private async fetchCard(href: string, base: string, type: string): Promise<{ json: unknown } | 'not-modified' | 'failed'> {
    let target: URL;
    try {
      target = new URL(href, base);
    } catch {
      return 'failed';
    }
    target.hash = '';
    if (target.protocol !== 'https:' && target.protocol !== 'http:') return 'failed';
    try {
      const robots = await this.robotsFor(target.origin);
      if (robots.status === 'unreachable' || !robots.isAllowed(target.href, this.deps.http.userAgent)) return 'failed';
      const res = await this.conditionalGet(target, `${type}, application/json;q=0.9`, Math.min(CARD_MAX_BYTES, this.deps.config.maxBytes));
      const previous = this.source.validators[target.href];
      if (res.status === 304) {
        if (previous) this.validators.set(target.href, previous);
        return 'not-modified';
      }
      if (res.status < 200 || res.status >= 300) return 'failed';
      const body = await this.bodies.read(res.body, { html: false });
      if (body.kind !== 'json') return 'failed';
      const validator = { etag: res.headers.etag, lastModified: res.headers['last-modified'] };
      if (validator.etag || validator.lastModified) this.validators.set(target.href, validator);
      return { json: body.json };
    } catch (error) {
      if (this.signal.aborted) throw error;
      if (isOutboundError(error)) return 'failed';
      throw error;
    }
  }

  /** GET in the host's queue, with the last crawl's validators of `target` (If-None-Match, If-Modified-Since). */
  private conditionalGet(target: URL, accept: string, maxBytes: number) {
    const previous = this.source.validators[target.href];
    const headers: Record<string, string> = { Accept: accept };
    if (previous?.etag) headers['If-None-Match'] = previous.etag;
    if (previous?.lastModified) headers['If-Modified-Since'] = previous.lastModified;
    return this.deps.limiter.schedule(
      target.host,
      () => this.deps.http.request({ url: target, headers, signal: this.signal, maxBytes, timeoutMs: this.deps.config.timeoutMs }),
      this.signal,
    );
  }

  private storedByOrigin(): Promise<Map<string, CatalogEntry[]>> {
    this.stored ??= liveEntriesOfSource(this.deps.db, this.sourceId).then((rows) => {
      const byOrigin = new Map<string, CatalogEntry[]>();
      for (const row of rows) byOrigin.set(row.origin, [...(byOrigin.get(row.origin) ?? []), row.entry]);
      return byOrigin;
    });
    return this.stored;
  }

  // ---- storing ----

  private async store() {
    const claimed = await liveClaimsOfOtherSources(
      this.deps.db,
      this.accepted.map((p) => p.entry.identifier),
      this.sourceId,
    );
    const toWrite = this.accepted.filter((item) => {
      const other = claimed.get(item.entry.identifier);
      if (other === undefined) return true;
      this.reject({
        url: item.origin,
        index: -1,
        identifier: item.entry.identifier,
        reason: `identifier already listed by source ${other}; the first source to list it keeps it`,
      });
      return false;
    });
    // Still listed but invalid (or claimed elsewhere) is not "gone": what was stored for it stays.
    const keep = new Set<string>([
      ...this.kept,
      ...this.seenIdentifiers,
      ...this.listedNotStored,
      ...toWrite.map((p) => p.entry.identifier),
    ]);
    let removed: string[] = [];
    const counts = await this.storeTurn(() => {
      // Stopped or past its lease while another crawl was storing: store nothing (run()'s catch says what to do).
      this.signal.throwIfAborted();
      return writeEntries({ db: this.deps.db, embedder: this.deps.embedder }, toWrite, {
        onProgress: this.events.onEmbedProgress,
        inTransaction: async (trx) => {
          if (!this.incomplete) removed = await tombstoneMissingFromSource(trx, this.sourceId, keep, new Date());
        },
      });
    });
    return { counts: { ...counts, unchanged: counts.unchanged + this.kept.size }, removed };
  }

  // ---- reporting ----

  private note(document: CrawledDocument): void {
    this.documents.push(document);
    this.events.onDocument?.(document);
  }

  private reject(problem: RejectedEntry): void {
    this.rejectedCount++;
    const max = ENTRY_FIELD_LIMITS.identifier;
    const identifier =
      problem.identifier !== null && problem.identifier.length > max ? `${problem.identifier.slice(0, max)}…` : problem.identifier;
    if (this.rejected.length < MAX_REPORTED_REJECTIONS) this.rejected.push({ ...problem, identifier });
  }

  /** What is not given is null (catalog, mechanism, status, error), nothing changed and nothing removed. */
  private report(outcome: {
    status: CrawlStatus;
    catalogUrl?: string | null;
    via?: DiscoveryMechanism | null;
    httpStatus?: number | null;
    error?: string | null;
    counts?: { added: number; updated: number; unchanged: number };
    removed?: string[];
  }): CrawlReport {
    const { status, catalogUrl = null, via = null, httpStatus = null, error = null, removed = [] } = outcome;
    const counts = outcome.counts ?? { added: 0, updated: 0, unchanged: 0 };
    const finished = new Date();
    return {
      sourceId: this.sourceId,
      location: this.source.location,
      status,
      catalogUrl,
      discoveredVia: via,
      httpStatus,
      error,
      startedAt: this.started.toISOString(),
      finishedAt: finished.toISOString(),
      durationMs: finished.getTime() - this.started.getTime(),
      counts: { total: this.entriesSeen + this.kept.size, ...counts, removed: removed.length, rejected: this.rejectedCount },
      cards: { ...this.cards },
      rejected: this.rejected,
      documents: this.documents,
      removed: removed.slice(0, 100),
    };
  }
}

function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * ARD v0.91 `/.well-known/ard.json`: an `entries` array; other top-level members are transport-defined
 * and ignored. Read as a v0.9 manifest so every entry goes through the same validation.
 */
function normaliseArdJson(raw: unknown): unknown {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return raw;
  const doc = raw as Record<string, unknown>;
  return { specVersion: '1.0', ...(doc.host !== undefined ? { host: doc.host } : {}), entries: doc.entries };
}
