/**
 * The outbound HTTP client against a real node:http server on 127.0.0.1.
 * Since every test server is on loopback, most clients here set allowPrivateAddresses;
 * the SSRF cases use an allow-list for 127.0.0.1 plus a fake resolver instead.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  BlockedAddressError,
  BodyTooLargeError,
  OutboundError,
  OutboundTimeoutError,
  createAddressPolicy,
  createHttpClient,
} from '../../src/outbound';
import type { HttpClient, OutboundErrorCode, Resolver } from '../../src/outbound';

const UA = 'ard-registry-test/0.1 (+https://example.org/ard-registry)';
const MiB = 1024 * 1024;

interface TestServer {
  origin: string;
  port: number;
  close(): Promise<void>;
}

async function startServer(handler: http.RequestListener): Promise<TestServer> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function expectOutboundError(promise: Promise<unknown>, code: OutboundErrorCode): Promise<OutboundError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(OutboundError);
    expect((err as OutboundError).code).toBe(code);
    return err as OutboundError;
  }
  throw new Error(`expected an OutboundError ${code}, but the request succeeded`);
}

function readRequestBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** What the server saw, per path, for assertions on headers and methods. */
const seen: Array<{ path: string; method: string; headers: http.IncomingHttpHeaders }> = [];
/** Bytes the /huge handler managed to hand to the socket before the client hung up. */
let hugeBytesWritten = 0;
let hugeClosed: Promise<void> = Promise.resolve();
let inFlight = 0;
let maxInFlight = 0;

let server: TestServer;
let client: HttpClient;

async function handler(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://placeholder');
  seen.push({ path: url.pathname, method: req.method ?? '', headers: req.headers });
  const redirect = (status: number, location: string): void => {
    res.writeHead(status, { location });
    res.end();
  };
  switch (url.pathname) {
    case '/hello':
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', etag: '"v1"' });
      res.end('hello, crawler');
      return;
    case '/json':
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ok: true, ua: req.headers['user-agent'] }));
      return;
    case '/not-json':
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"truncated":');
      return;
    case '/search': {
      const body = await readRequestBody(req);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ method: req.method, contentType: req.headers['content-type'], echo: JSON.parse(body) as unknown }));
      return;
    }
    case '/peer-error':
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ errorCode: 'INVALID_QUERY', message: 'bad filter' }));
      return;
    case '/conditional':
      if (req.headers['if-none-match'] === '"v1"') {
        res.writeHead(304, { etag: '"v1"' });
        res.end();
      } else {
        res.writeHead(200, { etag: '"v1"', 'content-type': 'application/json' });
        res.end('{"v":1}');
      }
      return;
    case '/redirect/relative':
      return redirect(302, '../hello');
    case '/redirect/absolute':
      return redirect(301, `${server.origin}/hello`);
    case '/redirect/chain': {
      const n = Number(url.searchParams.get('n'));
      return n > 0 ? redirect(302, `/redirect/chain?n=${n - 1}`) : redirect(302, '/hello');
    }
    case '/redirect/loop-a':
      return redirect(302, '/redirect/loop-b');
    case '/redirect/loop-b':
      return redirect(307, '/redirect/loop-a');
    case '/redirect/self':
      return redirect(302, '/redirect/self');
    case '/redirect/ftp':
      return redirect(302, 'ftp://files.example.org/catalog.json');
    case '/redirect/file':
      return redirect(302, 'file:///etc/passwd');
    case '/redirect/see-other':
      await readRequestBody(req);
      return redirect(303, '/echo-method');
    case '/redirect/keep-method':
      await readRequestBody(req);
      return redirect(307, '/search');
    case '/redirect/to-publisher':
      return redirect(302, `http://publisher.test:${server.port}/echo-method`);
    case '/redirect/to-metadata':
      return redirect(302, 'http://metadata.test/latest/meta-data/');
    case '/redirect/to-loopback-literal':
      return redirect(302, `http://127.0.0.2:${server.port}/hello`);
    case '/redirect/to-localhost':
      return redirect(302, `http://localhost:${server.port}/hello`);
    case '/redirect/to-mapped':
      return redirect(302, `http://[::ffff:10.0.0.1]:${server.port}/hello`);
    case '/echo-method':
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ method: req.method, authorization: req.headers['authorization'] ?? null, host: req.headers.host }));
      return;
    case '/huge': {
      // 50 MB, chunked (no Content-Length), honouring backpressure like a real server.
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      const total = 50 * 1000 * 1000;
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      hugeBytesWritten = 0;
      let aborted = false;
      hugeClosed = new Promise((resolve) =>
        res.once('close', () => {
          aborted = true;
          resolve();
        }),
      );
      while (!aborted && hugeBytesWritten < total) {
        hugeBytesWritten += chunk.length;
        if (!res.write(chunk)) {
          // Wait for drain, or for the client to hang up (then 'drain' never comes).
          await Promise.race([new Promise((resolve) => res.once('drain', resolve)), hugeClosed]);
        }
      }
      res.end();
      return;
    }
    case '/big-announced':
      res.writeHead(200, { 'content-length': String(50 * 1000 * 1000), 'content-type': 'application/json' });
      res.write('{"x":"'); // then stall: the client must not wait for the rest
      return;
    case '/slow-headers':
      // Never answers.
      return;
    case '/stalled-body':
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"partial":');
      return;
    case '/trickle': {
      // One byte every 50 ms forever: never silent long enough for bodyTimeout, so only the total deadline stops it.
      res.writeHead(200, { 'content-type': 'text/plain' });
      const interval = setInterval(() => res.write('.'), 50);
      res.on('close', () => clearInterval(interval));
      return;
    }
    case '/slow-ok': {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      setTimeout(() => {
        inFlight--;
        res.writeHead(200);
        res.end('ok');
      }, 100);
      return;
    }
    default:
      res.writeHead(404);
      res.end('not found');
  }
}

beforeAll(async () => {
  server = await startServer((req, res) => {
    handler(req, res).catch(() => res.destroy());
  });
  client = createHttpClient({
    userAgent: UA,
    allowPrivateAddresses: true,
    connectTimeoutMs: 300,
    headersTimeoutMs: 300,
    bodyTimeoutMs: 300,
    totalTimeoutMs: 2000,
    maxBodyBytes: 1 * MiB,
  });
});

afterAll(async () => {
  await client.close();
  await server.close();
});

beforeEach(() => {
  seen.length = 0;
});

describe('plain requests', () => {
  it('GETs a body with status, headers, final URL and the configured User-Agent', async () => {
    const res = await client.request({ url: `${server.origin}/hello` });
    expect(res.status).toBe(200);
    expect(res.body.toString('utf8')).toBe('hello, crawler');
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.headers['etag']).toBe('"v1"');
    expect(res.url).toBe(`${server.origin}/hello`);
    expect(res.redirects).toEqual([]);
    expect(res.truncated).toBe(false);
    expect(seen[0]?.headers['user-agent']).toBe(UA);
    expect(seen[0]?.headers['accept-encoding']).toBe('identity');
  });

  it('returns non-2xx statuses as responses, not errors', async () => {
    const res = await client.getText(`${server.origin}/missing`);
    expect(res.status).toBe(404);
    expect(res.text).toBe('not found');
  });

  it('getJson parses the body and sends Accept: application/json', async () => {
    const res = await client.getJson(`${server.origin}/json`);
    expect(res.json).toEqual({ ok: true, ua: UA });
    expect(seen[0]?.headers['accept']).toBe('application/json');
  });

  it('getJson rejects a 2xx body that is not JSON with INVALID_JSON', async () => {
    const err = await expectOutboundError(client.getJson(`${server.origin}/not-json`), 'INVALID_JSON');
    expect(err.url).toBe(`${server.origin}/not-json`);
    expect(err.cause).toBeInstanceOf(SyntaxError);
  });

  it('postJson sends JSON and parses the reply', async () => {
    const payload = { query: { text: 'flight booking agent', filter: { tags: ['travel'] } }, pageSize: 5 };
    const res = await client.postJson(`${server.origin}/search`, payload);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ method: 'POST', contentType: 'application/json', echo: payload });
  });

  it('postJson parses an error body from a peer without throwing', async () => {
    const res = await client.postJson(`${server.origin}/peer-error`, { query: {} });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ errorCode: 'INVALID_QUERY', message: 'bad filter' });
  });

  it('passes 304 Not Modified back as a normal response for conditional requests', async () => {
    const res = await client.request({ url: `${server.origin}/conditional`, headers: { 'If-None-Match': '"v1"' } });
    expect(res.status).toBe(304);
    expect(res.body.length).toBe(0);
    expect(res.headers['etag']).toBe('"v1"');
    const fresh = await client.getJson(`${server.origin}/conditional`);
    expect(fresh.status).toBe(200);
    expect(fresh.json).toEqual({ v: 1 });
  });

  it('rejects an invalid URL with INVALID_URL before any I/O', async () => {
    const err = await expectOutboundError(client.request({ url: 'http://exa mple.com/x' }), 'INVALID_URL');
    expect(err.message).toContain('exa mple.com');
    await expectOutboundError(client.request({ url: 'not a url' }), 'INVALID_URL');
    await expectOutboundError(client.request({ url: 'http://user:secret@example.com/' }), 'INVALID_URL');
    expect(seen).toHaveLength(0);
  });

  it.each(['ftp://example.com/catalog.json', 'file:///etc/passwd', 'gopher://example.com/', 'data:text/plain,hi'])(
    'rejects the unsupported scheme of %s with BAD_SCHEME',
    async (url) => {
      await expectOutboundError(client.request({ url }), 'BAD_SCHEME');
    },
  );

  it('limits requests in flight to maxConcurrentRequests', async () => {
    const narrow = createHttpClient({ userAgent: UA, allowPrivateAddresses: true, maxConcurrentRequests: 2 });
    try {
      maxInFlight = 0;
      const results = await Promise.all(Array.from({ length: 6 }, () => narrow.request({ url: `${server.origin}/slow-ok` })));
      expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
      expect(maxInFlight).toBe(2);
    } finally {
      await narrow.close();
    }
  });

  it('lets a caller abort a request still waiting for a slot, and the slot is not lost', async () => {
    const narrow = createHttpClient({ userAgent: UA, allowPrivateAddresses: true, maxConcurrentRequests: 1 });
    try {
      let busyDone = false;
      const busy = narrow.request({ url: `${server.origin}/slow-ok` }).finally(() => (busyDone = true));
      const controller = new AbortController();
      const waiting = narrow.request({ url: `${server.origin}/slow-ok`, signal: controller.signal });
      setImmediate(() => controller.abort());
      await expectOutboundError(waiting, 'ABORTED');
      // Rejected at the abort, not when the busy request (100 ms) handed its slot on.
      expect(busyDone).toBe(false);
      expect((await busy).status).toBe(200);
      maxInFlight = 0;
      const after = await Promise.all([1, 2].map(() => narrow.request({ url: `${server.origin}/slow-ok` })));
      expect(after.map((r) => r.status)).toEqual([200, 200]);
      expect(maxInFlight).toBe(1);
    } finally {
      await narrow.close();
    }
  });

  it('fails with CLOSED after close()', async () => {
    const shortLived = createHttpClient({ userAgent: UA, allowPrivateAddresses: true });
    await shortLived.close();
    await expectOutboundError(shortLived.request({ url: `${server.origin}/hello` }), 'CLOSED');
  });

  it('reports a caller abort as ABORTED', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    await expectOutboundError(client.request({ url: `${server.origin}/slow-headers`, signal: controller.signal }), 'ABORTED');
  });

  it('reports a refused connection as NETWORK with the cause kept', async () => {
    const gone = await startServer(() => undefined);
    const origin = gone.origin;
    await gone.close();
    const err = await expectOutboundError(client.request({ url: `${origin}/x` }), 'NETWORK');
    expect(err.url).toBe(`${origin}/x`);
    expect((err.cause as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
  });
});

describe('redirects', () => {
  it('follows a relative Location against the current URL', async () => {
    const res = await client.getText(`${server.origin}/redirect/relative`);
    expect(res.status).toBe(200);
    expect(res.text).toBe('hello, crawler');
    expect(res.url).toBe(`${server.origin}/hello`);
    expect(res.redirects).toEqual([`${server.origin}/redirect/relative`]);
  });

  it('follows an absolute Location', async () => {
    const res = await client.getText(`${server.origin}/redirect/absolute`);
    expect(res.url).toBe(`${server.origin}/hello`);
    expect(res.redirects).toHaveLength(1);
  });

  it('follows up to maxRedirects hops', async () => {
    const res = await client.getText(`${server.origin}/redirect/chain?n=4`);
    expect(res.status).toBe(200);
    expect(res.redirects).toHaveLength(5);
  });

  it('fails with TOO_MANY_REDIRECTS past maxRedirects', async () => {
    const err = await expectOutboundError(client.getText(`${server.origin}/redirect/chain?n=5`), 'TOO_MANY_REDIRECTS');
    expect(err.message).toContain('more than 5 redirects');
    expect(seen).toHaveLength(6);
    await expectOutboundError(client.request({ url: `${server.origin}/redirect/absolute`, maxRedirects: 0 }), 'TOO_MANY_REDIRECTS');
  });

  it('detects a redirect loop', async () => {
    const err = await expectOutboundError(client.getText(`${server.origin}/redirect/loop-a`), 'REDIRECT_LOOP');
    expect(err.url).toBe(`${server.origin}/redirect/loop-b`);
    expect(seen.map((s) => s.path)).toEqual(['/redirect/loop-a', '/redirect/loop-b']);
    await expectOutboundError(client.getText(`${server.origin}/redirect/self`), 'REDIRECT_LOOP');
  });

  it.each(['/redirect/ftp', '/redirect/file'])('refuses a redirect to a non-http scheme (%s)', async (path) => {
    const err = await expectOutboundError(client.getText(`${server.origin}${path}`), 'BAD_SCHEME');
    expect(seen).toHaveLength(1);
    expect(err.url).toMatch(/^(ftp|file):/);
  });

  it('turns POST into GET on 303 and keeps POST and its body on 307', async () => {
    const seeOther = await client.postJson(`${server.origin}/redirect/see-other`, { a: 1 });
    expect(seeOther.json).toEqual(expect.objectContaining({ method: 'GET' }));
    const kept = await client.postJson(`${server.origin}/redirect/keep-method`, { a: 2 });
    expect(kept.json).toEqual({ method: 'POST', contentType: 'application/json', echo: { a: 2 } });
  });
});

describe('SSRF guard (allow-listed 127.0.0.1 server, fake DNS)', () => {
  const fakeDns: Record<string, string[]> = {
    'publisher.test': ['127.0.0.1'],
    'metadata.test': ['169.254.169.254'],
    'rebind.test': ['127.0.0.1', '10.0.0.7'],
    'internal.test': ['192.168.1.20'],
  };
  const resolver: Resolver = async (hostname) => {
    const answers = fakeDns[hostname];
    if (!answers) throw Object.assign(new Error(`ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return answers.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  let guarded: HttpClient;
  let strict: HttpClient;

  beforeAll(() => {
    // Only the test server's own address is let through; everything else follows the production policy.
    guarded = createHttpClient({
      userAgent: UA,
      addressPolicy: createAddressPolicy({ allow: ['127.0.0.1/32'] }),
      resolver,
      totalTimeoutMs: 2000,
    });
    strict = createHttpClient({ userAgent: UA, resolver, totalTimeoutMs: 2000 });
  });
  afterAll(async () => {
    await guarded.close();
    await strict.close();
  });

  it('connects to the vetted DNS answer, with the original Host header', async () => {
    const res = await guarded.getJson(`http://publisher.test:${server.port}/echo-method`);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ method: 'GET', authorization: null, host: `publisher.test:${server.port}` });
  });

  it('blocks a loopback literal by default (allowPrivateAddresses=false)', async () => {
    const err = await expectOutboundError(strict.getText(`${server.origin}/hello`), 'BLOCKED_ADDRESS');
    expect(err).toBeInstanceOf(BlockedAddressError);
    expect((err as BlockedAddressError).reason).toBe('loopback');
    expect(err.url).toBe(`${server.origin}/hello`);
    expect(seen).toHaveLength(0);
  });

  it.each([
    ['http://2130706433/', 'loopback'],
    ['http://0x7f.1/', 'loopback'],
    ['http://[::1]/', 'loopback'],
    ['http://[::ffff:127.0.0.1]/', 'loopback'],
    ['http://[::ffff:a9fe:a9fe]/latest/meta-data/', 'link-local'],
    ['http://169.254.169.254/latest/meta-data/', 'link-local'],
    ['http://0.0.0.0:8080/', 'unspecified'],
    ['http://100.64.1.1/', 'cgnat'],
    ['http://[fd00::1]/', 'private'],
    ['http://LOCALHOST./', 'local-hostname'],
    ['http://api.localhost/', 'local-hostname'],
  ])('blocks the literal/local destination %s (%s) before any I/O', async (url, reason) => {
    const err = (await expectOutboundError(strict.getText(url), 'BLOCKED_ADDRESS')) as BlockedAddressError;
    expect(err.reason).toBe(reason);
  });

  it('blocks a hostname whose DNS answer is loopback, after resolution', async () => {
    const err = (await expectOutboundError(
      strict.getText(`http://publisher.test:${server.port}/hello`),
      'BLOCKED_ADDRESS',
    )) as BlockedAddressError;
    expect(err.hostname).toBe('publisher.test');
    expect(err.address).toBe('127.0.0.1');
    expect(err.url).toBe(`http://publisher.test:${server.port}/hello`);
    expect(seen).toHaveLength(0);
  });

  it('blocks a name that mixes an allowed and a private answer (rebinding setup)', async () => {
    const err = (await expectOutboundError(
      guarded.getText(`http://rebind.test:${server.port}/hello`),
      'BLOCKED_ADDRESS',
    )) as BlockedAddressError;
    expect(err.address).toBe('10.0.0.7');
    expect(err.reason).toBe('private');
    expect(seen).toHaveLength(0);
  });

  it('blocks a redirect from an allowed host to the metadata address', async () => {
    const err = (await expectOutboundError(
      guarded.getText(`${server.origin}/redirect/to-metadata`),
      'BLOCKED_ADDRESS',
    )) as BlockedAddressError;
    expect(err.reason).toBe('link-local');
    expect(err.address).toBe('169.254.169.254');
    expect(err.url).toBe('http://metadata.test/latest/meta-data/');
  });

  it.each([
    ['/redirect/to-loopback-literal', 'loopback'],
    ['/redirect/to-localhost', 'local-hostname'],
    ['/redirect/to-mapped', 'private'],
  ])('blocks a redirect hop %s (%s)', async (path, reason) => {
    const err = (await expectOutboundError(guarded.getText(`${server.origin}${path}`), 'BLOCKED_ADDRESS')) as BlockedAddressError;
    expect(err.reason).toBe(reason);
    expect(seen.map((s) => s.path)).toEqual([path]);
  });

  it('drops Authorization when a redirect changes origin', async () => {
    const res = await guarded.request({
      url: `${server.origin}/redirect/to-publisher`,
      headers: { Authorization: 'Bearer peer-token' },
    });
    expect(seen[0]?.headers['authorization']).toBe('Bearer peer-token');
    expect(JSON.parse(res.body.toString('utf8'))).toEqual({
      method: 'GET',
      authorization: null,
      host: `publisher.test:${server.port}`,
    });
  });

  it('reports a DNS failure as NETWORK', async () => {
    const err = await expectOutboundError(guarded.getText('http://nowhere.test/'), 'NETWORK');
    expect(err.url).toBe('http://nowhere.test/');
    expect(err.message).toContain('nowhere.test');
  });

  it('times out a DNS lookup that never answers as a connect TIMEOUT', async () => {
    const hanging = createHttpClient({
      userAgent: UA,
      resolver: () => new Promise(() => undefined),
      connectTimeoutMs: 200,
    });
    try {
      const err = await expectOutboundError(hanging.getText('http://slow-dns.test/'), 'TIMEOUT');
      expect((err as OutboundTimeoutError).phase).toBe('connect');
    } finally {
      await hanging.close();
    }
  });
});

describe('body caps', () => {
  it('aborts a 50 MB body at the cap without buffering it', async () => {
    const before = process.memoryUsage();
    const started = Date.now();
    const err = (await expectOutboundError(client.request({ url: `${server.origin}/huge` }), 'BODY_TOO_LARGE')) as BodyTooLargeError;
    expect(err.limitBytes).toBe(1 * MiB);
    expect(err.announced).toBe(false);
    await hugeClosed;
    // Kernel socket buffers take a few MB; the point is the server never got to send 50 MB.
    expect(hugeBytesWritten).toBeLessThan(16 * MiB);
    const after = process.memoryUsage();
    expect(after.heapUsed + after.arrayBuffers - (before.heapUsed + before.arrayBuffers)).toBeLessThan(20 * MiB);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('returns the first maxBytes bytes when truncate is set', async () => {
    const res = await client.request({ url: `${server.origin}/huge`, maxBytes: 1000, truncate: true });
    expect(res.truncated).toBe(true);
    expect(res.body.length).toBe(1000);
    expect(res.body.every((b) => b === 0x61)).toBe(true);
  });

  it('rejects early when Content-Length is over the cap', async () => {
    const started = Date.now();
    const err = (await expectOutboundError(
      client.request({ url: `${server.origin}/big-announced` }),
      'BODY_TOO_LARGE',
    )) as BodyTooLargeError;
    expect(err.announced).toBe(true);
    expect(err.observedBytes).toBe(50 * 1000 * 1000);
    // It did not wait for the stalled body (bodyTimeout is 300 ms).
    expect(Date.now() - started).toBeLessThan(250);
  });

  it('honours a per-request maxBytes', async () => {
    const err = (await expectOutboundError(
      client.request({ url: `${server.origin}/hello`, maxBytes: 5 }),
      'BODY_TOO_LARGE',
    )) as BodyTooLargeError;
    expect(err.limitBytes).toBe(5);
  });
});

describe('timeouts', () => {
  it('times out a server that never sends headers', async () => {
    const started = Date.now();
    const err = (await expectOutboundError(client.request({ url: `${server.origin}/slow-headers` }), 'TIMEOUT')) as OutboundTimeoutError;
    expect(err.phase).toBe('headers');
    expect(err.url).toBe(`${server.origin}/slow-headers`);
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('times out a body that stops arriving', async () => {
    const err = (await expectOutboundError(client.request({ url: `${server.origin}/stalled-body` }), 'TIMEOUT')) as OutboundTimeoutError;
    expect(err.phase).toBe('body');
  });

  it('enforces the overall deadline on a body that trickles forever', async () => {
    const started = Date.now();
    const err = (await expectOutboundError(
      client.request({ url: `${server.origin}/trickle`, timeoutMs: 400 }),
      'TIMEOUT',
    )) as OutboundTimeoutError;
    expect(err.phase).toBe('total');
    expect(err.timeoutMs).toBe(400);
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(390);
    expect(elapsed).toBeLessThan(1500);
  });
});
