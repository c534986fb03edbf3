// The cost of one product, one result (src/search/product-collapse.ts) on its own: for each labelled query, the
// ranked list (matchText), then the collapse of that list timed alone, on the relevance bench's databases (built by
// `npm run bench:relevance`; their names are its arguments). Prints p50/p95 of the collapse, of the ranking, the
// list lengths and how many entries were left out, with the load average.
import os from 'node:os';
import { connectDatabase } from '../src/db/connect';
import { withQueryCache } from '../src/embedding/embedder';
import { collapseProducts, ProductKeyCache } from '../src/search/product-collapse';
import { matchText } from '../src/search/relevance';
import { databaseUrl } from '../test/helpers/test-database';
import { bundledModel, labelledQueries, percentile, PRODUCTION_RANKING } from './bench-util';

async function main(): Promise<void> {
  const embedder = withQueryCache((await bundledModel()).embedder);
  const queries = labelledQueries();
  for (const name of process.argv.slice(2)) {
    const handle = await connectDatabase({ databaseUrl: databaseUrl(name), dataDir: '' });
    try {
      const deps = { db: handle.db, embedder, ...PRODUCTION_RANKING };
      // One per database, as the search service holds one: it fills as the queries go.
      const cache = new ProductKeyCache();
      const rankMs: number[] = [];
      const collapseMs: number[] = [];
      let listed = 0;
      let left = 0;
      for (const query of queries) {
        let started = performance.now();
        const matches = await matchText(deps, query.text, []);
        rankMs.push(performance.now() - started);
        started = performance.now();
        const collapsed = await collapseProducts(handle.db, matches, cache);
        collapseMs.push(performance.now() - started);
        listed += matches.length;
        left += matches.length - collapsed.matches.length;
      }
      const p = (values: number[]) => `p50 ${percentile(values, 50).toFixed(1)} ms, p95 ${percentile(values, 95).toFixed(1)} ms`;
      console.log(`${name}: ${queries.length} queries, ${(listed / queries.length).toFixed(1)} matches per list, ${left} left out in all`);
      console.log(
        `  ranking (matchText): ${p(rankMs)}; collapse: ${p(collapseMs)}; load average ${os
          .loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')}`,
      );
    } finally {
      await handle.close();
    }
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
