// The match cache (decision 0049) against no cache, side by side in one run: two registries in this process on the
// search bench's database, one with the default SEARCH_MATCH_CACHE_SIZE and one with 0, each text asked of both in
// turn (which goes first alternating). Prints figures; asserts nothing.
//   npm run bench:match-cache       (the database of `npm run bench -- search`: ard_bench_search_10000, built first)
//   BENCH_ENTRIES=100000 npm run bench:match-cache
import { loadConfig } from '../src/config';
import { startRegistry, type RunningRegistry } from '../src/server';
import { databaseUrl } from '../test/helpers/test-database';
import {
  databaseExists,
  inProcessBenchConfig,
  labelledQueries,
  loadAverage,
  percentile,
  printTable,
  searchPage,
  timedSearch,
} from './bench-util';

const ENTRIES = Number(process.env.BENCH_ENTRIES ?? 10_000);
const DB_NAME = `ard_bench_search_${ENTRIES}`;
const TEXTS = 120;

/** The portal's search page for `text` (GET /?q=, as a browser asks it), in ms; throws unless it answers 200. */
async function portalPage(url: string, text: string): Promise<number> {
  const started = performance.now();
  const res = await fetch(`${url}/?q=${encodeURIComponent(text)}`, { headers: { accept: 'text/html' } });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`the portal's search page answered ${res.status}`);
  return performance.now() - started;
}

interface Figures {
  portal: number[];
  first: number[];
  next: number[];
  again: number[];
}

/** One text's four requests on one registry: the portal's search page, then a new text's first and second pages and the same text again. */
async function measure(registry: RunningRegistry, text: string, into: Figures): Promise<void> {
  into.portal.push(await portalPage(registry.url, `${text} portal`));
  const first = await searchPage(registry.url, text);
  into.first.push(first.ms);
  if (first.pageToken) into.next.push((await searchPage(registry.url, text, first.pageToken)).ms);
  into.again.push(await timedSearch(registry.url, text));
}

async function main(): Promise<void> {
  if (!(await databaseExists(DB_NAME))) throw new Error(`${DB_NAME} does not exist: build it with \`npm run bench -- search\` first`);
  const loadAtStart = loadAverage();
  const settings = inProcessBenchConfig(databaseUrl(DB_NAME), {
    liveness: { ...loadConfig().liveness, probes: false },
    pageTokenSecret: 'bench',
  });
  const cached = await startRegistry(loadConfig(settings));
  const uncached = await startRegistry(loadConfig({ ...settings, searchMatchCacheSize: 0 }));
  try {
    const texts = labelledQueries()
      .map((q) => q.text)
      .slice(0, TEXTS);
    const on: Figures = { portal: [], first: [], next: [], again: [] };
    const off: Figures = { portal: [], first: [], next: [], again: [] };
    for (const registry of [cached, uncached]) await timedSearch(registry.url, 'warm up');
    for (let i = 0; i < texts.length; i++) {
      // A text new to both registries (the suffix), the one going first alternating.
      const turns: Array<[RunningRegistry, Figures, string]> = [
        [cached, on, `${texts[i]} on`],
        [uncached, off, `${texts[i]} off`],
      ];
      if (i % 2 === 1) turns.reverse();
      for (const [registry, into, text] of turns) await measure(registry, text, into);
    }
    const lookups = (await (await fetch(`${cached.url}/metrics`)).text())
      .split('\n')
      .filter((line) => line.startsWith('ard_search_match_cache_lookups{'))
      .map((line) => line.replace('ard_search_match_cache_lookups', ''))
      .join(', ');
    const row = (label: string, a: number[], b: number[]): string[] => [
      label,
      `${percentile(a, 50).toFixed(1)} / ${percentile(a, 95).toFixed(1)} ms`,
      `${percentile(b, 50).toFixed(1)} / ${percentile(b, 95).toFixed(1)} ms`,
      `${(percentile(b, 50) / percentile(a, 50)).toFixed(1)}×`,
    ];
    printTable(`The match cache over ${DB_NAME} (${texts.length} texts, p50 / p95; load average ${loadAtStart} → ${loadAverage()})`, [
      ['request', `SEARCH_MATCH_CACHE_SIZE default`, 'SEARCH_MATCH_CACHE_SIZE=0', 'off ÷ on'],
      row("the portal's search page (GET /?q=, its POST /search and POST /explore at once)", on.portal, off.portal),
      row('POST /search, a new text', on.first, off.first),
      row("  its next page (the first page's pageToken)", on.next, off.next),
      row('  the same text again', on.again, off.again),
    ]);
    console.log(`  lookups in the cached registry: ${lookups}`);
  } finally {
    await cached.stop();
    await uncached.stop();
  }
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exitCode = 1;
});
