// What the test suites need beyond Node.js, found before Jest starts (jest.config.js): PostgreSQL with pgvector
// (TEST_DATABASE_URL), a streaming replica of it (TEST_REPLICA_URL), Redis (TEST_REDIS_URL) and the optional ONNX runtime (.cache/onnx-runtime). A suite's
// needs are read from what it imports (the helpers that create test databases, the ONNX model helper) and
// what it names (TEST_REDIS_URL). Suites whose needs are missing are left out with one line per missing
// service saying how to provide it; CI_REQUIRE_ALL=1 (.ci/run) turns a missing service into a failed run.
'use strict';
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..');
const DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REPLICA_URL = process.env.TEST_REPLICA_URL ?? 'postgres://postgres@127.0.0.1:5433/postgres';
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const ONNX_RUNTIME = path.join(ROOT, '.cache', 'onnx-runtime', 'node_modules', '@huggingface', 'transformers');

const REQUIREMENTS = {
  postgres: {
    what: `PostgreSQL with pgvector at ${DATABASE_URL}`,
    enable: 'bash scripts/install-pgvector.sh && bash scripts/start-postgres.sh, or set TEST_DATABASE_URL',
    // Importing one of these helpers (directly or through another helper) means a real PostgreSQL.
    helpers: ['test-database', 'registry', 'demo-database'],
    names: [/\bTEST_DATABASE_URL\b/],
    probe: probePostgres,
  },
  replica: {
    what: `a streaming replica of the test PostgreSQL at ${REPLICA_URL}`,
    enable: 'bash scripts/start-replica.sh (as root), or set TEST_REPLICA_URL',
    helpers: [],
    names: [/\bTEST_REPLICA_URL\b/],
    probe: probeReplica,
  },
  redis: {
    what: `Redis at ${REDIS_URL}`,
    enable: 'bash scripts/start-redis.sh, or set TEST_REDIS_URL',
    helpers: [],
    names: [/\bTEST_REDIS_URL\b/],
    probe: probeRedis,
  },
  onnx: {
    what: 'the optional ONNX runtime in .cache/onnx-runtime',
    enable: 'bash scripts/install-onnx-runtime.sh',
    helpers: ['tiny-onnx-model'],
    names: [],
    probe: async () => (fs.existsSync(ONNX_RUNTIME) ? null : 'not installed'),
  },
};

/** Connects to `url` and returns what `check` finds wrong with it (null: nothing), or why it is not reachable. */
async function probeDatabase(url, check) {
  const pg = require('pg');
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return await check(client);
  } catch (error) {
    return `not reachable (${error.code ?? error.message})`;
  } finally {
    await client.end().catch(() => undefined);
  }
}

function probePostgres() {
  return probeDatabase(DATABASE_URL, async (client) => {
    const { rows } = await client.query("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'");
    return rows.length > 0 ? null : 'the pgvector extension is not installed';
  });
}

function probeReplica() {
  return probeDatabase(REPLICA_URL, async (client) => {
    const { rows } = await client.query('SELECT pg_is_in_recovery() AS standby');
    return rows[0].standby ? null : 'not a standby (pg_is_in_recovery() is false)';
  });
}

function probeRedis() {
  const url = new URL(REDIS_URL);
  return new Promise((resolve) => {
    const socket = net.connect({ host: url.hostname, port: Number(url.port || 6379) });
    const done = (problem) => {
      socket.destroy();
      resolve(problem);
    };
    socket.setTimeout(2000, () => done('not reachable (timeout)'));
    socket.on('error', (error) => done(`not reachable (${error.code ?? error.message})`));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (data) =>
      done(data.toString().startsWith('+PONG') || data.toString().startsWith('-NOAUTH') ? null : 'not answering PING'),
    );
  });
}

/** Helper files each helper imports (relative imports within test/helpers). */
function helperImports(file, seen = new Set()) {
  const text = fs.readFileSync(file, 'utf8');
  const names = [];
  for (const match of text.matchAll(/from '(\.\.?\/[^']+)'/g)) {
    const target = path.resolve(path.dirname(file), match[1]);
    if (!target.startsWith(path.join(ROOT, 'test', 'helpers'))) continue;
    const name = path.basename(target);
    if (seen.has(name)) continue;
    seen.add(name);
    names.push(name);
    for (const ext of ['.ts', '.js']) if (fs.existsSync(target + ext)) names.push(...helperImports(target + ext, seen));
  }
  return names;
}

/** The requirements a test file has, by name. */
function suiteNeeds(file) {
  const text = fs.readFileSync(file, 'utf8');
  const helpers = new Set(helperImports(file));
  return Object.entries(REQUIREMENTS)
    .filter(([, r]) => r.helpers.some((h) => helpers.has(h)) || r.names.some((re) => re.test(text)))
    .map(([name]) => name);
}

function testFiles(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const full = path.join(dir, d.name);
    if (d.isDirectory()) return testFiles(full);
    return d.name.endsWith('.test.ts') ? [full] : [];
  });
}

/**
 * Probes every requirement; returns the test files to leave out and sets TEST_POSTGRES_AVAILABLE for the
 * global setup. Prints one line per missing requirement; throws under CI_REQUIRE_ALL=1.
 */
let checked = null;
function checkTestRequirements() {
  // Jest may read its configuration more than once per run: probe and print once.
  checked ??= probeAll();
  return checked;
}

async function probeAll() {
  const problems = {};
  await Promise.all(Object.entries(REQUIREMENTS).map(async ([name, r]) => (problems[name] = await r.probe())));
  process.env.TEST_POSTGRES_AVAILABLE = problems.postgres ? '0' : '1';
  const files = testFiles(path.join(ROOT, 'test'));
  const ignored = [];
  const missing = [];
  for (const [name, problem] of Object.entries(problems)) {
    if (!problem) continue;
    const suites = files.filter((f) => suiteNeeds(f).includes(name));
    ignored.push(...suites);
    missing.push(
      `skipping ${suites.length} test suites that need ${REQUIREMENTS[name].what}: ${problem}; to run them: ${REQUIREMENTS[name].enable}`,
    );
  }
  if (missing.length > 0 && /^(1|true)$/i.test(process.env.CI_REQUIRE_ALL ?? '')) {
    throw new Error(`CI_REQUIRE_ALL is set and test services are missing:\n${missing.join('\n')}`);
  }
  for (const line of missing) process.stderr.write(`${line}\n`);
  return [...new Set(ignored)];
}

module.exports = { checkTestRequirements, suiteNeeds };
