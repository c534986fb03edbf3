// Added latency of federation=auto over federation=none (ARD §8), printed, not asserted.
//   npm run bench:federation        (needs the PostgreSQL of the tests; builds the test template once)
// Setup, all on 127.0.0.1: three peer registries of this project (demo corpus each, answering
// federation=none), a hub that federates to them, and a hub whose only peer never answers.
// Targets: auto - none < 1.3 x the slowest peer's own latency; with a silent peer, auto ~ the budget.
// Everything runs in one Node process (the peers share the CPU with the hub), so the figures are
// an upper bound of what separate machines would see.
import net from 'node:net';
import globalSetup from '../test/helpers/global-setup';
import { freePort } from '../test/helpers/peers';
import { startTestRegistry, type TestRegistry } from '../test/helpers/registry';
import type { RegistryConfig } from '../src/config';
import { withQueryCache } from '../src/embedding/embedder';
import { UseLiteEmbedder } from '../src/embedding/use-lite-embedder';

const QUERIES = ['send a message to a slack channel', 'query a postgres database', 'kubernetes cluster management', 'search the web', 'read and write files on github'];
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const BUDGET_MS = 1500;

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

async function timeSearches(reg: TestRegistry, federation: string): Promise<number[]> {
  const out: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (const text of QUERIES) {
      const started = performance.now();
      const res = await reg.post('/search', { query: { text }, federation, pageSize: 10 });
      out.push(performance.now() - started);
      if (res.status !== 200) throw new Error(`search failed: ${res.status} ${JSON.stringify(res.body)}`);
    }
  }
  return out;
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
  const started: TestRegistry[] = [];
  try {
    const peers = [await start(), await start(), await start()];
    started.push(...peers);
    const hub = await start({ peers: peers.map((p) => p.ctx.config.publicUrl) });
    const lonely = await start({ peers: [silentUrl], federationBreakerThreshold: 1_000_000 });
    started.push(hub, lonely);
    for (const r of [hub, lonely, ...peers]) await timeSearches(r, 'none'); // warm caches and connections

    const peerLatencies: number[][] = [];
    for (const p of peers) peerLatencies.push(await timeSearches(p, 'none'));
    const slowestPeerP50 = Math.max(...peerLatencies.map((xs) => percentile(xs, 50)));
    const none = await timeSearches(hub, 'none');
    const auto = await timeSearches(hub, 'auto');
    const added = percentile(auto, 50) - percentile(none, 50);
    console.log(`federation benchmark: ${QUERIES.length} queries x ${ROUNDS} rounds, pageSize 10, budget ${BUDGET_MS} ms`);
    peerLatencies.forEach((xs, i) => console.log(`  peer ${i + 1} own latency (none):   ${fmt(xs)}`));
    console.log(`  hub none:                      ${fmt(none)}`);
    console.log(`  hub auto (3 healthy peers):    ${fmt(auto)}`);
    console.log(`  added by auto (p50):           ${added.toFixed(1)} ms = ${(added / slowestPeerP50).toFixed(2)} x the slowest peer's p50 (target < 1.3 x)`);

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
