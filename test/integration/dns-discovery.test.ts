/**
 * DNS discovery (ARD v0.9 §6.1 "DNS: SVCB records, with an optional fallback to TXT"; v0.91 §5.1
 * `_entries._agents.<domain>`) against a loopback DNS responder and loopback publishers: SVCB and TXT
 * name the catalog, SVCB wins over TXT, the well-known documents win over DNS, and an absent name, a
 * silent, oversized, truncated or garbled answer, or a record leading to a private address is reported.
 */
import type { CatalogEntry } from '../../src/catalog/catalog-entry';
import { getLiveEntry } from '../../src/catalog/entry-repository';
import { createWebCrawler, upsertSource, type CrawlReport } from '../../src/crawl';
import { createAddressPolicy, createDnsClient, createHttpClient, OutboundError } from '../../src/outbound';
import { startDnsResponder, type DnsResponder } from '../helpers/dns-responder';
import { fakeEmbedder } from '../helpers/fake-embedder';
import { crawlPublisher, createTestCrawlClient, startPublisherServer, type PublisherServer } from '../helpers/publisher-server';
import { startTestRegistry, type TestRegistry } from '../helpers/registry';
import { loadConfig, type RegistryConfig } from '../../src/config';

let server: PublisherServer;
let dns: DnsResponder;
let registry: TestRegistry;
let config: RegistryConfig;

const entry = (host: string, name: string): CatalogEntry => ({
  identifier: `urn:air:${host}:tools:${name}`,
  displayName: `${name} tool`,
  type: 'application/mcp-server-card+json',
  url: `https://${host}/mcp/${name}.json`,
  description: `The ${name} tool`,
});
const catalog = (host: string, name: string) => ({ specVersion: '1.0', entries: [entry(host, name)] });
const recordName = (host: string) => `_entries._agents.${host}`;

beforeAll(async () => {
  server = await startPublisherServer();
  dns = await startDnsResponder();
  const base = loadConfig();
  config = {
    ...base,
    crawlAllowPrivate: true,
    trustPollMs: 0,
    crawl: { ...base.crawl, hostDelayMs: 0, dns: { enabled: true, resolver: dns.server, timeoutMs: 300, tries: 1 } },
  };
  registry = await startTestRegistry({
    withDemoCorpus: false,
    config: { crawlAllowPrivate: true, trustPollMs: 0, crawl: config.crawl },
    context: { embedder: fakeEmbedder(), crawlHttp: createTestCrawlClient((h) => h.endsWith('.test')) },
  });
});

afterAll(async () => {
  await registry?.close();
  await dns?.close();
  await server?.close();
});

const crawl = (host: string): Promise<CrawlReport> => crawlPublisher(registry.ctx, server, host);

describe('DNS discovery (ARD v0.9 §6.1, v0.91 §5.1)', () => {
  it('reads the catalog an SVCB record names: its target, port parameter and path parameter', async () => {
    const host = 'svcb.test';
    dns.svcb(recordName(host), [
      { priority: 2, target: '.', path: '/second-choice.json' },
      { priority: 1, target: 'cdn-svcb.test', port: server.port, path: '/catalogs/svcb.json' },
    ]);
    server.json('cdn-svcb.test', '/catalogs/svcb.json', catalog(host, 'from-svcb'));
    const report = await crawl(host);
    expect(report).toMatchObject({
      status: 'ok',
      discoveredVia: 'dns-svcb',
      catalogUrl: `http://cdn-svcb.test:${server.port}/catalogs/svcb.json`,
      counts: { added: 1 },
    });
    expect((await getLiveEntry(registry.ctx.db, `urn:air:${host}:tools:from-svcb`))?.entry.displayName).toBe('from-svcb tool');
    expect(server.hits).not.toContain(`${host}/second-choice.json`);
  });

  it("reads a TXT record's URL when there is no SVCB record, ignoring TXT data that is not one", async () => {
    const host = 'txt.test';
    dns.txt(recordName(host), ['v=spf1 -all', `http://${host}:${server.port}/catalogs/txt.json`]);
    server.json(host, '/catalogs/txt.json', catalog(host, 'from-txt'));
    const report = await crawl(host);
    expect(report).toMatchObject({ status: 'ok', discoveredVia: 'dns-txt', counts: { added: 1 } });
    expect(dns.queries).toEqual(expect.arrayContaining([`${recordName(host)} SVCB`, `${recordName(host)} TXT`]));
  });

  it('prefers SVCB over TXT (TXT is not asked), and the well-known documents over DNS (DNS is not asked)', async () => {
    const both = 'both-dns.test';
    dns.svcb(recordName(both), [{ priority: 1, target: '.', path: '/svcb.json' }]);
    dns.txt(recordName(both), [`http://${both}:${server.port}/txt.json`]);
    server.json(both, '/svcb.json', catalog(both, 'svcb-wins'));
    server.json(both, '/txt.json', catalog(both, 'txt-loses'));
    expect(await crawl(both)).toMatchObject({ status: 'ok', discoveredVia: 'dns-svcb', counts: { added: 1 } });
    expect(dns.queries).not.toContain(`${recordName(both)} TXT`);
    expect(await getLiveEntry(registry.ctx.db, `urn:air:${both}:tools:txt-loses`)).toBeNull();

    const wellKnown = 'well-known-and-dns.test';
    dns.svcb(recordName(wellKnown), [{ priority: 1, target: '.', path: '/svcb.json' }]);
    server.json(wellKnown, '/.well-known/ard.json', { entries: [entry(wellKnown, 'well-known-wins')] });
    server.json(wellKnown, '/svcb.json', catalog(wellKnown, 'dns-loses'));
    expect(await crawl(wellKnown)).toMatchObject({ status: 'ok', discoveredVia: 'ard.json', counts: { added: 1 } });
    expect(dns.queries.some((q) => q.startsWith(recordName(wellKnown)))).toBe(false);
    expect(server.hits).not.toContain(`${wellKnown}/svcb.json`);
  });

  it('skips an SVCB record whose mandatory keys it does not know, and moves on to the home page link when no record exists', async () => {
    const mandatory = 'mandatory.test';
    dns.svcb(recordName(mandatory), [{ priority: 1, target: '.', path: '/m.json', mandatory: [65300] }]);
    server.json(mandatory, '/m.json', catalog(mandatory, 'unreadable'));
    const skipped = await crawl(mandatory);
    expect(skipped.status).toBe('failed');
    expect(skipped.error).toContain('mandatory key65300 is not understood (RFC 9460 §8)');

    const nx = 'nxdomain.test';
    server.route(nx, '/', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><head><link rel="ard" href="/linked.json"></head></html>');
    });
    server.json(nx, '/linked.json', catalog(nx, 'linked'));
    expect(await crawl(nx)).toMatchObject({ status: 'ok', discoveredVia: 'html-link', counts: { added: 1 } });
    expect(dns.queries).toEqual(expect.arrayContaining([`${recordName(nx)} SVCB`, `${recordName(nx)} TXT`]));

    const nothing = 'nothing.test';
    const failed = await crawl(nothing);
    expect(failed.status).toBe('failed');
    expect(failed.error).toContain(`the DNS records of ${recordName(nothing)}: no SVCB or TXT record naming a catalog`);
  });

  it('fails the crawl, changing nothing, when the DNS answer is late, oversized, truncated, garbled or SERVFAIL', async () => {
    const host = 'flaky-dns.test';
    dns.svcb(recordName(host), [{ priority: 1, target: '.', path: '/flaky.json' }]);
    server.json(host, '/flaky.json', catalog(host, 'kept'));
    expect(await crawl(host)).toMatchObject({ status: 'ok', counts: { added: 1 } });
    const expected = {
      silent: /^TIMEOUT: no DNS answer within 300 ms: _entries\._agents\.flaky-dns\.test SVCB from 127\.0\.0\.1/,
      oversized: /^BODY_TOO_LARGE: DNS answer of \d+ bytes, over 4096/,
      truncated: /^BODY_TOO_LARGE: DNS answer truncated/,
      garbage: /^NETWORK: malformed DNS answer/,
      servfail: /^NETWORK: DNS server answered SERVFAIL/,
    } as const;
    for (const [how, error] of Object.entries(expected)) {
      dns.misbehave(recordName(host), how as keyof typeof expected);
      const report = await crawl(host);
      expect({ how, status: report.status, error: report.error }).toEqual({ how, status: 'failed', error: expect.stringMatching(error) });
      // A DNS failure is not "no record": another catalog is not chosen and nothing is removed.
      expect(await getLiveEntry(registry.ctx.db, `urn:air:${host}:tools:kept`)).not.toBeNull();
    }
    dns.misbehave(recordName(host), null);
  });

  it('refuses a record leading to a private address unless CRAWL_ALLOW_PRIVATE', async () => {
    const host = 'private-target.test';
    dns.svcb(recordName(host), [{ priority: 1, target: 'internal.test', port: server.port, path: '/internal.json' }]);
    server.json('internal.test', '/internal.json', catalog(host, 'internal'));
    // The publisher's own origin is on the allow list; internal.test resolves to a private address.
    const guarded = createHttpClient({
      userAgent: 'ard-registry test',
      addressPolicy: createAddressPolicy({ allowPrivateAddresses: false, allow: ['127.0.0.1/32'] }),
      totalTimeoutMs: 1500,
      resolver: async (name) => {
        if (name === 'internal.test') return [{ address: '10.20.30.40', family: 4 }];
        if (name.endsWith('.test')) return [{ address: '127.0.0.1', family: 4 }];
        throw new OutboundError('NETWORK', `test resolver: ${name} is not a test host`);
      },
    });
    const crawler = createWebCrawler(
      {
        db: registry.ctx.db,
        embedder: registry.ctx.embedder,
        config: { ...config, crawlAllowPrivate: false },
        logger: registry.ctx.logger,
      },
      guarded,
    );
    const { row } = await upsertSource(registry.ctx.db, { location: `${server.origin(host)}/`, intervalSeconds: 3600 });
    const report = await crawler.crawlNow(String(row.id)).finally(() => crawler.close());
    expect(report.status).toBe('failed');
    expect(report.error).toMatch(/^BLOCKED_ADDRESS: .*internal\.test resolves to 10\.20\.30\.40/);
    expect(server.hits).not.toContain('internal.test/internal.json');

    // With CRAWL_ALLOW_PRIVATE (the registry's test client), the same record is followed.
    expect(await registry.ctx.crawler.crawlNow(String(row.id))).toMatchObject({
      status: 'ok',
      discoveredVia: 'dns-svcb',
      counts: { added: 1 },
    });
  });
});

describe('the DNS client (src/outbound/dns-client.ts)', () => {
  it('asks again when an answer is lost, up to CRAWL_DNS_TRIES attempts, and stops when the crawl is aborted', async () => {
    const name = recordName('retry.test');
    dns.svcb(name, [{ priority: 1, target: '.', path: '/r.json' }]);
    dns.misbehave(name, 'drop-first');
    const once = createDnsClient({ server: dns.server, timeoutMs: 200, tries: 1 });
    await expect(once.svcb(name)).rejects.toMatchObject({ code: 'TIMEOUT' });
    dns.misbehave(name, 'drop-first');
    const twice = createDnsClient({ server: dns.server, timeoutMs: 200, tries: 2 });
    expect((await twice.svcb(name)).map((r) => [r.priority, r.target, r.params.get(65280)?.toString()])).toEqual([[1, '.', '/r.json']]);
    dns.misbehave(name, 'silent');
    const stop = new AbortController();
    const pending = createDnsClient({ server: dns.server, timeoutMs: 60_000, tries: 1 }).svcb(name, stop.signal);
    stop.abort(new Error('registry stopping'));
    await expect(pending).rejects.toThrow('registry stopping');
    dns.misbehave(name, null);
  });
});
