// A full liveness probe round and search latency beside it. Prints figures; asserts nothing.
//   npm run bench:liveness                      (10k entries; BENCH_ENTRIES=2000 for a smaller round)
//   BENCH_DEAD_SHARE=0.2 BENCH_SLOW_SHARE=0.1 BENCH_SLOW_MS=500 BENCH_HOSTS=200 BENCH_HOST_DELAY_MS=0 BENCH_CONCURRENCY=16
// Issue 25: how long one round takes for 10k entries with a share of dead and slow endpoints on loopback,
// and that POST /search's latency does not move while it runs.
//
// The registry runs here on a copy of the demo-corpus database (the test template: run the jest global set-up
// once) plus N synthetic entries whose endpoints are loopback servers in a child process (so their work does
// not load this event loop): MCP servers (the SDK's, Streamable HTTP), A2A cards and skill URLs on BENCH_HOSTS
// host names, a share dead (a closed port: refused) and a share slow (answering after BENCH_SLOW_MS). The round
// is the context's own upkeep with production settings except LIVENESS_TIMEOUT_MS (2 s) and the host spacing
// (BENCH_HOST_DELAY_MS, default 0: at the production 1 s the round is bounded by entries per host instead).
import { fork, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { loadConfig } from '../src/config';
import { createHttpClient } from '../src/outbound';
import { startRegistry } from '../src/server';
import { mcpServerRoute } from '../test/helpers/mcp-loopback';
import { machineLoad } from '../test/helpers/machine-load';
import { freePort } from '../test/helpers/peers';
import { createTestDatabase } from '../test/helpers/test-database';
import { BESIDE_WORK_QUERIES, inProcessBenchConfig, percentile } from './bench-util';

const ENTRIES = Number(process.env.BENCH_ENTRIES ?? 10_000);
const DEAD_SHARE = Number(process.env.BENCH_DEAD_SHARE ?? 0.2);
const SLOW_SHARE = Number(process.env.BENCH_SLOW_SHARE ?? 0.1);
const SLOW_MS = Number(process.env.BENCH_SLOW_MS ?? 500);
const HOSTS = Number(process.env.BENCH_HOSTS ?? 200);
const HOST_DELAY_MS = Number(process.env.BENCH_HOST_DELAY_MS ?? 0);
const TIMEOUT_MS = 2000;
const CONCURRENCY = process.env.BENCH_CONCURRENCY ? Number(process.env.BENCH_CONCURRENCY) : undefined;

/** The child: one HTTP server answering every bench host name. */
function serveEndpoints(): void {
  const mcp = mcpServerRoute('bench-mcp', { json: true });
  const card = JSON.stringify({
    name: 'Bench agent',
    description: 'answers',
    url: 'http://agent.bench.test/a2a',
    version: '1.0.0',
    capabilities: {},
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 's', name: 'S', description: 'does', tags: ['x'] }],
  });
  const answer = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const path = (req.url ?? '/').replace(/^\/slow/, '');
    if (path.startsWith('/mcp')) return mcp(req, res);
    if (path.startsWith('/card')) return res.writeHead(200, { 'content-type': 'application/json' }).end(card);
    res.writeHead(200, { 'content-type': 'text/markdown' }).end('# skill');
  };
  const server = http.createServer((req, res) => {
    if ((req.url ?? '').startsWith('/slow')) setTimeout(() => answer(req, res), SLOW_MS);
    else answer(req, res);
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as AddressInfo).port }));
}

async function startEndpoints(): Promise<{ port: number; child: ChildProcess }> {
  const child = fork(__filename, [], { env: { ...process.env, BENCH_LIVENESS_ROLE: 'endpoints' }, execArgv: ['--import', 'tsx'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m: { port: number }) => resolve(m.port));
    child.once('exit', (code) => reject(new Error(`endpoint server exited with ${code}`)));
  });
  return { port, child };
}

async function addEntries(url: string, port: number, deadPort: number): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    // Deterministic shares: entry i is dead when (i * 7919) mod 1000 < 1000 x DEAD_SHARE, slow in the next band.
    await client.query(
      `INSERT INTO entries (identifier, publisher, type, display_name, description, tags, capabilities, entry, host, content_hash,
                            origin, fetched_at, search_text)
       SELECT s.id, s.pub, s.typ, s.name, s.name, '{}', '{}',
              jsonb_build_object('identifier', s.id, 'displayName', s.name, 'type', s.typ, 'url', s.url, 'metadata',
                CASE WHEN s.typ = 'application/mcp-server-card+json'
                     THEN jsonb_build_object('remoteUrl', s.url, 'transport', 'streamable-http') ELSE '{}'::jsonb END),
              NULL, md5(s.id), 'bench', now(), s.name
       FROM (
         SELECT i, 'urn:air:h' || (i % $4) || '.bench.test:e' || i AS id, 'h' || (i % $4) || '.bench.test' AS pub,
                (ARRAY['application/mcp-server-card+json', 'application/mcp-server-card+json', 'application/a2a-agent-card+json',
                       'application/ai-skill', 'application/ai-skill'])[1 + i % 5] AS typ,
                'Probe bench entry ' || i AS name,
                'http://h' || (i % $4) || '.bench.test:' ||
                  CASE WHEN (i * 7919) % 1000 < 1000 * $5::float THEN $2::int ELSE $1::int END ||
                  CASE WHEN (i * 7919) % 1000 >= 1000 * $5::float AND (i * 7919) % 1000 < 1000 * ($5::float + $6::float) THEN '/slow' ELSE '' END ||
                  (ARRAY['/mcp', '/mcp', '/card.json', '/SKILL.md', '/SKILL.md'])[1 + i % 5] AS url
         FROM generate_series(1, $3::int) AS i
       ) s`,
      [port, deadPort, ENTRIES, HOSTS, DEAD_SHARE, SLOW_SHARE],
    );
    await client.query('VACUUM ANALYZE entries');
  } finally {
    await client.end();
  }
}

async function main(): Promise<void> {
  const endpoints = await startEndpoints();
  const deadPort = await freePort();
  const database = await createTestDatabase({ withDemoCorpus: true });
  const crawlHttp = createHttpClient({
    userAgent: 'ard-registry bench',
    allowPrivateAddresses: true,
    totalTimeoutMs: TIMEOUT_MS,
    resolver: async () => [{ address: '127.0.0.1', family: 4 }],
  });
  const base = loadConfig();
  const registry = await startRegistry(
    loadConfig(
      inProcessBenchConfig(database.url, {
        crawlAllowPrivate: true,
        crawl: { ...base.crawl, hostDelayMs: HOST_DELAY_MS },
        liveness: {
          ...base.liveness,
          pollMs: 0,
          budget: ENTRIES + 1000,
          timeoutMs: TIMEOUT_MS,
          concurrency: CONCURRENCY ?? base.liveness.concurrency,
        },
      }),
    ),
    { crawlHttp },
  );
  try {
    await addEntries(database.url, endpoints.port, deadPort);
    const search = async (text: string) => {
      const started = performance.now();
      const res = await fetch(`${registry.url}/search`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: { text } }),
      });
      await res.arrayBuffer();
      return performance.now() - started;
    };
    for (const q of BESIDE_WORK_QUERIES) await search(q); // warm: embeddings cached, plans made
    const idle: number[] = [];
    for (let i = 0; i < 120; i++) idle.push(await search(BESIDE_WORK_QUERIES[i % BESIDE_WORK_QUERIES.length]));

    const loadBefore = machineLoad();
    const started = performance.now();
    let done = false;
    const round = registry.ctx.liveness.tick().finally(() => {
      done = true;
    });
    const during: number[] = [];
    for (let i = 0; !done; i++) during.push(await search(BESIDE_WORK_QUERIES[i % BESIDE_WORK_QUERIES.length]));
    const counts = await round;
    const seconds = (performance.now() - started) / 1000;
    const loadAfter = machineLoad();

    const fmt = (v: number[]) => `p50 ${percentile(v, 50).toFixed(1)} ms  p99 ${percentile(v, 99).toFixed(1)} ms  (n=${v.length})`;
    console.log(
      `\nliveness round: ${ENTRIES} synthetic entries on ${HOSTS} hosts, dead ${DEAD_SHARE}, slow ${SLOW_SHARE} (${SLOW_MS} ms), ` +
        'plus the demo corpus (its hosts resolve to loopback here too, and refuse)',
    );
    console.log(
      `  settings: LIVENESS_CONCURRENCY ${CONCURRENCY ?? base.liveness.concurrency}, LIVENESS_TIMEOUT_MS ${TIMEOUT_MS}, host spacing ${HOST_DELAY_MS} ms`,
    );
    console.log(`  states: ${JSON.stringify(counts)}`);
    console.log(`  duration: ${seconds.toFixed(1)} s (${(ENTRIES / seconds).toFixed(0)} entries/s)`);
    console.log(`\nPOST /search latency         idle                                   during the round`);
    console.log(`                              ${fmt(idle)}    ${fmt(during)}`);
    console.log(`\n${loadBefore} before the round, ${loadAfter} after`);
  } finally {
    await registry.stop();
    await crawlHttp.close();
    endpoints.child.kill();
    await database.drop();
  }
}

if (process.env.BENCH_LIVENESS_ROLE === 'endpoints') serveEndpoints();
else
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
