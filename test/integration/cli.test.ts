// `ard-registry ingest <file>`: loads the valid entries, prints each rejected one with its reason,
// exits 1 when something was rejected. Configuration comes from process.env, set here and restored.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { main } from '../../src/cli';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database';
import pg from 'pg';

let database: TestDatabase;
let dir: string;
const saved = { DATABASE_URL: process.env.DATABASE_URL, LOG_LEVEL: process.env.LOG_LEVEL };

beforeAll(async () => {
  database = await createTestDatabase({ withDemoCorpus: false });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ard-cli-'));
  process.env.DATABASE_URL = database.url;
  process.env.LOG_LEVEL = 'silent';
});
afterAll(async () => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  fs.rmSync(dir, { recursive: true, force: true });
  await database.drop();
});

async function run(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const out = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stdout += chunk.toString();
    return true;
  });
  const err = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stderr += chunk.toString();
    return true;
  });
  try {
    return { code: await main(argv), stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}

async function storedIdentifiers(): Promise<string[]> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    return (await client.query('SELECT identifier FROM entries ORDER BY identifier')).rows.map((r) => r.identifier);
  } finally {
    await client.end();
  }
}

describe('ard-registry ingest <file>', () => {
  it('stores the valid entries, prints each rejected entry with its reason and exits 1', async () => {
    const file = path.join(dir, 'mixed.json');
    fs.writeFileSync(
      file,
      JSON.stringify({
        specVersion: '1.0',
        entries: [
          {
            identifier: 'urn:air:cli.example:mcp:good',
            displayName: 'Good Entry',
            type: 'application/mcp-server-card+json',
            url: 'https://cli.example/good',
          },
          { identifier: 'urn:air:cli.example:mcp:nourl', displayName: 'No Location', type: 'application/mcp-server-card+json' },
          { displayName: 'No Identifier', type: 'application/mcp-server-card+json', url: 'https://cli.example/x' },
        ],
      }),
    );
    const { code, stdout } = await run(['ingest', file]);
    expect(code).toBe(1);
    expect(stdout.split('\n')).toEqual([
      `${file}: 3 entries: 1 added, 0 updated, 0 unchanged, 2 rejected`,
      '  rejected entries[1] (urn:air:cli.example:mcp:nourl): entry must have exactly one of "url" or "data" (ARD §3.4)',
      "  rejected entries[2]: entry is missing required field 'identifier'",
      '',
    ]);
    expect(await storedIdentifiers()).toEqual(['urn:air:cli.example:mcp:good']);
  });

  it('exits 0 when every entry is valid, and reports them unchanged the second time', async () => {
    const file = path.resolve(__dirname, '..', 'fixtures', 'noaa-weather-catalog.json');
    const first = await run(['ingest', file]);
    expect(first).toMatchObject({ code: 0, stdout: `${file}: 1 entries: 1 added, 0 updated, 0 unchanged, 0 rejected\n` });
    const second = await run(['ingest', file]);
    expect(second).toMatchObject({ code: 0, stdout: `${file}: 1 entries: 0 added, 0 updated, 1 unchanged, 0 rejected\n` });
    expect(await storedIdentifiers()).toEqual(['urn:air:cli.example:mcp:good', 'urn:air:noaa.gov:api:climate-data-online']);
  });

  it('reports an invalid manifest naming the file once, exit 1', async () => {
    const bad = path.join(dir, 'bad.json');
    fs.writeFileSync(bad, JSON.stringify({ entries: [] }));
    const invalid = await run(['ingest', bad]);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toBe(`file:${bad} is not a valid ai-catalog manifest: manifest is missing required field 'specVersion'\n`);
  });

  it('usage errors exit 2', async () => {
    expect((await run(['ingest'])).code).toBe(2);
    expect((await run(['frobnicate'])).stderr).toMatch(/^ard-registry: unknown command 'frobnicate'/);
  });
});

describe('ard-registry migrate', () => {
  let fresh: TestDatabase;
  beforeAll(async () => {
    fresh = await createTestDatabase({ withDemoCorpus: false });
    process.env.DATABASE_URL = fresh.url;
  });
  afterAll(async () => {
    process.env.DATABASE_URL = database.url;
    await fresh.drop();
  });

  it('applies every migration of db/migrations once, then finds nothing to do', async () => {
    const files = fs
      .readdirSync(path.resolve(__dirname, '..', '..', 'db', 'migrations'))
      .filter((f) => f.endsWith('.sql'))
      .sort();
    const first = await run(['migrate']);
    expect(first).toEqual({ code: 0, stdout: `applied ${files.length} migrations: ${files.join(', ')}\n`, stderr: '' });
    expect(await run(['migrate'])).toEqual({ code: 0, stdout: 'no migrations to apply: the schema is up to date\n', stderr: '' });
    const client = new pg.Client({ connectionString: fresh.url });
    await client.connect();
    try {
      expect((await client.query('SELECT name FROM schema_migrations ORDER BY name')).rows.map((r) => r.name)).toEqual(files);
    } finally {
      await client.end();
    }
  });
});
