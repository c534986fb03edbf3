// Web ingestion (ARD §6): see docs/ingestion.md.
import type { Kysely } from 'kysely';
import type { ProductGlossary } from '../catalog/product-glossary';
import type { RegistryConfig } from '../config';
import type { Database } from '../db/schema';
import type { Embedder } from '../embedding/embedder';
import type { Logger } from '../logger';
import {
  createDnsClient,
  createHostLimiter,
  createHttpClient,
  HTTP_CLIENT_DEFAULTS,
  type DnsClient,
  type HostLimiter,
  type HttpClient,
} from '../outbound';
import { createCrawler, type Crawler } from './crawler';

export { createCrawler, CRAWL_LEASE_SECONDS } from './crawler';
export type { Crawler, CrawlEvents, CrawlOptions } from './crawler';
export type { CrawlReport, CrawledDocument, CrawlStatus, RejectedEntry } from './crawl-report';
export { startCrawlScheduler, type CrawlScheduler } from './scheduler';
export { parseSourceLocation } from './source-location';
export { DNS_ENTRIES_LABEL, SVCB_PATH_KEY } from './dns-discovery';
export * from './source-repository';

/** The crawler's HTTP client: the configured User-Agent, body cap, deadlines and address policy. */
export function createCrawlHttpClient(config: RegistryConfig): HttpClient {
  const phase = (fallback: number) => Math.min(fallback, config.crawl.timeoutMs);
  return createHttpClient({
    userAgent: config.crawl.userAgent,
    allowPrivateAddresses: config.crawlAllowPrivate,
    maxBodyBytes: config.crawl.maxBytes,
    totalTimeoutMs: config.crawl.timeoutMs,
    connectTimeoutMs: phase(HTTP_CLIENT_DEFAULTS.connectTimeoutMs),
    headersTimeoutMs: phase(HTTP_CLIENT_DEFAULTS.headersTimeoutMs),
    bodyTimeoutMs: phase(HTTP_CLIENT_DEFAULTS.bodyTimeoutMs),
  });
}

/** The DNS client of DNS discovery (CRAWL_DNS_*); null when CRAWL_DNS_DISCOVERY is off. */
export function createCrawlDnsClient(config: RegistryConfig): DnsClient | null {
  const dns = config.crawl.dns;
  return dns.enabled ? createDnsClient({ server: dns.resolver, timeoutMs: dns.timeoutMs, tries: dns.tries }) : null;
}

/** The crawler with its own HTTP client and politeness limiter (shared with the liveness probes); `close()` releases both. */
export function createWebCrawler(
  deps: { db: Kysely<Database>; embedder: Embedder; config: RegistryConfig; logger: Logger; glossary?: ProductGlossary },
  http: HttpClient = createCrawlHttpClient(deps.config),
): Crawler & { http: HttpClient; limiter: HostLimiter; close(): Promise<void> } {
  const limiter = createHostLimiter({ minDelayMs: deps.config.crawl.hostDelayMs, maxConcurrentPerHost: 1 });
  const crawler = createCrawler({
    db: deps.db,
    embedder: deps.embedder,
    http,
    limiter,
    config: deps.config.crawl,
    logger: deps.logger,
    glossary: deps.glossary,
    binding: deps.config.trustBinding,
    dns: createCrawlDnsClient(deps.config) ?? undefined,
  });
  return {
    ...crawler,
    http,
    limiter,
    async close() {
      await crawler.stop();
      limiter.clear();
      await http.close();
    },
  };
}
