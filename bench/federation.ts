// Added latency of federation=auto over federation=none (ARD §8), printed, not asserted.
//   npm run bench:federation        (needs the PostgreSQL of the tests; builds the test template once)
// Setup, all on 127.0.0.1: three peer registries of this project (demo corpus each, answering
// federation=none), a hub that federates to them, and a hub whose only peer never answers.
// Targets: auto - none < 1.3 x the slowest peer's own latency; with a silent peer, auto ~ the budget.
// Each peer is its own registry process (`ard-registry serve` on a clone of the demo-corpus template),
// as peers are in production; on this 2-core machine they still share the CPU with the hub, so the
// figures are an upper bound of what separate machines would see. The contention lines say how much:
// the three peers (and the hub's own search) asked at once by this process, with no federation.
// Every search has a text no registry has seen (a number appended per round), so no registry answers
// from its query-embedding cache: the five texts repeated would measure cache hits, not searches.
// A second hub federates to the same three peers as if they ran on machines of their own: each peer's
// answers are recorded one request at a time, with their duration, and replayed after that duration by a
// server that uses no CPU while it waits ("peers elsewhere"), so the figure is federation's own cost.
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { createTestDatabase, type TestDatabase } from '../test/helpers/test-database';
import globalSetup from '../test/helpers/global-setup';
import { freePort, json, startFakePeer, type FakePeer } from '../test/helpers/peers';
import { startTestRegistry } from '../test/helpers/registry';
import type { RegistryConfig } from '../src/config';
import { withQueryCache } from '../src/embedding/embedder';
import { UseLiteEmbedder } from '../src/embedding/use-lite-embedder';

const QUERIES = [
  'send a message to a slack channel',
  'query a postgres database',
  'kubernetes cluster management',
  'search the web',
  'read and write files on github',
];
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const BUDGET_MS = 1500;

let nextSuffix = 10;
/** The five texts with a number no registry has seen yet: every search embeds its query. */
function freshTexts(): string[] {
  const suffix = nextSuffix++;
  return QUERIES.map((q) => `${q} ${suffix}`);
}

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

interface Searchable {
  post(path: string, body: unknown): Promise<{ status: number; body: any }>;
}

interface PeerProcess extends Searchable {
  url: string;
  close(): Promise<void>;
}

/** A registry in its own process on a fresh clone of the demo-corpus template. */
async function startPeerProcess(): Promise<PeerProcess> {
  const database: TestDatabase = await createTestDatabase({ withDemoCorpus: true });
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, '..', 'src', 'cli.ts'), 'serve'], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_URL: url,
      DATABASE_URL: database.url,
      LOG_LEVEL: 'silent',
      LOAD_DEMO_CORPUS: 'false',
      RATE_LIMIT_PER_MINUTE: '0',
      CRAWL_SCHEDULER: 'false',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const close = async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
    await database.drop();
  };
  for (let i = 0; i < 600; i++) {
    const ok = await fetch(`${url}healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (child.exitCode !== null) throw new Error(`peer on port ${port} exited with ${child.exitCode}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const post = async (p: string, body: unknown) => {
    const res = await fetch(`${url}${p.replace(/^\//, '')}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() };
  };
  return { url, post, close };
}

/** ROUNDS rounds of the five texts, each round with a number no registry has seen. */
function freshRounds(): string[] {
  return Array.from({ length: ROUNDS }, () => freshTexts()).flat();
}

/** ROUNDS rounds of fresh texts sent to `reg` one at a time; ms per search. */
async function timeSearches(reg: Searchable, federation: string): Promise<number[]> {
  return timeTexts(reg, federation, freshRounds());
}

/** The same fresh query sent to all `regs` at once (federation none); the latency of the slowest. */
async function timeAtOnce(regs: Searchable[]): Promise<number[]> {
  const out: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (const text of freshTexts()) {
      const started = performance.now();
      const all = await Promise.all(regs.map((r) => r.post('/search', { query: { text }, federation: 'none', pageSize: 10 })));
      out.push(performance.now() - started);
      for (const res of all) if (res.status !== 200) throw new Error(`search failed: ${res.status} ${JSON.stringify(res.body)}`);
    }
  }
  return out;
}

/** Each text sent once to `reg` (federation mode as given); ms per search. */
async function timeTexts(reg: Searchable, federation: string, texts: string[]): Promise<number[]> {
  const out: number[] = [];
  for (const text of texts) {
    const started = performance.now();
    const res = await reg.post('/search', { query: { text }, federation, pageSize: 10 });
    out.push(performance.now() - started);
    if (res.status !== 200) throw new Error(`search failed: ${res.status} ${JSON.stringify(res.body)}`);
  }
  return out;
}

/**
 * A peer on a machine of its own, simulated: `peer`'s answers to `texts` (the request a hub sends: the
 * caller's 10 results, federation none) are recorded one at a time, with how long each took; the replay server
 * answers a recorded text after that time, using no CPU meanwhile, as a registry elsewhere would.
 */
async function recordAndReplay(peer: Searchable, texts: string[]): Promise<{ server: FakePeer; ms: number[] }> {
  const recorded = new Map<string, { ms: number; body: unknown }>();
  for (const text of texts) {
    const started = performance.now();
    const res = await peer.post('/search', { query: { text }, federation: 'none', pageSize: 10 });
    if (res.status !== 200) throw new Error(`recording failed: ${res.status}`);
    recorded.set(text, { ms: performance.now() - started, body: res.body });
  }
  const server = await startFakePeer((_req, res, body) => {
    const request = body as { query?: { text?: string }; pageSize?: number; pageToken?: string } | undefined;
    const answer = request?.pageSize === 10 && !request.pageToken ? recorded.get(request.query?.text ?? '') : undefined;
    if (!answer) return json(res, 500, { errorCode: 'INTERNAL', message: 'not a recorded request' });
    setTimeout(() => json(res, 200, answer.body), answer.ms);
  });
  return { server, ms: [...recorded.values()].map((r) => r.ms) };
}

const fmt = (xs: number[]) => `p50 ${percentile(xs, 50).toFixed(1)} ms, p95 ${percentile(xs, 95).toFixed(1)} ms`;

async function main(): Promise<void> {
  await globalSetup();
  const model = new UseLiteEmbedder();
  await model.embed(['warm up']);
  const start = async (config: Partial<RegistryConfig> = {}) => {
    const port = await freePort();
    return startTestRegistry({
      withDemoCorpus: true,
      config: { port, publicUrl: `http://127.0.0.1:${port}/`, federationBudgetMs: BUDGET_MS, ...config },
      context: { embedder: withQueryCache(model) },
    });
  };
  // A peer that accepts connections and never answers.
  const silent = net.createServer(() => undefined);
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const silentUrl = `http://127.0.0.1:${(silent.address() as net.AddressInfo).port}/`;
  const started: Array<{ close(): Promise<void> }> = [];
  try {
    const peers = await Promise.all([startPeerProcess(), startPeerProcess(), startPeerProcess()]);
    started.push(...peers);
    const hub = await start({ peers: peers.map((p) => p.url) });
    const lonely = await start({ peers: [silentUrl], federationBreakerThreshold: 1_000_000 });
    started.push(hub, lonely);
    for (const r of [hub, lonely, ...peers]) await timeSearches(r, 'none'); // warm caches and connections

    const peerLatencies: number[][] = [];
    for (const p of peers) peerLatencies.push(await timeSearches(p, 'none'));
    const slowestPeerP50 = Math.max(...peerLatencies.map((xs) => percentile(xs, 50)));
    const none = await timeSearches(hub, 'none');
    const auto = await timeSearches(hub, 'auto');
    const peersAtOnce = await timeAtOnce(peers);
    const allAtOnce = await timeAtOnce([hub, ...peers]);
    const added = percentile(auto, 50) - percentile(none, 50);
    console.log(`federation benchmark: ${QUERIES.length} fresh queries x ${ROUNDS} rounds, pageSize 10, budget ${BUDGET_MS} ms`);
    peerLatencies.forEach((xs, i) => console.log(`  peer ${i + 1} own latency (none):   ${fmt(xs)}`));
    console.log(`  hub none:                      ${fmt(none)}`);
    console.log(`  hub auto (3 healthy peers):    ${fmt(auto)}`);
    console.log(
      `  added by auto (p50):           ${added.toFixed(1)} ms = ${(added / slowestPeerP50).toFixed(2)} x the slowest peer's p50 (target < 1.3 x)`,
    );
    console.log(`  contention, no federation: the slowest of the 3 peers asked at once: ${fmt(peersAtOnce)};`);
    console.log(
      `    of hub (none) + 3 peers asked at once: ${fmt(allAtOnce)} (auto minus this p50: ${(percentile(auto, 50) - percentile(allAtOnce, 50)).toFixed(1)} ms)`,
    );

    // The same hub design with peers that do not share this machine's CPU (recorded answers, replayed
    // after their recorded time): what federation adds when the peers run elsewhere.
    const texts = freshRounds();
    const replays = [];
    for (const p of peers) replays.push(await recordAndReplay(p, texts));
    started.push(...replays.map((r) => r.server));
    const remoteHub = await start({ peers: replays.map((r) => r.server.url) });
    started.push(remoteHub);
    await timeSearches(remoteHub, 'none'); // warm
    const remoteNone = await timeSearches(remoteHub, 'none');
    const remoteAuto = await timeTexts(remoteHub, 'auto', texts);
    const slowestRemoteP50 = Math.max(...replays.map((r) => percentile(r.ms, 50)));
    const remoteAdded = percentile(remoteAuto, 50) - percentile(remoteNone, 50);
    const failed = replays.reduce((n, r) => n + r.server.requests.length, 0) - 3 * texts.length;
    console.log(`  peers elsewhere (each real peer's answers recorded alone, replayed after their own time: no shared CPU):`);
    replays.forEach((r, i) => console.log(`    peer ${i + 1} recorded latency:      ${fmt(r.ms)}`));
    console.log(`    hub none:                    ${fmt(remoteNone)}`);
    console.log(`    hub auto:                    ${fmt(remoteAuto)}${failed === 0 ? '' : ` (${failed} unexpected peer requests)`}`);
    console.log(
      `    added by auto (p50):         ${remoteAdded.toFixed(1)} ms = ${(remoteAdded / slowestRemoteP50).toFixed(2)} x the slowest peer's p50 (target < 1.3 x)`,
    );

    const lonelyNone = await timeSearches(lonely, 'none');
    const lonelyAuto = await timeSearches(lonely, 'auto');
    console.log(`  hub none (silent peer):        ${fmt(lonelyNone)}`);
    console.log(`  hub auto (silent peer):        ${fmt(lonelyAuto)}   (target: the ${BUDGET_MS} ms budget, not more)`);
    console.log(`  over budget (p95 - budget):    ${(percentile(lonelyAuto, 95) - BUDGET_MS).toFixed(1)} ms`);
  } finally {
    await Promise.all(started.map((r) => r.close()));
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
