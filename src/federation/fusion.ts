// Merging this registry's ranked list with its peers' ranked lists (pure; no I/O).
//
// Every item arrives with its score on this registry's 0-100 scale: our own results with the score our
// search gave them, a peer's with its calibrated score (score-calibration.ts). Each list is
// non-increasing in score (the caller makes a peer's list so, counting what it had to lower), so a
// k-way merge by score is exact: the merged list is ordered by score, ties to the earlier list (ours
// first, then peers in the order asked). The score shown is that score, rounded; nothing caps it.
//
// De-duplication (by identifier): a peer's copy of an identifier in our ranked list is dropped wherever
// it appears, on any page (ours is shown at our rank). Between peers, the copy merged first wins; later
// copies are dropped, also on later pages (the page token remembers hashes of the identifiers emitted
// from peers).
import { createHash } from 'node:crypto';
import type { CatalogEntry } from '../catalog/catalog-entry';
import type { PeerEntry } from './peer-response';

export interface FusionItem {
  entry: CatalogEntry | PeerEntry;
  /** On this registry's 0-100 scale. */
  score: number;
  source: string;
  /** A result dropped after its list was read: consumed like a duplicate, never shown. */
  dropped?: boolean;
}

export interface FusionList {
  /** 'local' or a peer's base URL. */
  key: string;
  local: boolean;
  /** The not yet consumed part of the list that is at hand, in rank order, scores non-increasing. */
  items: FusionItem[];
  /** Score of the last item consumed before items[0] (100 at the start): no later item scores more. */
  lastScore: number;
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
}

/** A result as shown: the entry (complete, or the v0.91 partial shape) with its score and source. */
export type FusedResult = (CatalogEntry | PeerEntry) & { score: number; source: string };

export interface FusionOutput {
  results: FusedResult[];
  /** Items consumed from each list (emitted or dropped as duplicates), by key. */
  consumed: Map<string, number>;
  /** Score of the last item consumed from each list, by key. */
  lastScores: Map<string, number>;
  newPeerHashes: string[];
}

export function identifierHash(identifier: string): string {
  return createHash('sha256').update(identifier).digest('base64url').slice(0, 10);
}

export function fuseLists(input: FusionInput): FusionOutput {
  const pos = input.lists.map(() => 0);
  const last = input.lists.map((l) => l.lastScore);
  const emittedHere = new Set<string>();
  const newPeerHashes: string[] = [];
  const results: FusedResult[] = [];

  const isDuplicate = (list: FusionList, item: FusionItem): boolean => {
    if (list.local) return false;
    if (item.dropped) return true;
    const id = item.entry.identifier;
    return input.localIds.has(id) || emittedHere.has(id) || input.emittedPeerHashes.has(identifierHash(id));
  };

  while (results.length < input.pageSize) {
    let best = -1;
    let bestScore = -Infinity;
    let bound = -Infinity; // the most an unseen item of a list that ran out of items at hand could score
    input.lists.forEach((list, i) => {
      while (pos[i]! < list.items.length && isDuplicate(list, list.items[pos[i]!]!)) {
        last[i] = list.items[pos[i]!]!.score;
        pos[i]!++;
      }
      if (pos[i]! >= list.items.length) {
        if (!list.complete) bound = Math.max(bound, last[i]!);
        return;
      }
      const score = list.items[pos[i]!]!.score;
      // Ties go to the earlier list (ours first), which forEach order gives with a strict comparison.
      if (score > bestScore) {
        best = i;
        bestScore = score;
      }
    });
    if (best < 0 || bound > bestScore) break;
    const list = input.lists[best]!;
    const item = list.items[pos[best]!]!;
    pos[best]!++;
    last[best] = bestScore;
    const { score: _s, source: _src, ...entry } = item.entry as CatalogEntry & { score?: unknown; source?: unknown };
    results.push({ ...entry, score: Math.round(bestScore), source: item.source });
    if (!list.local) {
      emittedHere.add(item.entry.identifier);
      newPeerHashes.push(identifierHash(item.entry.identifier));
    }
  }
  return {
    results,
    consumed: new Map(input.lists.map((l, i) => [l.key, pos[i]!])),
    lastScores: new Map(input.lists.map((l, i) => [l.key, last[i]!])),
    newPeerHashes,
  };
}
