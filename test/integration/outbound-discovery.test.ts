/**
 * Crawler discovery over real HTTP: robots.txt (Disallow, Agentmap, redirects, 5xx)
 * and <link rel="ai-catalog"> pages, fetched through the outbound client.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHttpClient, fetchRobots, findCatalogLinks } from '../../src/outbound';
import type { HttpClient } from '../../src/outbound';

const UA = 'ard-registry/0.1 (+https://github.com/example/ard-registry)';

function startServer(handler: http.RequestListener): Promise<{ origin: string; close(): Promise<void> }> {
  const server = http.createServer(handler);
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        origin: `http://127.0.0.1:${port}`,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    }),
  );
}

describe('robots.txt and catalog link discovery', () => {
  let publisher: Awaited<ReturnType<typeof startServer>>;
  let broken: Awaited<ReturnType<typeof startServer>>;
  let empty: Awaited<ReturnType<typeof startServer>>;
  let moved: Awaited<ReturnType<typeof startServer>>;
  let client: HttpClient;

  beforeAll(async () => {
    publisher = await startServer((req, res) => {
      switch (req.url) {
        case '/robots.txt':
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.end(
            [
              'User-agent: *',
              'Disallow: /admin/',
              '',
              'User-agent: ard-registry',
              'Disallow: /drafts/',
              'Crawl-delay: 1.5',
              '',
              'Agentmap: /.well-known/ai-catalog.json',
              'Agentmap: https://catalogs.example/acme.json',
            ].join('\n'),
          );
          return;
        case '/':
          res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
          res.end(
            '<!doctype html><html><head><meta charset="utf-8"><title>Acme</title>' +
              '<link rel="preload ai-catalog" href="/catalog/ai-catalog.json">' +
              '</head><body><link rel="ai-catalog" href="/ignored.json"></body></html>',
          );
          return;
        default:
          res.writeHead(404);
          res.end();
      }
    });
    broken = await startServer((_req, res) => {
      res.writeHead(503);
      res.end('maintenance');
    });
    empty = await startServer((_req, res) => {
      res.writeHead(404);
      res.end();
    });
    moved = await startServer((req, res) => {
      // robots.txt moved to the publisher: its rules still govern this origin (RFC 9309 §2.3.1.2).
      res.writeHead(301, { location: `${publisher.origin}/robots.txt` });
      res.end();
    });
    client = createHttpClient({ userAgent: UA, allowPrivateAddresses: true, totalTimeoutMs: 2000 });
  });

  afterAll(async () => {
    await client.close();
    await Promise.all([publisher.close(), broken.close(), empty.close(), moved.close()]);
  });

  it('reads Disallow rules for our product token and the Agentmap lines', async () => {
    const rules = await fetchRobots(client, publisher.origin);
    expect(rules.status).toBe('ok');
    expect(rules.url).toBe(`${publisher.origin}/robots.txt`);
    expect(rules.isAllowed(`${publisher.origin}/drafts/x.json`, UA)).toBe(false);
    expect(rules.isAllowed(`${publisher.origin}/.well-known/ai-catalog.json`, UA)).toBe(true);
    expect(rules.isAllowed(`${publisher.origin}/admin/`, 'SomeOtherBot/2.0')).toBe(false);
    expect(rules.agentmaps()).toEqual([`${publisher.origin}/.well-known/ai-catalog.json`, 'https://catalogs.example/acme.json']);
    expect(rules.crawlDelayMs(UA)).toBe(1500);
  });

  it('treats a missing robots.txt (404) as allow-all', async () => {
    const rules = await fetchRobots(client, empty.origin);
    expect(rules.status).toBe('unavailable');
    expect(rules.isAllowed(`${empty.origin}/anything`, UA)).toBe(true);
  });

  it('treats a 5xx robots.txt as disallow-all for now', async () => {
    const rules = await fetchRobots(client, broken.origin);
    expect(rules.status).toBe('unreachable');
    expect(rules.httpStatus).toBe(503);
    expect(rules.isAllowed(`${broken.origin}/.well-known/ai-catalog.json`, UA)).toBe(false);
  });

  it('follows a redirected robots.txt and applies it to the original origin', async () => {
    const rules = await fetchRobots(client, moved.origin);
    expect(rules.status).toBe('ok');
    expect(rules.isAllowed(`${moved.origin}/drafts/a`, UA)).toBe(false);
    expect(rules.isAllowed(`${moved.origin}/public`, UA)).toBe(true);
  });

  it('discovers <link rel="ai-catalog"> on a fetched page, resolved against the final URL', async () => {
    const page = await client.getText(`${publisher.origin}/`);
    expect(findCatalogLinks(page.text, page.url)).toEqual([`${publisher.origin}/catalog/ai-catalog.json`]);
  });
});
