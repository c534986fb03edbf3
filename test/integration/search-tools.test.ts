// Search sees tools (docs/relevance.md "Tools", docs/ingestion.md "Tools"): a tool's description is indexed
// beside the entry, POST /search names the tools a query matched in `@matchedTools`, and the crawler reads the
// tools of a server card an entry's `url` references, refreshed when the entry is crawled again. Real
// PostgreSQL, the demo corpus beside, a loopback publisher.
import { storedTools } from '../../src/catalog/entry-tools';
import { loadConfig } from '../../src/config';
import { upsertSource } from '../../src/crawl';
import { ingestManifest } from '../../src/ingest/ingest-manifest';
import { createTestCrawlClient, startPublisherServer, type PublisherServer } from '../helpers/publisher-server';
import { startTestRegistry, type TestRegistry } from '../helpers/registry';

const MCP = 'application/mcp-server-card+json';

let registry: TestRegistry;
let server: PublisherServer;

beforeAll(async () => {
  server = await startPublisherServer();
  const base = loadConfig();
  registry = await startTestRegistry({
    config: { crawlAllowPrivate: true, crawl: { ...base.crawl, hostDelayMs: 0, timeoutMs: 1500, schedulerEnabled: false } },
    context: { crawlHttp: createTestCrawlClient((host) => host.endsWith('.test')) },
  });
});
afterAll(async () => {
  await registry?.close();
  await server?.close();
});

interface Result {
  identifier: string;
  score: number;
  source: string;
  '@matchedTools': string[];
  [term: string]: unknown;
}

async function search(text: string): Promise<Result[]> {
  const response = await registry.post('/search', { query: { text }, pageSize: 10, federation: 'none' });
  expect(response.status).toBe(200);
  return response.body.results as Result[];
}

/** Ingests `entries` as one manifest, as a file or admin upload would. */
function ingest(entries: unknown[]) {
  return ingestManifest(
    { db: registry.ctx.db, embedder: registry.ctx.embedder },
    { specVersion: '1.0', entries },
    { origin: 'test:search-tools' },
  );
}

async function storedToolsOf(identifier: string) {
  const row = await registry.ctx.db.selectFrom('entries').select('tools').where('identifier', '=', identifier).executeTakeFirstOrThrow();
  return storedTools(row.tools);
}

// ARD v0.91 §4.3 (value or reference: the card inline in `data`), §5.3 (a result is the entry, the registry's
// additions beside it).
it('finds a server by what a tool description says, names that tool, and serves the entry unchanged (ARD v0.91 §4.3, §5.3)', async () => {
  const card = {
    name: 'harbour-ledger',
    tools: [
      { name: 'hl_open', description: 'Open a ledger by its account number.', inputSchema: { type: 'object' } },
      { name: 'hl_sync', description: 'Reconcile vendor invoices against bank statements and flag mismatches.' },
    ],
  };
  const ledger = { type: MCP, description: 'Bookkeeping for small harbours and marinas.', capabilities: ['hl_open', 'hl_sync'] };
  const withCard = { identifier: 'urn:air:ledger.test:mcp:harbour-ledger', displayName: 'Harbour Ledger', ...ledger, data: card };
  // The same server without its card: the tool names alone do not say "invoices".
  const withoutCard = {
    identifier: 'urn:air:ledger.test:mcp:harbour-ledger-lite',
    displayName: 'Harbour Ledger Lite',
    ...ledger,
    url: 'https://ledger.test/lite.json',
  };
  const report = await ingest([withCard, withoutCard]);
  expect(report.rejected).toEqual([]);
  expect(await storedToolsOf(withCard.identifier)).toEqual([
    { name: 'hl_open', description: 'Open a ledger by its account number.' },
    { name: 'hl_sync', description: 'Reconcile vendor invoices against bank statements and flag mismatches.' },
  ]);

  const results = await search('reconcile vendor invoices');
  const found = results.find((r) => r.identifier === withCard.identifier);
  expect(found).toBeDefined();
  expect(found!['@matchedTools']).toEqual(['hl_sync']);
  expect(results.map((r) => r.identifier)).not.toContain(withoutCard.identifier);
  // The entry as published, the registry's additions beside it.
  const { score, source, '@matchedTools': matched, ...entry } = found!;
  expect(entry).toEqual(withCard);
  expect([typeof score, source, matched.length]).toEqual(['number', 'http://registry.test/', 1]);

  // A result whose tools the text does not touch names none.
  const byName = (await search('harbour ledger')).find((r) => r.identifier === withoutCard.identifier);
  expect(byName?.['@matchedTools']).toEqual([]);
});

// A2A AgentSkill: `tags` and `examples` say in users' words what a skill is for.
it("finds an agent by the words of its skills' tags and examples, and names the skill", async () => {
  const agent = {
    identifier: 'urn:air:fleet.test:agent:quay-planner',
    displayName: 'Quay Planner',
    type: 'application/a2a-agent-card+json',
    description: 'Plans work for port operators.',
    data: {
      name: 'Quay Planner',
      skills: [
        {
          id: 'berths',
          name: 'Berth allocation',
          description: 'Assigns berths.',
          tags: ['stevedoring'],
          examples: ['which gantry cranes are idle tonight'],
        },
      ],
    },
  };
  const report = await ingest([agent]);
  expect(report.rejected).toEqual([]);
  expect(await storedToolsOf(agent.identifier)).toEqual([
    { name: 'Berth allocation', description: 'Assigns berths. Tags: stevedoring. Examples: which gantry cranes are idle tonight.' },
  ]);
  for (const text of ['stevedoring', 'idle gantry cranes']) {
    const found = (await search(text)).find((r) => r.identifier === agent.identifier);
    expect(found?.['@matchedTools']).toEqual(['Berth allocation']);
  }
});

// ARD §6 (web ingestion), v0.91 §4.3 (`url` references the artifact, here a server card).
it('stores the tools of a crawled server card and refreshes them when the entry is crawled again (ARD §6, v0.91 §4.3)', async () => {
  const host = 'cards.test';
  const entry = {
    identifier: `urn:air:${host}:mcp:tide-tables`,
    displayName: 'Tide Tables',
    type: MCP,
    url: `${server.origin(host)}/mcp/tide-tables.json`,
    description: 'Tide times for coastal towns.',
  };
  server.json(host, '/.well-known/ai-catalog.json', { specVersion: '1.0', entries: [entry] });
  const serveCard = (tools: unknown[], etag: string) =>
    server.json(host, '/mcp/tide-tables.json', { name: 'tide-tables', tools }, { etag });
  serveCard([{ name: 'tides_for_port', description: 'Predict high and low water for a harbour on a given date.' }], '"v1"');
  const { row } = await upsertSource(registry.ctx.db, { location: `${server.origin(host)}/`, intervalSeconds: 3600 });
  const crawl = () => registry.ctx.crawler.crawlNow(String(row.id));

  const first = await crawl();
  expect([first.status, first.counts.added, first.cards]).toEqual(['ok', 1, { fetched: 1, notModified: 0, failed: 0, overLimit: 0 }]);
  expect(await storedToolsOf(entry.identifier)).toEqual([
    { name: 'tides_for_port', description: 'Predict high and low water for a harbour on a given date.' },
  ]);
  const found = (await search('predict high water')).find((r) => r.identifier === entry.identifier);
  expect(found?.['@matchedTools']).toEqual(['tides_for_port']);
  expect(found).not.toHaveProperty('data');

  // The card changes, the entry does not: the tools follow the card, the entry stays as it was.
  serveCard([{ name: 'surf_forecast', description: 'Forecast swell height and period for surfing beaches.' }], '"v2"');
  const second = await crawl();
  expect([second.status, second.counts.unchanged, second.cards.fetched]).toEqual(['ok', 1, 1]);
  expect(await storedToolsOf(entry.identifier)).toEqual([
    { name: 'surf_forecast', description: 'Forecast swell height and period for surfing beaches.' },
  ]);
  expect((await search('swell height forecast')).find((r) => r.identifier === entry.identifier)?.['@matchedTools']).toEqual([
    'surf_forecast',
  ]);
  expect((await search('predict high water')).map((r) => r.identifier)).not.toContain(entry.identifier);

  // Unchanged (304 to the last crawl's ETag), then unreadable: the stored tools stay.
  const third = await crawl();
  expect(third.cards).toEqual({ fetched: 0, notModified: 1, failed: 0, overLimit: 0 });
  server.route(host, '/mcp/tide-tables.json', (_req, res) => {
    res.writeHead(500);
    res.end();
  });
  const fourth = await crawl();
  expect(fourth.cards).toEqual({ fetched: 0, notModified: 0, failed: 1, overLimit: 0 });
  expect((await storedToolsOf(entry.identifier)).map((t) => t.name)).toEqual(['surf_forecast']);
  expect(server.hits.filter((h) => h === `${host}/mcp/tide-tables.json`)).toHaveLength(4);
});
