// One owner per embedded data folder (docs/operations.md "The embedded database folder"): with a server
// owning the folder, ingest, sources and mcp run beside it go through it (an ingested entry is searchable at
// once); a second server is refused naming the owner's pid; the lock goes with the owner, and a lock left by
// a killed process (kill -9) is taken over. Real processes on a real PGlite folder.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { LOCK_FILE_NAME } from '../../src/db/data-dir-lock';
import { runCli, startCli, waitForOutput, type CliResult } from '../helpers/cli-process';

const FIXTURE = path.resolve(__dirname, '..', 'fixtures', 'noaa-weather-catalog.json');
const FIXTURE_ID = 'urn:air:noaa.gov:api:climate-data-online';
// PGlite compiles PostgreSQL (WebAssembly) and migrates a new folder at start: minutes when the 2 cores are shared.
const START_MS = 300_000;

let root: string;
let dataDir: string;
let server: { child: ChildProcess; done: Promise<CliResult> } | undefined;
let url: string;

async function waitReady(base: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await fetch(`${base}/readyz`).catch(() => null);
    if (res?.status === 200) return;
    if (Date.now() > deadline) throw new Error(`${base} not ready within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function search(text: string) {
  const res = await fetch(`${url}/search`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: { text }, pageSize: 5 }),
  });
  return { status: res.status, body: (await res.json()) as { results: Array<{ identifier: string }> } };
}

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'ard-owner-'));
  dataDir = path.join(root, 'data');
  server = startCli(['serve'], { DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOAD_DEMO_CORPUS: 'false' });
  const listening = JSON.parse(await waitForOutput(server.child, /"msg":"listening/, START_MS)) as { url: string };
  url = listening.url;
  await waitReady(url, START_MS);
}, START_MS * 2);

afterAll(async () => {
  server?.child.kill('SIGTERM');
  await server?.done;
  fs.rmSync(root, { recursive: true, force: true });
});

describe('a server owns the embedded folder', () => {
  it('writes a lock file (mode 0600) naming its pid, address and a local admin token', () => {
    const lock = JSON.parse(fs.readFileSync(path.join(dataDir, LOCK_FILE_NAME), 'utf8'));
    expect(lock).toMatchObject({ pid: server!.child.pid, command: 'serve', url });
    expect(lock.adminToken).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(fs.statSync(path.join(dataDir, LOCK_FILE_NAME)).mode & 0o777).toBe(0o600);
  });

  it('ingest <file> goes through the server, and the entry is searchable at once', async () => {
    expect((await search('weather forecast and climate data')).body.results).toEqual([]);
    const res = await runCli(['ingest', FIXTURE], { DATA_DIR: dataDir });
    expect(res.stderr).toMatch(new RegExp(`registry server \\(pid ${server!.child.pid}`));
    expect(res.stdout).toBe(`${FIXTURE}: 1 entries: 1 added, 0 updated, 0 unchanged, 0 rejected\n`);
    expect(res.code).toBe(0);
    const found = await search('weather forecast and climate data');
    expect(found.status).toBe(200);
    expect(found.body.results.map((r) => r.identifier)).toContain(FIXTURE_ID);
  }, 120_000);

  it('sources goes through the server', async () => {
    const res = await runCli(['sources'], { DATA_DIR: dataDir });
    expect(res.code).toBe(0);
    expect(res.stdout).toBe('no sources registered (add one with: ard-registry ingest <domain-or-url>)\n');
  }, 60_000);

  it('mcp over stdio goes through the server: initialize and a tool call are answered', async () => {
    const messages = [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'list_topics', arguments: {} } },
    ];
    const mcp = startCli(['mcp'], { DATA_DIR: dataDir });
    let out = '';
    mcp.child.stdout!.on('data', (d) => (out += d));
    for (const m of messages) mcp.child.stdin!.write(`${JSON.stringify(m)}\n`);
    const deadline = Date.now() + 60_000;
    while ((out.match(/\n/g) ?? []).length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    mcp.child.stdin!.end();
    const result = await mcp.done;
    const answers = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(answers.find((a) => a.id === 1)?.result?.serverInfo?.name).toBe('alexandria');
    expect(answers.find((a) => a.id === 2)?.result?.structuredContent?.topics).toEqual(expect.any(Array));
    expect(result.stderr).toMatch(/answered by the registry server that owns the data folder/);
  }, 90_000);

  it('a second server on the same folder is refused, naming the owner pid and what to do', async () => {
    const res = await runCli(['serve'], { DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1' });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(`is in use by pid ${server!.child.pid} (ard-registry serve`);
    expect(res.stderr).toContain(`stop it first (kill ${server!.child.pid})`);
    // The owner is unharmed.
    expect((await search('weather forecast and climate data')).body.results.map((r) => r.identifier)).toContain(FIXTURE_ID);
  }, 120_000);
});

describe('after the owner stops', () => {
  it(
    'SIGTERM releases the lock; the folder opens again and kept the ingested entry',
    async () => {
      server!.child.kill('SIGTERM');
      expect((await server!.done).code).toBe(0);
      expect(fs.existsSync(path.join(dataDir, LOCK_FILE_NAME))).toBe(false);
      const again = await runCli(['ingest', FIXTURE], { DATA_DIR: dataDir });
      expect(again.stdout).toBe(`${FIXTURE}: 1 entries: 0 added, 0 updated, 1 unchanged, 0 rejected\n`);
      expect(again.code).toBe(0);
    },
    START_MS,
  );

  it(
    'a lock left by a killed process (kill -9) is taken over',
    async () => {
      const mcp = startCli(['mcp'], { DATA_DIR: dataDir, LOAD_DEMO_CORPUS: 'false' });
      const deadline = Date.now() + START_MS;
      while (!fs.existsSync(path.join(dataDir, LOCK_FILE_NAME)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      const blocked = await runCli(['sources'], { DATA_DIR: dataDir });
      expect(blocked.code).toBe(1);
      expect(blocked.stderr).toContain(`in use by pid ${mcp.child.pid} (ard-registry mcp`);
      mcp.child.kill('SIGKILL');
      await mcp.done;
      expect(fs.existsSync(path.join(dataDir, LOCK_FILE_NAME))).toBe(true);
      const after = await runCli(['ingest', FIXTURE], { DATA_DIR: dataDir });
      expect(after.stdout).toMatch(/1 unchanged/);
      expect(after.code).toBe(0);
    },
    START_MS,
  );
});
