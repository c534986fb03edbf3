// What `referrals` costs over `none` (ARD §8), printed, not asserted. Target: no more than `none` plus
// a few milliseconds.
//   npm run bench:referrals        (needs the PostgreSQL of the tests; builds the test template once)
// One registry in this process on a clone of the demo-corpus template, with 8 registry entries and 2
// configured peers (never contacted: referrals asks no peer). Three ways, alternated in each round on
// the same fresh text (a number appended per round, so the first of them pays the query embedding;
// the order rotates so each pays it equally often):
//   none       federatedSearch mode none
//   referrals  federatedSearch mode referrals (known registries ranked in memory)
//   baseline   referrals as they were ranked before: the page and a second full search of the index
//              under a type filter on the registry media types, in parallel
import globalSetup from '../test/helpers/global-setup';
import { startTestRegistry } from '../test/helpers/registry';
import { REGISTRY_TYPES } from '../src/catalog/known-registries';
import { withQueryCache } from '../src/embedding/embedder';
import { UseLiteEmbedder } from '../src/embedding/use-lite-embedder';
import { federatedSearchDeps } from '../src/context';
import { federatedSearch } from '../src/federation/federated-search';
import { ingestManifest } from '../src/ingest/ingest-manifest';
import { normaliseFilter } from '../src/search/query-filter';
import { checkQueryText } from '../src/search/query-text';

const QUERIES = [
  'send a message to a slack channel',
  'query a postgres database',
  'book a flight to tokyo',
  'weather forecast for tomorrow',
  'read and write files on github',
];
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

async function main(): Promise<void> {
  await globalSetup();
  const embedder = withQueryCache(new UseLiteEmbedder());
  const reg = await startTestRegistry({
    withDemoCorpus: true,
    config: { peers: ['http://127.0.0.1:9/', 'http://127.0.0.1:10/'] },
    context: { embedder },
  });
  try {
    const topics = [
      'travel flights hotels',
      'weather climate forecasts',
      'finance payments banking',
      'developer tools github',
      'databases sql',
      'messaging chat slack',
      'maps geography places',
      'health medicine',
    ];
    await ingestManifest(
      { db: reg.ctx.db, embedder },
      {
        specVersion: '1.0',
        entries: topics.map((t, i) => ({
          identifier: `urn:air:registry${i}.example:registry:main`,
          displayName: `Registry of ${t}`,
          type: 'application/ai-registry+json',
          description: `A registry of agents and MCP servers for ${t}.`,
          url: `https://registry${i}.example/`,
        })),
      },
      { origin: 'bench:registries' },
    );
    const ctx = reg.ctx;
    const deps = federatedSearchDeps(ctx);
    const hop = { hopsLeft: 0, visited: [], budgetMs: 1500 };
    const modes: Record<string, (text: string) => Promise<unknown>> = {
      none: (text) => federatedSearch(deps, { mode: 'none', text, hop }),
      referrals: (text) => federatedSearch(deps, { mode: 'referrals', text, hop }),
      baseline: (text) =>
        Promise.all([ctx.search.search({ text }), ctx.search.rank(checkQueryText(text), normaliseFilter({ type: [...REGISTRY_TYPES] }))]),
    };
    const names = Object.keys(modes);
    const times: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
    // Warm-up: the model, the prepared statements.
    for (const q of QUERIES) for (const n of names) await modes[n]!(q);
    let round = 0;
    for (let r = 0; r < ROUNDS; r++) {
      for (const q of QUERIES) {
        const text = `${q} ${r + 100}`;
        const order = names.map((_n, i) => names[(i + round) % names.length]!);
        round++;
        for (const n of order) {
          const started = performance.now();
          await modes[n]!(text);
          times[n]!.push(performance.now() - started);
        }
      }
    }
    const load = (await import('node:os')).loadavg()[0]!.toFixed(1);
    console.log(`referrals vs none, ${ROUNDS * QUERIES.length} searches each (load ${load}), ms:`);
    console.log('mode       p50     p95     mean');
    for (const n of names) {
      const xs = times[n]!;
      const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
      console.log(
        `${n.padEnd(10)} ${percentile(xs, 50).toFixed(1).padStart(6)}  ${percentile(xs, 95).toFixed(1).padStart(6)}  ${mean.toFixed(1).padStart(6)}`,
      );
    }
    const p50 = (n: string) => percentile(times[n]!, 50);
    console.log(
      `referrals - none: ${(p50('referrals') - p50('none')).toFixed(1)} ms p50; baseline - none: ${(p50('baseline') - p50('none')).toFixed(1)} ms p50`,
    );
  } finally {
    await reg.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
