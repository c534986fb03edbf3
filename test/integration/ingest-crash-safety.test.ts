// kill -9 during `ard-registry ingest` at random moments: the index is always exactly the state
// before or the state after the manifest (one transaction, written after all embedding), never a
// partial entry or an entry without its vectors; re-running completes it.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { ENTRY_VECTOR_FIELDS } from '../../src/embedding/entry-texts';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database';

const ROOT = path.resolve(__dirname, '..', '..');
const SOURCE = path.join(ROOT, 'data', 'corpus', 'toolhive-ai-catalog.json');
const KILLS = 4;

let database: TestDatabase;
let dir: string;

beforeAll(async () => {
  database = await createTestDatabase({ withDemoCorpus: false });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ard-crash-'));
});
afterAll(async () => {
  await database?.drop();
  fs.rmSync(dir, { recursive: true, force: true });
});

type Kill = { afterMs: number } | { midTransaction: true };

/** Runs the CLI in its own process group; `kill` sends SIGKILL to the whole group. */
function runIngest(file: string, kill?: Kill): Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'ingest', file], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: database.url, LOG_LEVEL: 'warn', NODE_OPTIONS: '' },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    let exited = false;
    const killGroup = () => {
      if (!exited) process.kill(-child.pid!, 'SIGKILL');
    };
    const timer = kill && 'afterMs' in kill ? setTimeout(killGroup, kill.afterMs) : undefined;
    if (kill && 'midTransaction' in kill) void killWhenWriting(() => exited).then(killGroup, reject);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      exited = true;
      clearTimeout(timer);
      resolve({ code, signal, output });
    });
  });
}

/** Resolves once a backend on the test database holds a transaction that has written (has an xid). */
async function killWhenWriting(done: () => boolean): Promise<void> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    while (!done()) {
      const writing = await client.query(
        `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_xid IS NOT NULL`,
      );
      if ((writing.rowCount ?? 0) > 0) {
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 30));
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  } finally {
    await client.end();
  }
}

async function indexState() {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    const entries = await client.query<{ n: string; revised: string }>(
      `SELECT count(*) AS n, count(*) FILTER (WHERE description LIKE '%(revised)') AS revised FROM entries`,
    );
    const vectors = await client.query<{ n: string }>('SELECT count(*) AS n FROM entry_vectors');
    const missing = await client.query<{ n: string }>(
      `SELECT count(*) AS n FROM entries e WHERE (SELECT count(*) FROM entry_vectors v WHERE v.identifier = e.identifier) <> $1`,
      [ENTRY_VECTOR_FIELDS.length],
    );
    return {
      entries: Number(entries.rows[0].n),
      revised: Number(entries.rows[0].revised),
      vectors: Number(vectors.rows[0].n),
      entriesWithoutAllVectors: Number(missing.rows[0].n),
    };
  } finally {
    await client.end();
  }
}

it('leaves the index in the before or the after state whenever the ingestion is killed, and a re-run completes it', async () => {
  const source = JSON.parse(fs.readFileSync(SOURCE, 'utf8'));
  const before = { ...source, entries: source.entries.slice(0, 30) };
  const after = {
    ...source,
    entries: source.entries.slice(0, 45).map((e: { description?: string }) => ({ ...e, description: `${e.description ?? ''} (revised)` })),
  };
  const beforeFile = path.join(dir, 'before.json');
  const afterFile = path.join(dir, 'after.json');
  fs.writeFileSync(beforeFile, JSON.stringify(before));
  fs.writeFileSync(afterFile, JSON.stringify(after));

  const started = Date.now();
  const first = await runIngest(beforeFile);
  // The first run's duration scales the kill delays, so kills land from start-up to commit.
  const fullRunMs = Date.now() - started;
  expect(first.output).toContain('30 entries: 30 added');
  const beforeState = { entries: 30, revised: 0, vectors: 30 * ENTRY_VECTOR_FIELDS.length, entriesWithoutAllVectors: 0 };
  const afterState = { entries: 45, revised: 45, vectors: 45 * ENTRY_VECTOR_FIELDS.length, entriesWithoutAllVectors: 0 };
  expect(await indexState()).toEqual(beforeState);

  const kills: Array<{ kill: Kill; signal: string | null; state: string }> = [];
  // Odd attempts: a random moment of the run; even: while its transaction is writing.
  for (let i = 0; i < KILLS; i++) {
    const kill: Kill = i % 2 ? { afterMs: Math.floor(fullRunMs * Math.random()) } : { midTransaction: true };
    const run = await runIngest(afterFile, kill);
    const state = await indexState();
    const which =
      JSON.stringify(state) === JSON.stringify(beforeState)
        ? 'before'
        : JSON.stringify(state) === JSON.stringify(afterState)
          ? 'after'
          : 'PARTIAL';
    kills.push({ kill, signal: run.signal, state: which });
    expect([beforeState, afterState]).toContainEqual(state);
    if (which === 'after') break;
  }
  process.stdout.write(`ingest crash-safety: full run ${fullRunMs} ms; kills ${JSON.stringify(kills)}\n`);
  expect(kills.some((k) => k.signal === 'SIGKILL' && 'midTransaction' in k.kill)).toBe(true);

  const rerun = await runIngest(afterFile);
  expect(rerun.code).toBe(0);
  expect(await indexState()).toEqual(afterState);
}, 400_000);
