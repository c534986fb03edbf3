import { OutboundError, fetchRobots, parseAgentmapLines, parseRobots } from '../../src/outbound';
import type { HttpClient, OutboundRequest, OutboundResponse } from '../../src/outbound';

const UA = 'ard-registry/0.1 (+https://github.com/example/ard-registry)';

const ROBOTS = `# robots for acme
User-agent: *
Disallow: /private/
Allow: /private/public-page

User-agent: ard-registry
Disallow: /no-ard/
Crawl-delay: 2

Agentmap: https://acme.example/.well-known/ai-catalog.json
agentmap:/catalogs/tools.json   # relative, lower-case directive
AGENTMAP : https://cdn.acme.example/agents.json
Agentmap: ftp://acme.example/not-http.json
Agentmap: https://acme.example/.well-known/ai-catalog.json
Sitemap: https://acme.example/sitemap.xml
`;

describe('parseAgentmapLines', () => {
  it('collects Agentmap lines case-insensitively, resolved, http(s) only, de-duplicated', () => {
    expect(parseAgentmapLines(ROBOTS, 'https://acme.example/robots.txt')).toEqual([
      'https://acme.example/.well-known/ai-catalog.json',
      'https://acme.example/catalogs/tools.json',
      'https://cdn.acme.example/agents.json',
    ]);
  });

  it('ignores commented-out and malformed lines, and handles CRLF', () => {
    const text =
      '# Agentmap: https://a.example/x.json\r\nAgentmap:\r\nAgentmaps: https://a.example/y.json\r\nAgentmap: https://a.example/z.json\r\n';
    expect(parseAgentmapLines(text, 'https://a.example/robots.txt')).toEqual(['https://a.example/z.json']);
  });
});

describe('parseRobots', () => {
  const rules = parseRobots('https://acme.example/robots.txt', ROBOTS, 200);

  it('applies the group of the matching product token, falling back to *', () => {
    expect(rules.isAllowed('https://acme.example/no-ard/page', UA)).toBe(false);
    expect(rules.isAllowed('https://acme.example/no-ard/page', 'OtherBot/1.0')).toBe(true);
    // Our own group replaces *, so /private/ is not disallowed for us.
    expect(rules.isAllowed('https://acme.example/private/x', UA)).toBe(true);
    expect(rules.isAllowed('https://acme.example/private/x', 'OtherBot/1.0')).toBe(false);
    expect(rules.isAllowed('https://acme.example/private/public-page', 'OtherBot/1.0')).toBe(true);
  });

  it('answers false for URLs on another origin', () => {
    expect(rules.isAllowed('https://other.example/anything', UA)).toBe(false);
    expect(rules.isAllowed('http://acme.example/anything', UA)).toBe(false);
    expect(rules.isAllowed('not a url', UA)).toBe(false);
  });

  it('exposes Agentmap, Sitemap and Crawl-delay', () => {
    expect(rules.status).toBe('ok');
    expect(rules.agentmaps()).toHaveLength(3);
    expect(rules.sitemaps()).toEqual(['https://acme.example/sitemap.xml']);
    expect(rules.crawlDelayMs(UA)).toBe(2000);
    expect(rules.crawlDelayMs('OtherBot')).toBeUndefined();
  });
});

function fakeClient(respond: (req: OutboundRequest) => Promise<OutboundResponse>): Pick<HttpClient, 'request'> & {
  requests: OutboundRequest[];
} {
  const requests: OutboundRequest[] = [];
  return {
    requests,
    request: (req) => {
      requests.push(req);
      return respond(req);
    },
  };
}

function response(status: number, body = ''): OutboundResponse {
  return {
    status,
    headers: {},
    body: Buffer.from(body),
    url: 'https://acme.example/robots.txt',
    redirects: [],
    truncated: false,
  };
}

describe('fetchRobots status handling (RFC 9309)', () => {
  const page = 'https://acme.example/page';

  it('fetches /robots.txt of the origin with a size cap and truncation', async () => {
    const client = fakeClient(async () => response(200, 'User-agent: *\nDisallow: /page'));
    const rules = await fetchRobots(client, 'https://acme.example/some/deep/path?q=1');
    expect(client.requests[0]).toMatchObject({ url: 'https://acme.example/robots.txt', maxBytes: 500 * 1024, truncate: true });
    expect(rules.isAllowed(page, UA)).toBe(false);
    expect(rules.isAllowed('https://acme.example/other', UA)).toBe(true);
  });

  it.each([404, 410, 401, 403])('HTTP %i means unavailable: everything allowed', async (status) => {
    const rules = await fetchRobots(
      fakeClient(async () => response(status, '<html>nope</html>')),
      'https://acme.example',
    );
    expect(rules.status).toBe('unavailable');
    expect(rules.httpStatus).toBe(status);
    expect(rules.isAllowed(page, UA)).toBe(true);
    expect(rules.isAllowed('https://elsewhere.example/', UA)).toBe(false);
    expect(rules.agentmaps()).toEqual([]);
  });

  it.each([500, 503, 429])('HTTP %i means unreachable: everything disallowed', async (status) => {
    const rules = await fetchRobots(
      fakeClient(async () => response(status)),
      'https://acme.example',
    );
    expect(rules.status).toBe('unreachable');
    expect(rules.isAllowed(page, UA)).toBe(false);
  });

  it.each(['TIMEOUT', 'NETWORK'] as const)('%s means unreachable', async (code) => {
    const client = fakeClient(async () => {
      throw new OutboundError(code, 'simulated', { url: 'https://acme.example/robots.txt' });
    });
    const rules = await fetchRobots(client, 'https://acme.example');
    expect(rules.status).toBe('unreachable');
    expect(rules.isAllowed(page, UA)).toBe(false);
  });

  it('too many redirects means unavailable', async () => {
    const client = fakeClient(async () => {
      throw new OutboundError('TOO_MANY_REDIRECTS', 'simulated');
    });
    expect((await fetchRobots(client, 'https://acme.example')).status).toBe('unavailable');
  });

  it.each(['BLOCKED_ADDRESS', 'ABORTED', 'CLOSED'] as const)('rethrows %s: there is nothing to crawl', async (code) => {
    const client = fakeClient(async () => {
      throw new OutboundError(code, 'simulated');
    });
    await expect(fetchRobots(client, 'https://acme.example')).rejects.toMatchObject({ code });
  });

  it('rejects an invalid origin with INVALID_URL', async () => {
    await expect(
      fetchRobots(
        fakeClient(async () => response(200)),
        'not an origin',
      ),
    ).rejects.toMatchObject({
      code: 'INVALID_URL',
    });
  });
});
