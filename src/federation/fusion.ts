// Merging this registry's ranked list with its peers' ranked lists (pure; no I/O).
//
// Fusion: weighted reciprocal rank fusion, CombMAX form, gated by the item's own score:
//   F(item in list L at 1-based rank r) = w_L * (K + 1) / (K + r) * (0.5 + 0.5 * s / 100)
// with K = 60 (the usual RRF constant), w = 1.0 for this registry's list and 0.9 for a peer's, and
// s the item's score made non-increasing down its list (a running minimum), so F only falls along
// every list and a k-way merge of the lists is exact. Rank makes registries with different score
// calibrations comparable; the score gate keeps a peer's weak top hit from outranking our strong
// second one; the local weight means that at equal rank and score our own copy comes first, so a
// local exact match (high score, rank 1) is never buried under peers' hits.
//
// De-duplication (by identifier): our own copy wins whenever the identifier is in our ranked list
// (we validated and indexed it; `source` is our PUBLIC_URL) and peers' copies are dropped wherever
// they appear, on any page. Between peers, the copy merged first wins (the best F, ties to the peer
// listed first); later copies are dropped, also on later pages (the page token remembers hashes of
// the identifiers emitted from peers).
//
// Scores out: min(the winning copy's score, the previous result's score): never more than the
// registry that found it claims, and non-increasing down the merged list, so 0-100 keeps meaning
// relevance.
import { createHash } from 'node:crypto';
import type { CatalogEntry } from '../catalog/catalog-entry';
import type { SearchResultItem } from '../search/search-service';

export const RRF_K = 60;
export const LOCAL_WEIGHT = 1;
export const PEER_WEIGHT = 0.9;

export interface FusionItem {
  entry: CatalogEntry;
  score: number;
  source: string;
}

export interface FusionList {
  /** 'local' or a peer's base URL. */
  key: string;
  local: boolean;
  /** The not yet consumed part of the list that is at hand, in rank order. */
  items: FusionItem[];
  /** 0-based rank (in the whole list) of items[0]. */
  startRank: number;
  /** Running minimum of the scores consumed before items[0] (100 at the start). */
  minScore: number;
  /** True when nothing follows `items` in this list. */
  complete: boolean;
}

export interface FusionInput {
  lists: FusionList[];
  pageSize: number;
  /** Identifiers in this registry's whole ranked list (its copies win). */
  localIds: ReadonlySet<string>;
  /** Hashes of identifiers already emitted from peers on earlier pages. */
  emittedPeerHashes: ReadonlySet<string>;
  /** Score of the last result of the previous page (100 on the first). */
  lastScore: number;
}

export interface FusionOutput {
  results: SearchResultItem[];
  /** Items consumed from each list (emitted or dropped as duplicates), by key. */
  consumed: Map<string, number>;
  /** Running minimum score of each list after this page, by key. */
  minScores: Map<string, number>;
  lastScore: number;
  newPeerHashes: string[];
}

export function identifierHash(identifier: string): string {
  return createHash('sha256').update(identifier).digest('base64url').slice(0, 10);
}

export function fusedValue(local: boolean, rank0: number, score: number): number {
  return ((local ? LOCAL_WEIGHT : PEER_WEIGHT) * (RRF_K + 1)) / (RRF_K + rank0 + 1) * (0.5 + (0.5 * score) / 100);
}

export function fuseLists(input: FusionInput): FusionOutput {
  const pos = input.lists.map(() => 0);
  const mins = input.lists.map((l) => l.minScore);
  const emittedHere = new Set<string>();
  const newPeerHashes: string[] = [];
  const results: SearchResultItem[] = [];
  let lastScore = input.lastScore;

  const isDuplicate = (list: FusionList, item: FusionItem): boolean => {
    if (list.local) return false;
    const id = item.entry.identifier;
    return input.localIds.has(id) || emittedHere.has(id) || input.emittedPeerHashes.has(identifierHash(id));
  };

  while (results.length < input.pageSize) {
    let best = -1;
    let bestF = -Infinity;
    let bestScore = 0;
    let bound = -Infinity; // the most any unseen item of a list that ran out of items at hand could be worth
    input.lists.forEach((list, i) => {
      while (pos[i]! < list.items.length && isDuplicate(list, list.items[pos[i]!]!)) {
        mins[i] = Math.min(mins[i]!, list.items[pos[i]!]!.score);
        pos[i]!++;
      }
      if (pos[i]! >= list.items.length) {
        if (!list.complete) bound = Math.max(bound, fusedValue(list.local, list.startRank + pos[i]!, mins[i]!));
        return;
      }
      const score = Math.min(mins[i]!, list.items[pos[i]!]!.score);
      const f = fusedValue(list.local, list.startRank + pos[i]!, score);
      // Ties: higher score, then list order (local first), which forEach order already gives.
      if (f > bestF || (f === bestF && score > bestScore)) {
        best = i;
        bestF = f;
        bestScore = score;
      }
    });
    if (best < 0 || bound >= bestF) break;
    const list = input.lists[best]!;
    const item = list.items[pos[best]!]!;
    pos[best]!++;
    mins[best] = bestScore;
    lastScore = Math.min(lastScore, bestScore);
    const { score: _s, source: _src, ...entry } = item.entry as CatalogEntry & { score?: unknown; source?: unknown };
    results.push({ ...(entry as CatalogEntry), score: lastScore, source: item.source });
    if (!list.local) {
      emittedHere.add(item.entry.identifier);
      newPeerHashes.push(identifierHash(item.entry.identifier));
    }
  }
  return {
    results,
    consumed: new Map(input.lists.map((l, i) => [l.key, pos[i]!])),
    minScores: new Map(input.lists.map((l, i) => [l.key, mins[i]!])),
    lastScore,
    newPeerHashes,
  };
}
