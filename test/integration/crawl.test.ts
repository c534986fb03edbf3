/**
 * Web ingestion (ARD §6) against real HTTP on loopback: discovery, nested catalogs, conditional
 * requests, robots.txt, tombstones, the ownership rule and hostile publishers, asserting on what
 * ends up stored.
 */
import { glossFor } from '../../src/catalog/product-glossary';
import { entryEmbeddingTexts } from '../../src/embedding/entry-texts';
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig, type RegistryConfig } from '../../src/config';
import { createContext, type AppContext } from '../../src/context';
import { createWebCrawler, getSource, startCrawlScheduler, upsertSource, type CrawlReport } from '../../src/crawl';
import { listKnownRegistries } from '../../src/catalog/known-registries';
import { getLiveEntry } from '../../src/catalog/entry-repository';
import { withQueryCache, type Embedder } from '../../src/embedding/embedder';
import { UseLiteEmbedder } from '../../src/embedding/use-lite-embedder';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database';
import { createTestCrawlClient, startPublisherServer, type PublisherServer } from '../helpers/publisher-server';

const FIXTURES = path.resolve(__dirname, '..', 'fixtures');
const CORPUS = path.resolve(__dirname, '..', '..', 'data', 'corpus');
const TEST_HOSTS = /(\.test|^acme\.com|^api\.acme\.com|^noaa\.gov)$/;

function entry(publisher: string, name: string, extra: Record<string, unknown> = {}) {
  return {
    identifier: `urn:air:${publisher}:test:${name}`,
    displayName: `${name} tool`,
    type: 'application/mcp-server-card+json',
    url: `https://${publisher}/mcp/${name}.json`,
    description: `The ${name} tool of ${publisher}`,
    ...extra,
  };
}
const manifest = (entries: unknown[], extra: Record<string, unknown> = {}) => ({ specVersion: '1.0', ...extra, entries });

describe('crawler (ARD §6 web ingestion)', () => {
  let database: TestDatabase;
  let ctx: AppContext;
  let server: PublisherServer;
  let embeddedTexts = 0;
  let config: RegistryConfig;

  beforeAll(async () => {
    server = await startPublisherServer();
    database = await createTestDatabase({ withDemoCorpus: true });
    const base = loadConfig();
    config = loadConfig({
      databaseUrl: database.url,
      logLevel: 'silent',
      loadDemoCorpus: false,
      crawlAllowPrivate: true,
      crawl: {
        ...base.crawl,
        hostDelayMs: 0,
        timeoutMs: 1500,
        maxEntries: 10000,
        maxDepth: 3,
        maxBytes: 10 * 1024 * 1024,
        schedulerEnabled: false,
      },
    });
    const model = new UseLiteEmbedder();
    const counting: Embedder = {
      id: model.id,
      dimensions: model.dimensions,
      embed: (texts) => {
        embeddedTexts += texts.length;
        return model.embed(texts);
      },
    };
    ctx = await createContext(config, { embedder: withQueryCache(counting), crawlHttp: createTestCrawlClient((h) => TEST_HOSTS.test(h)) });
  });

  afterAll(async () => {
    await ctx?.destroy();
    await server?.close();
    await database?.drop();
  });

  async function crawl(location: string, options: { trusted?: boolean } = {}): Promise<CrawlReport> {
    const { row } = await upsertSource(ctx.db, { location, intervalSeconds: 3600, trusted: options.trusted });
    return ctx.crawler.crawlNow(String(row.id));
  }

  async function storedRow(identifier: string) {
    return ctx.db.selectFrom('entries').selectAll().where('identifier', '=', identifier).executeTakeFirst();
  }

  function serveSpecExample() {
    const text = fs
      .readFileSync(path.join(FIXTURES, 'ard-spec', 'ai-catalog.json'), 'utf8')
      .replace(/https:\/\/acme\.com\//g, `${server.origin('acme.com')}/`);
    server.route('acme.com', '/.well-known/ai-catalog.json', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(text);
    });
    server.json(
      'acme.com',
      '/catalogs/engineering.json',
      manifest([
        entry('acme.com', 'ci-runner'),
        {
          identifier: 'urn:air:acme.com:catalog:platform',
          displayName: 'Platform team catalog',
          type: 'application/ai-catalog+json',
          data: manifest([entry('acme.com', 'deployer')]),
        },
      ]),
    );
  }

  it('discovers /.well-known/ai-catalog.json and follows nested catalogs by url and by inline data (ARD §6.1, §3.4)', async () => {
    serveSpecExample();
    const report = await crawl(`${server.origin('acme.com')}/`);
    expect(report.status).toBe('ok');
    expect(report.discoveredVia).toBe('well-known');
    expect(report.catalogUrl).toBe(`${server.origin('acme.com')}/.well-known/ai-catalog.json`);
    expect(report.counts).toMatchObject({ total: 7, added: 7, rejected: 0, removed: 0 });
    expect(report.documents.map((d) => [d.url.replace(server.origin('acme.com'), ''), d.status, d.depth])).toEqual([
      ['/.well-known/ai-catalog.json', 'fetched', 0],
      ['/catalogs/engineering.json', 'fetched', 1],
    ]);
    const nested = await storedRow('urn:air:acme.com:test:deployer');
    expect(nested?.origin).toBe(`${server.origin('acme.com')}/catalogs/engineering.json`);
    expect(String(nested?.source_id)).toBe(report.sourceId);
    expect(nested?.deleted_at).toBeNull();
    expect((await storedRow('urn:air:acme.com:agent:assistant'))?.origin).toBe(report.catalogUrl);
    expect(server.userAgents.every((ua) => ua.startsWith('ard-registry/'))).toBe(true);
    expect(server.hits).toContain('acme.com/robots.txt');
  });

  it('discovers /.well-known/ard.json (ARD v0.91 §5.1), ignoring its transport-defined members', async () => {
    const noaa = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'ard-spec', 'noaa-weather-catalog.json'), 'utf8'));
    server.json('noaa.gov', '/.well-known/ard.json', { entries: noaa.entries, host: noaa.host, generator: 'static' });
    const report = await crawl(`${server.origin('noaa.gov')}/`);
    expect(report).toMatchObject({ status: 'ok', discoveredVia: 'ard.json', counts: { added: noaa.entries.length, rejected: 0 } });
    expect((await getLiveEntry(ctx.db, noaa.entries[0].identifier))?.entry.displayName).toBe(noaa.entries[0].displayName);
  });

  it('discovers a catalog from an Agentmap line in robots.txt (ARD §6.1)', async () => {
    server.route('agentmap.test', '/robots.txt', (_req, res) => res.end('User-agent: *\nAllow: /\n\nAgentmap: /catalogs/main.json\n'));
    server.json('agentmap.test', '/catalogs/main.json', manifest([entry('agentmap.test', 'mapped')]));
    const report = await crawl(`${server.origin('agentmap.test')}/`);
    expect(report).toMatchObject({ status: 'ok', discoveredVia: 'agentmap', counts: { added: 1 } });
    expect(await getLiveEntry(ctx.db, 'urn:air:agentmap.test:test:mapped')).not.toBeNull();
  });

  it('discovers a catalog from <link rel="ai-catalog"> in the home page head (ARD §6.1)', async () => {
    server.route('linked.test', '/', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><head><link rel="ai-catalog" href="/ai/catalog.json"></head><body>hi</body></html>');
    });
    server.json('linked.test', '/ai/catalog.json', manifest([entry('linked.test', 'linked')]));
    const report = await crawl(`${server.origin('linked.test')}/`);
    expect(report).toMatchObject({ status: 'ok', discoveredVia: 'html-link', counts: { added: 1 } });
  });

  it('respects robots.txt Disallow: a disallowed catalog is never requested and nothing is stored', async () => {
    server.route('private.test', '/robots.txt', (_req, res) => res.end('User-agent: ard-registry\nDisallow: /\n'));
    server.json('private.test', '/.well-known/ai-catalog.json', manifest([entry('private.test', 'secret')]));
    const report = await crawl(`${server.origin('private.test')}/`);
    expect(report.status).toBe('failed');
    expect(report.error).toMatch(/disallowed by robots\.txt/);
    expect(server.hits.filter((h) => h.startsWith('private.test/.well-known'))).toEqual([]);
    expect(await storedRow('urn:air:private.test:test:secret')).toBeUndefined();
  });

  it('sends conditional requests: 304 rewrites nothing; a change re-embeds only the changed entry', async () => {
    let etag = '"v1"';
    let entries = [entry('etag.test', 'one'), entry('etag.test', 'two')];
    server.route('etag.test', '/.well-known/ai-catalog.json', (req, res) => {
      if (req.headers['if-none-match'] === etag) {
        res.writeHead(304, { etag });
        return res.end();
      }
      res.writeHead(200, { 'content-type': 'application/json', etag });
      res.end(JSON.stringify(manifest(entries)));
    });
    const first = await crawl(`${server.origin('etag.test')}/`);
    expect(first.counts.added).toBe(2);
    const fetchedAt = (await storedRow('urn:air:etag.test:test:one'))?.fetched_at;
    const before = embeddedTexts;

    const second = await crawl(`${server.origin('etag.test')}/`);
    expect(second).toMatchObject({ status: 'not-modified', httpStatus: 304, counts: { added: 0, updated: 0, unchanged: 2, removed: 0 } });
    expect(embeddedTexts).toBe(before);
    expect((await storedRow('urn:air:etag.test:test:one'))?.fetched_at).toEqual(fetchedAt);
    const source = await getSource(ctx.db, second.sourceId);
    expect(source?.etag).toBe('"v1"');

    etag = '"v2"';
    entries = [entry('etag.test', 'one'), entry('etag.test', 'two', { description: 'now with more words' })];
    const third = await crawl(`${server.origin('etag.test')}/`);
    expect(third).toMatchObject({ status: 'ok', counts: { added: 0, updated: 1, unchanged: 1 } });
    // Only the changed entry is embedded again: one text per embedded field it has.
    const changed = await getLiveEntry(ctx.db, 'urn:air:etag.test:test:two');
    expect(changed?.entry.description).toBe('now with more words');
    const fieldsOfChanged = Object.values(entryEmbeddingTexts(changed!.entry, glossFor(changed!.entry))).filter((t) => t !== '').length;
    expect(embeddedTexts - before).toBe(fieldsOfChanged);
  });

  it('tombstones entries gone from a fetched manifest, only for that source, and revives them when they come back', async () => {
    let entries = [entry('tomb.test', 'a'), entry('tomb.test', 'b'), entry('tomb.test', 'c')];
    server.route('tomb.test', '/.well-known/ai-catalog.json', (_req, res) => res.end(JSON.stringify(manifest(entries))));
    server.json('other.tomb.test', '/.well-known/ai-catalog.json', manifest([entry('other.tomb.test', 'neighbour')]));
    await crawl(`${server.origin('other.tomb.test')}/`);
    expect((await crawl(`${server.origin('tomb.test')}/`)).counts.added).toBe(3);

    entries = [entry('tomb.test', 'a'), entry('tomb.test', 'c')];
    const removal = await crawl(`${server.origin('tomb.test')}/`);
    expect(removal).toMatchObject({ status: 'ok', counts: { removed: 1, unchanged: 2 }, removed: ['urn:air:tomb.test:test:b'] });
    const gone = await storedRow('urn:air:tomb.test:test:b');
    expect(gone?.deleted_at).toBeInstanceOf(Date);
    expect(await getLiveEntry(ctx.db, 'urn:air:tomb.test:test:b')).toBeNull();
    expect(await getLiveEntry(ctx.db, 'urn:air:other.tomb.test:test:neighbour')).not.toBeNull();
    // Demo-corpus entries (from files, no source) are never touched by a crawl.
    expect(await getLiveEntry(ctx.db, 'urn:air:github.com:aliyun:alibabacloud-adb-mysql-mcp-server')).not.toBeNull();

    entries = [entry('tomb.test', 'a'), entry('tomb.test', 'b'), entry('tomb.test', 'c')];
    const back = await crawl(`${server.origin('tomb.test')}/`);
    expect(back.counts).toMatchObject({ updated: 1, removed: 0 });
    expect((await storedRow('urn:air:tomb.test:test:b'))?.deleted_at).toBeNull();
  });

  it('rejects invalid entries with a reason while the valid ones land', async () => {
    server.json(
      'mixed.test',
      '/.well-known/ai-catalog.json',
      manifest([
        entry('mixed.test', 'good'),
        { ...entry('mixed.test', 'bad-name'), displayName: 42 },
        { identifier: 'not-a-urn', displayName: 'x', type: 'application/ai-skill', url: 'https://mixed.test/x' },
        { ...entry('mixed.test', 'both'), data: { inline: true } },
        { displayName: 'no identifier', type: 'application/ai-skill', url: 'https://mixed.test/y' },
      ]),
    );
    const report = await crawl(`${server.origin('mixed.test')}/`);
    // An entry without an identifier cannot be told from any stored one: nothing is removed (partial).
    expect(report.status).toBe('partial');
    expect(report.counts).toMatchObject({ total: 5, added: 1, rejected: 4 });
    expect(report.rejected.map((r) => [r.index, r.identifier])).toEqual([
      [1, 'urn:air:mixed.test:test:bad-name'],
      [2, 'not-a-urn'],
      [3, 'urn:air:mixed.test:test:both'],
      [4, null],
    ]);
    expect(report.rejected[0].reason).toMatch(/displayName/);
    expect(report.rejected[1].reason).toMatch(/URN/);
    expect(report.rejected[2].reason).toMatch(/exactly one of "url" or "data"/);
    expect(await getLiveEntry(ctx.db, 'urn:air:mixed.test:test:good')).not.toBeNull();
    expect(await storedRow('urn:air:mixed.test:test:bad-name')).toBeUndefined();
  });

  describe('a failed fetch or parse leaves the previous entries untouched', () => {
    let mode = 'ok';
    beforeAll(async () => {
      server.route('flaky.test', '/.well-known/ai-catalog.json', (req, res) => {
        switch (mode) {
          case 'ok':
            res.writeHead(200, { 'content-type': 'application/json' });
            return res.end(JSON.stringify(manifest([entry('flaky.test', 'kept'), entry('flaky.test', 'also-kept')])));
          case '500':
            res.writeHead(500);
            return res.end('boom');
          case 'invalid-json':
            res.writeHead(200, { 'content-type': 'application/json' });
            return res.end('{"specVersion": "1.0", "entries": [');
          case 'wrong-types':
            res.writeHead(200, { 'content-type': 'application/json' });
            return res.end(JSON.stringify({ specVersion: '1.0', entries: 'none today' }));
          case 'empty-200':
            res.writeHead(200, { 'content-type': 'application/json' });
            return res.end('');
          case 'huge': {
            // 50 MB announced and streamed: the client stops at CRAWL_MAX_BYTES.
            res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(50 * 1024 * 1024) });
            const chunk = Buffer.alloc(1024 * 1024, 0x20);
            let sent = 0;
            const pump = () => {
              while (sent < 50 && res.write(chunk)) sent++;
              if (sent < 50) res.once('drain', pump);
              else res.end();
            };
            return pump();
          }
          case 'never-finishes':
            res.writeHead(200, { 'content-type': 'application/json' });
            res.write('{"specVersion": "1.0", "entries": [');
            return; // never ends
          case 'redirect-loop':
            res.writeHead(302, { location: req.url === '/.well-known/ai-catalog.json' ? '/loop-b' : '/.well-known/ai-catalog.json' });
            return res.end();
          default:
            throw new Error(mode);
        }
      });
      server.route('flaky.test', '/loop-b', (_req, res) => {
        res.writeHead(302, { location: '/.well-known/ai-catalog.json' });
        res.end();
      });
      mode = 'ok';
      expect((await crawl(`${server.origin('flaky.test')}/`)).counts.added).toBe(2);
    });

    it.each([
      ['500', /HTTP 500/],
      ['invalid-json', /not valid JSON/],
      ['wrong-types', /entries must be array/],
      ['empty-200', /not valid JSON/],
      ['huge', /BODY_TOO_LARGE/],
      ['never-finishes', /TIMEOUT/],
      ['redirect-loop', /REDIRECT_LOOP/],
    ])('%s', async (failure, message) => {
      mode = failure;
      const report = await crawl(`${server.origin('flaky.test')}/`);
      expect(report.status).toBe('failed');
      expect(report.error).toMatch(message);
      expect(report.counts).toMatchObject({ added: 0, updated: 0, removed: 0 });
      for (const name of ['kept', 'also-kept']) {
        const row = await storedRow(`urn:air:flaky.test:test:${name}`);
        expect(row?.deleted_at).toBeNull();
      }
      const source = await getSource(ctx.db, report.sourceId);
      expect(source).toMatchObject({ last_status: 'failed', lease_until: null });
      expect(source?.last_error).toMatch(message);
    });
  });

  it('detects a catalog nesting itself (cycle) and stores its entries once', async () => {
    const self = `${server.origin('cycle.test')}/.well-known/ai-catalog.json`;
    server.json(
      'cycle.test',
      '/.well-known/ai-catalog.json',
      manifest([
        entry('cycle.test', 'only'),
        { identifier: 'urn:air:cycle.test:catalog:self', displayName: 'Me again', type: 'application/ai-catalog+json', url: self },
      ]),
    );
    const report = await crawl(`${server.origin('cycle.test')}/`);
    expect(report.status).toBe('ok');
    expect(report.counts.added).toBe(2);
    expect(report.documents.map((d) => d.status)).toEqual(['fetched', 'skipped']);
    expect(report.documents[1].reason).toMatch(/cycle/);
    expect(server.hits.filter((h) => h === 'cycle.test/.well-known/ai-catalog.json')).toHaveLength(1);
  });

  it('stops following nested catalogs past CRAWL_MAX_DEPTH', async () => {
    for (let depth = 0; depth <= 4; depth++) {
      const entries: unknown[] = [entry('deep.test', `level-${depth}`)];
      if (depth < 4) {
        entries.push({
          identifier: `urn:air:deep.test:catalog:c${depth + 1}`,
          displayName: `Level ${depth + 1}`,
          type: 'application/ai-catalog+json',
          url: `${server.origin('deep.test')}/c${depth + 1}.json`,
        });
      }
      server.json('deep.test', depth === 0 ? '/.well-known/ai-catalog.json' : `/c${depth}.json`, manifest(entries));
    }
    const report = await crawl(`${server.origin('deep.test')}/`);
    expect(report.documents.map((d) => [d.depth, d.status])).toEqual([
      [0, 'fetched'],
      [1, 'fetched'],
      [2, 'fetched'],
      [3, 'fetched'],
      [4, 'skipped'],
    ]);
    expect(await getLiveEntry(ctx.db, 'urn:air:deep.test:test:level-3')).not.toBeNull();
    expect(await storedRow('urn:air:deep.test:test:level-4')).toBeUndefined();
    expect(server.hits).not.toContain('deep.test/c4.json');
  });

  it('refuses a source listing 100k entries (over CRAWL_MAX_ENTRIES) and changes nothing', async () => {
    const many = Array.from({ length: 100_000 }, (_, i) => ({
      identifier: `urn:air:big.test:x:e${i}`,
      displayName: `e${i}`,
      type: 'application/ai-skill',
      url: `https://big.test/${i}`,
    }));
    server.json('big.test', '/.well-known/ai-catalog.json', JSON.stringify(manifest(many)));
    const before = embeddedTexts;
    // A body cap large enough for the 100k entries, so the entry limit is what refuses them.
    // (and a deadline that a loaded machine meets for a 9 MB body).
    const big = { ...config, crawl: { ...config.crawl, maxBytes: 30 * 1024 * 1024, timeoutMs: 20000 } };
    const client = createTestCrawlClient((h) => TEST_HOSTS.test(h), { maxBytes: 30 * 1024 * 1024, timeoutMs: 20000 });
    const crawler = createWebCrawler({ db: ctx.db, embedder: ctx.embedder, config: big, logger: ctx.logger }, client);
    const { row } = await upsertSource(ctx.db, { location: `${server.origin('big.test')}/`, intervalSeconds: 3600 });
    const report = await crawler.crawlNow(String(row.id)).finally(() => crawler.close());
    expect(report.status).toBe('failed');
    expect(report.error).toMatch(/CRAWL_MAX_ENTRIES=10000/);
    expect(embeddedTexts).toBe(before);
    const n = await ctx.db
      .selectFrom('entries')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('publisher', '=', 'big.test')
      .executeTakeFirstOrThrow();
    expect(Number(n.n)).toBe(0);
  });

  describe('identifier ownership', () => {
    it('rejects entries whose URN publisher is not the serving host or a parent of it', async () => {
      server.json('evil.test', '/.well-known/ai-catalog.json', manifest([entry('acme.com', 'impostor'), entry('evil.test', 'honest')]));
      const report = await crawl(`${server.origin('evil.test')}/`);
      expect(report.counts).toMatchObject({ added: 1, rejected: 1 });
      expect(report.rejected[0]).toMatchObject({ identifier: 'urn:air:acme.com:test:impostor' });
      expect(report.rejected[0].reason).toMatch(/publisher 'acme\.com' does not match the host serving this catalog \(evil\.test\)/);
      expect(await storedRow('urn:air:acme.com:test:impostor')).toBeUndefined();
    });

    it('accepts a parent-domain publisher from a subdomain', async () => {
      server.json('api.owner.test', '/.well-known/ai-catalog.json', manifest([entry('owner.test', 'from-subdomain')]));
      const report = await crawl(`${server.origin('api.owner.test')}/`);
      expect(report.counts).toMatchObject({ added: 1, rejected: 0 });
    });

    it('skips the rule for a trusted source: a mirror of the corpus lands without re-embedding what is indexed', async () => {
      // The last demo-corpus file: every entry of it is indexed exactly as served here.
      const toolhive = fs.readFileSync(path.join(CORPUS, 'agentfinder-sample-ai-catalog.first33.normalised.json'), 'utf8');
      const count = JSON.parse(toolhive).entries.length as number;
      server.route('mirror.test', '/toolhive.json', (_req, res) => res.end(toolhive));
      const untrusted = await crawl(`${server.origin('mirror.test')}/toolhive.json`);
      expect(untrusted.counts).toMatchObject({ added: 0, rejected: count });

      const before = embeddedTexts;
      const trusted = await crawl(`${server.origin('mirror.test')}/toolhive.json`, { trusted: true });
      expect(trusted).toMatchObject({ status: 'ok', discoveredVia: 'url', counts: { total: count, unchanged: count, rejected: 0 } });
      expect(embeddedTexts).toBe(before);
      const row = await storedRow(JSON.parse(toolhive).entries[0].identifier);
      expect(String(row?.source_id)).toBe(trusted.sourceId);
      expect(row?.origin).toBe(`${server.origin('mirror.test')}/toolhive.json`);
    });

    it('keeps an identifier with the first source that lists it', async () => {
      server.json(
        'first.shared.test',
        '/.well-known/ai-catalog.json',
        manifest([entry('shared.test', 'contested', { description: 'first' })]),
      );
      server.json(
        'second.shared.test',
        '/.well-known/ai-catalog.json',
        manifest([entry('shared.test', 'contested', { description: 'second' })]),
      );
      await crawl(`${server.origin('first.shared.test')}/`);
      const second = await crawl(`${server.origin('second.shared.test')}/`);
      expect(second.counts).toMatchObject({ added: 0, rejected: 1 });
      expect(second.rejected[0].reason).toMatch(/already listed by source/);
      expect((await getLiveEntry(ctx.db, 'urn:air:shared.test:test:contested'))?.entry.description).toBe('first');
    });
  });

  it('keeps other registries as entries and lists them as known peers', async () => {
    server.json(
      'peers.test',
      '/.well-known/ai-catalog.json',
      manifest([
        {
          identifier: 'urn:air:peers.test:registry:main',
          displayName: 'Peers registry',
          type: 'application/ai-registry+json',
          url: 'https://registry.peers.test/',
        },
        {
          identifier: 'urn:air:peers.test:registry:legacy',
          displayName: 'Legacy registry',
          type: 'application/ai-registry',
          url: 'https://old.peers.test/',
        },
      ]),
    );
    await crawl(`${server.origin('peers.test')}/`);
    const known = await listKnownRegistries(ctx.db);
    expect(known.filter((k) => k.identifier.includes('peers.test'))).toEqual([
      {
        identifier: 'urn:air:peers.test:registry:legacy',
        displayName: 'Legacy registry',
        type: 'application/ai-registry',
        url: 'https://old.peers.test/',
        text: 'Legacy registry',
      },
      {
        identifier: 'urn:air:peers.test:registry:main',
        displayName: 'Peers registry',
        type: 'application/ai-registry+json',
        url: 'https://registry.peers.test/',
        text: 'Peers registry',
      },
    ]);
  });

  it('a nested catalog that fails leaves the source partial: valid entries stored, nothing removed', async () => {
    let nestedUp = true;
    server.json(
      'partial.test',
      '/.well-known/ai-catalog.json',
      manifest([
        entry('partial.test', 'root'),
        {
          identifier: 'urn:air:partial.test:catalog:sub',
          displayName: 'Sub',
          type: 'application/ai-catalog+json',
          url: `${server.origin('partial.test')}/sub.json`,
        },
      ]),
    );
    server.route('partial.test', '/sub.json', (_req, res) => {
      res.writeHead(nestedUp ? 200 : 503);
      res.end(nestedUp ? JSON.stringify(manifest([entry('partial.test', 'nested')])) : 'down');
    });
    expect((await crawl(`${server.origin('partial.test')}/`)).counts.added).toBe(3);
    nestedUp = false;
    const report = await crawl(`${server.origin('partial.test')}/`);
    expect(report.status).toBe('partial');
    expect(report.counts.removed).toBe(0);
    expect(await getLiveEntry(ctx.db, 'urn:air:partial.test:test:nested')).not.toBeNull();
  });

  it('schedulers of two processes sharing one database never crawl the same source twice at once', async () => {
    let fetches = 0;
    server.route('sched.test', '/.well-known/ai-catalog.json', (_req, res) => {
      fetches++;
      setTimeout(() => res.end(JSON.stringify(manifest([entry('sched.test', 'ticked')]))), 200);
    });
    const { row } = await upsertSource(ctx.db, { location: `${server.origin('sched.test')}/`, intervalSeconds: 3600 });
    const other = await createContext(config, { embedder: ctx.embedder, crawlHttp: createTestCrawlClient((h) => TEST_HOSTS.test(h)) });
    const a = startCrawlScheduler({ db: ctx.db, crawler: ctx.crawler, config: config.crawl, logger: ctx.logger }, { timer: false });
    const b = startCrawlScheduler({ db: other.db, crawler: other.crawler, config: config.crawl, logger: other.logger }, { timer: false });
    try {
      await Promise.all([a.tick(), b.tick(), a.tick(), b.tick()]);
      expect(fetches).toBe(1);
      const source = await getSource(ctx.db, String(row.id));
      expect(source?.last_status).toBe('ok');
      expect(source?.next_crawl_at.getTime()).toBeGreaterThan(Date.now() + 3000 * 1000);
      await Promise.all([a.tick(), b.tick()]);
      expect(fetches).toBe(1);
    } finally {
      await a.stop();
      await b.stop();
      await other.destroy();
    }
  });
});
