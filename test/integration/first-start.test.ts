// The first start on a new embedded folder: listening from the start, /healthz 200, /readyz 503
// {"status":"loading","indexed":n,"of":m} and search 503 UNAVAILABLE with Retry-After until the demo corpus
// (with its prebuilt vectors) is indexed; then ready, GET / and the OpenAPI document served, non-JSON POST 415.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startRegistry, type RunningRegistry } from '../../src/server';
import { embeddedTestConfig } from '../helpers/embedded-config';

let dataDir: string;
let registry: RunningRegistry | undefined;
const duringLoad: Array<{ path: string; status: number; body: any; retryAfter: string | null }> = [];

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ard-first-start-'));
  const config = embeddedTestConfig(dataDir, {
    loadDemoCorpus: true,
    // The loading path itself: the prepared demo database (prepared-demo-database.test.ts) would skip it.
    preparedDemoDatabase: false,
  });
  let probing: Promise<void> = Promise.resolve();
  registry = await startRegistry(config, {
    onListening: (url) => {
      probing = (async () => {
        for (const [method, p] of [
          ['GET', '/healthz'],
          ['GET', '/readyz'],
          ['POST', '/search'],
        ] as const) {
          const res = await fetch(`${url}${p}`, {
            method,
            headers: { 'content-type': 'application/json' },
            body: method === 'POST' ? JSON.stringify({ query: { text: 'slack' } }) : undefined,
          });
          duringLoad.push({ path: p, status: res.status, body: await res.json(), retryAfter: res.headers.get('retry-after') });
        }
      })();
    },
  });
  await probing;
}, 900_000);
afterAll(async () => {
  await registry?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('first start on the embedded database', () => {
  it('answers while loading: alive, not ready with progress, search 503 UNAVAILABLE with Retry-After', () => {
    expect(duringLoad.find((r) => r.path === '/healthz')).toMatchObject({ status: 200, body: { status: 'ok' } });
    const readyz = duringLoad.find((r) => r.path === '/readyz')!;
    expect(readyz.status).toBe(503);
    expect(readyz.body).toEqual({ status: 'loading', indexed: expect.any(Number), of: expect.any(Number) });
    const search = duringLoad.find((r) => r.path === '/search')!;
    expect(search.status).toBe(503);
    expect(search.body.errorCode).toBe('UNAVAILABLE');
    expect(Number(search.retryAfter)).toBeGreaterThan(0);
  });

  it('is ready with the whole demo corpus indexed and searchable', async () => {
    expect((await fetch(`${registry!.url}/readyz`)).status).toBe(200);
    expect(registry!.ctx.database.seeded).toBe(false);
    const res = await fetch(`${registry!.url}/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: { text: 'send a message to a slack channel' }, pageSize: 3 }),
    });
    const body = (await res.json()) as { results: Array<{ identifier: string }> };
    expect(res.status).toBe(200);
    expect(body.results.length).toBe(3);
    expect(body.results.some((r) => /slack/i.test(r.identifier))).toBe(true);
  });

  it('GET / is the portal for a browser, and names the registry, its version and routes as JSON otherwise', async () => {
    const pkg = JSON.parse(fs.readFileSync(path.resolve(__dirname, '..', '..', 'package.json'), 'utf8'));
    const html = await fetch(`${registry!.url}/`, { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    expect(html.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await html.text()).toContain('Find the agent, MCP server or skill for the job');
    // curl's Accept: */* gets the description, like Accept: application/json.
    const any = await fetch(`${registry!.url}/`, { headers: { accept: '*/*' } });
    expect(any.headers.get('content-type')).toMatch(/^application\/json/);
    const json = await fetch(`${registry!.url}/`, { headers: { accept: 'application/json' } });
    const home = (await json.json()) as { name: string; version: string; routes: Array<{ path: string }>; openapi: { yaml: string } };
    expect(home).toMatchObject({ name: 'ard-registry', version: pkg.version, openapi: { yaml: '/openapi.yaml', json: '/openapi.json' } });
    expect(home.routes.map((r) => r.path)).toEqual(expect.arrayContaining(['/search', '/explore', '/agents', '/healthz', '/readyz']));
  });

  it('serves the OpenAPI document it validates against, as YAML and JSON', async () => {
    const yaml = await fetch(`${registry!.url}/openapi.yaml`);
    expect(await yaml.text()).toBe(fs.readFileSync(path.resolve(__dirname, '..', '..', 'openapi', 'ard.openapi.yaml'), 'utf8'));
    const json = (await (await fetch(`${registry!.url}/openapi.json`)).json()) as { openapi: string; paths: Record<string, unknown> };
    expect(json.openapi).toMatch(/^3\./);
    expect(Object.keys(json.paths)).toEqual(expect.arrayContaining(['/search', '/explore', '/agents']));
  });

  it('a POST body without Content-Type: application/json gets 415 saying so', async () => {
    const res = await fetch(`${registry!.url}/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'query=slack',
    });
    expect(res.status).toBe(415);
    expect(await res.json()).toEqual({
      errorCode: 'INVALID_ARGUMENT',
      message: "the request body must be JSON sent with Content-Type: application/json; got 'application/x-www-form-urlencoded'",
    });
  });
});
