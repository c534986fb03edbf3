/**
 * ARD v0.91 §5.1 consumer resolution against loopback publishers: /.well-known/ard.json is read even
 * when /.well-known/ai-catalog.json exists (an identifier both list is taken from ard.json), and a
 * `<link rel="ard">` on the home page is followed.
 */
import type { CatalogEntry } from '../../src/catalog/catalog-entry';
import type { CrawlReport } from '../../src/crawl';
import { getLiveEntry } from '../../src/catalog/entry-repository';
import { fakeEmbedder } from '../helpers/fake-embedder';
import { crawlPublisher, createTestCrawlClient, startPublisherServer, type PublisherServer } from '../helpers/publisher-server';
import { startTestRegistry, type TestRegistry } from '../helpers/registry';

let server: PublisherServer;
let registry: TestRegistry;

const entry = (host: string, name: string, description = `The ${name} tool`): CatalogEntry => ({
  identifier: `urn:air:${host}:tools:${name}`,
  displayName: `${name} tool`,
  type: 'application/mcp-server-card+json',
  url: `https://${host}/mcp/${name}.json`,
  description,
});

beforeAll(async () => {
  server = await startPublisherServer();
  registry = await startTestRegistry({
    withDemoCorpus: false,
    config: { crawlAllowPrivate: true, trustPollMs: 0 },
    context: { embedder: fakeEmbedder(), crawlHttp: createTestCrawlClient((h) => h.endsWith('.test')) },
  });
});

afterAll(async () => {
  await registry?.close();
  await server?.close();
});

const crawl = (host: string): Promise<CrawlReport> => crawlPublisher(registry.ctx, server, host);

describe('consumer resolution (ARD v0.91 §5.1)', () => {
  it('reads /.well-known/ard.json and /.well-known/ai-catalog.json; ard.json wins an identifier both list', async () => {
    const host = 'both.test';
    server.json(host, '/.well-known/ard.json', {
      entries: [entry(host, 'shared', 'from ard.json'), entry(host, 'same'), entry(host, 'ard-only')],
    });
    server.json(host, '/.well-known/ai-catalog.json', {
      specVersion: '1.0',
      entries: [entry(host, 'shared', 'from ai-catalog.json'), entry(host, 'same'), entry(host, 'legacy-only')],
    });
    const report = await crawl(host);
    expect(report).toMatchObject({ status: 'ok', discoveredVia: 'ard.json', catalogUrl: `${server.origin(host)}/.well-known/ard.json` });
    expect(report.documents.map((d) => [new URL(d.url).pathname, d.status])).toEqual([
      ['/.well-known/ard.json', 'fetched'],
      ['/.well-known/ai-catalog.json', 'fetched'],
    ]);
    expect(report.counts).toMatchObject({ added: 4, rejected: 1 });
    // An identical copy is one listing; a different one is reported and loses.
    expect(report.rejected).toEqual([
      expect.objectContaining({
        identifier: `urn:air:${host}:tools:shared`,
        reason: expect.stringContaining('takes precedence (ARD v0.91 §5.1)'),
      }),
    ]);
    expect((await getLiveEntry(registry.ctx.db, `urn:air:${host}:tools:shared`))?.entry.description).toBe('from ard.json');
    expect(await getLiveEntry(registry.ctx.db, `urn:air:${host}:tools:legacy-only`)).not.toBeNull();
    expect(await getLiveEntry(registry.ctx.db, `urn:air:${host}:tools:ard-only`)).not.toBeNull();
  });

  it('follows <link rel="ard"> on the home page when no well-known document exists', async () => {
    const host = 'linked-ard.test';
    server.route(host, '/', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><head><link rel="ard" href="/entries/ard.json"></head><body>hi</body></html>');
    });
    server.json(host, '/entries/ard.json', { specVersion: '1.0', entries: [entry(host, 'linked')] });
    const report = await crawl(host);
    expect(report).toMatchObject({ status: 'ok', discoveredVia: 'html-link', counts: { added: 1 } });
  });
});
