// `referrals` (ARD §8): the known peer registries worth following for a query, most relevant first.
// Ranked in memory over the few known registries' own words, beside the local search: referrals cost
// the local search plus one small read of the registry entries (bench/federation-referrals.ts), where
// ranking them with the full search ran a second search and cost about twice `none`.
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { expandQuery, tokenize } from '../search/query-text';
import type { QueryVocabulary } from '../search/query-vocabulary';
import { listKnownPeers, searchUrlOf, type Peer } from './peer-directory';

export interface RegistryReferral {
  identifier: string;
  displayName: string;
  type: string;
  url: string;
}

/** Words this long or longer match a word they begin (book -> booking, forecast -> forecasts). */
const MIN_PREFIX = 4;

/**
 * Known peers worth following for this query, most relevant first: those whose catalog entry holds
 * words of the query (each query word, or its synonym, counted once at its weight), then every other
 * known peer (configured ones first, then discovered ones by identifier). Never this registry, nor one
 * already visited. `url` is the peer's search route (OpenAPI RegistryReferral).
 */
export async function findReferrals(
  deps: {
    db: Kysely<Database>;
    configuredPeers: readonly string[];
    mirroredPeers?: readonly string[];
    publicUrl: string;
    vocabulary?: QueryVocabulary;
  },
  text: string,
  visited: readonly string[] = [],
): Promise<RegistryReferral[]> {
  const known = await listKnownPeers(deps.db, deps.configuredPeers, deps.publicUrl, deps.mirroredPeers);
  const eligible = known.filter((p) => !visited.includes(p.baseUrl));
  const words = expandQuery(text, deps.vocabulary?.synonyms, deps.vocabulary?.related).filter((w) => !w.correction);
  const scored = eligible.map((peer, order) => ({ peer, order, score: referralScore(words, peer) }));
  scored.sort((a, b) => b.score - a.score || a.order - b.order);
  return scored.map(({ peer }) => toReferral(peer));
}

function referralScore(words: ReadonlyArray<{ group: number; word: string; weight: number }>, peer: Peer): number {
  if (peer.text === '') return 0;
  const own = new Set(tokenize(peer.text));
  const best = new Map<number, number>();
  for (const w of words) {
    if (!matchesAny(w.word, own)) continue;
    best.set(w.group, Math.max(best.get(w.group) ?? 0, w.weight));
  }
  let score = 0;
  for (const weight of best.values()) score += weight;
  return score;
}

function matchesAny(word: string, own: ReadonlySet<string>): boolean {
  if (own.has(word)) return true;
  if (word.length < MIN_PREFIX) return false;
  for (const token of own) {
    if (token.length >= MIN_PREFIX && (token.startsWith(word) || word.startsWith(token))) return true;
  }
  return false;
}

function toReferral(p: Peer): RegistryReferral {
  return { identifier: p.identifier, displayName: p.displayName, type: p.type, url: searchUrlOf(p.baseUrl) };
}
