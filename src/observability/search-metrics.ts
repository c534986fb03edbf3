// Exports the search pipeline's match cache (src/search/relevance/match-cache.ts) at scrape time.
import type { MatchCache } from '../search/relevance';
import { registerSnapshotGauge, type RegistryMetrics } from './metrics';

export function registerMatchCacheMetrics(metrics: RegistryMetrics, cache: MatchCache): void {
  registerSnapshotGauge(metrics, {
    name: 'ard_search_match_cache_lookups',
    help: "Need texts looked up in the match cache since start, by result: 'hit' (a kept list), 'joined' (waited for the same ranking in flight), 'miss' (ranked), or 'discarded' (ranked while the index changed, not kept).",
    labelNames: ['result'] as const,
    read: () => {
      const s = cache.stats();
      return [
        { labels: { result: 'hit' }, value: s.hits },
        { labels: { result: 'joined' }, value: s.joined },
        { labels: { result: 'miss' }, value: s.misses },
        { labels: { result: 'discarded' }, value: s.discarded },
      ];
    },
  });
  registerSnapshotGauge(metrics, {
    name: 'ard_search_match_cache_matches',
    help: 'Matches the match cache holds now (SEARCH_MATCH_CACHE_SIZE is its limit).',
    labelNames: [] as const,
    read: () => [{ labels: {}, value: cache.stats().matches }],
  });
}
