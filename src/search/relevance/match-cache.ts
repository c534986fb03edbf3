// The ranked lists a process has computed, kept for the same need text and filter while the index does not change
// (decision 0049). POST /search's next pages, POST /explore after a search, a text asked again and the implied needs
// several task texts share are then read from memory instead of ranked again.
//
// What is kept is a need's list before the entries' states (liveness, trust, archived: entry-state-adjustment.ts),
// which are read for every request, so a probe or a verification shows in the next search without touching the cache.
// What the kept part reads changes only with a committed write to the entries or their vectors, and each such commit
// moves the index generation (migration 0027). A list is kept under the generation read before it was computed, and
// only when the generation read after it is the same: a write committed while it was ranked leaves it out.
import { sql, type Kysely } from 'kysely';
import { LRUCache } from 'lru-cache';
import { PREPARED_STATEMENT } from '../../db/prepared-statements';
import type { Database } from '../../db/schema';
import type { NormalisedFilter } from '../query-filter';
import type { Match } from './scoring';

/**
 * The index generation as the server that answers has it (a replica's is the primary's as of its replay), with the
 * server: `<counter>@<address>:<port>/<primary|replica>`. The read pool may hand a request's statements to a replica
 * or, while it lags or is down, to the primary; a list is kept only when both reads came from the same server at the
 * same counter, and it is found only by a read from that server.
 */
export async function readIndexGeneration(db: Kysely<Database>): Promise<string> {
  const { rows } = await sql<{ generation: string }>`${PREPARED_STATEMENT}
    SELECT value || '@' || coalesce(host(inet_server_addr()), 'local') || ':' || coalesce(inet_server_port(), 0)
      || CASE WHEN pg_is_in_recovery() THEN '/replica' ELSE '/primary' END AS generation
    FROM index_generation`.execute(db);
  if (rows.length !== 1) throw new Error('index_generation has no row: is migration 0027 applied?');
  return rows[0].generation;
}

interface Kept {
  generation: string;
  matches: readonly Match[];
}

export interface MatchCacheStats {
  hits: number;
  /** Lookups that found the same list being ranked by another request at the same generation, and waited for it. */
  joined: number;
  misses: number;
  /** Lists computed but not kept: the index changed while they were ranked. */
  discarded: number;
  lists: number;
  matches: number;
}

/** What a lookup finds: a kept list, a ranking of it in flight, or nothing (the caller ranks). */
export type MatchLookup = { kept: readonly Match[] } | { ranking: Promise<readonly Match[]> } | undefined;

/**
 * Ranked lists by (model, need text, filter), each under the index generation it was computed at; at most
 * `maxMatches` matches in all, the least recently used dropped first. A kept list is frozen and its matches are shared
 * by every request that reads it: a caller that needs another order or other scores makes new matches, as the
 * pipeline's later steps (entry states, the need page, the scores' confidence, the product collapse) do.
 *
 * A list being ranked is shared too: a request that finds the same key at the same generation in flight (the portal
 * asks POST /search and POST /explore of one text at once) waits for that ranking instead of running its own. Having
 * read the same generation, it started before any write the ranking could have missed was committed.
 */
export class MatchCache {
  private readonly lists: LRUCache<string, Kept>;
  private readonly inFlight = new Map<string, Promise<readonly Match[]>>();
  private readonly counts = { hits: 0, joined: 0, misses: 0, discarded: 0 };

  constructor(maxMatches: number) {
    this.lists = new LRUCache<string, Kept>({ maxSize: Math.max(1, maxMatches), sizeCalculation: (kept) => kept.matches.length + 1 });
  }

  static key(model: string, text: string, filter: NormalisedFilter): string {
    return JSON.stringify([model, text, filter]);
  }

  /** The list kept for `key` at `generation`, or its ranking in flight, or undefined (a list of another generation is dropped). */
  lookup(key: string, generation: string): MatchLookup {
    const kept = this.lists.get(key);
    if (kept && kept.generation === generation) {
      this.counts.hits++;
      return { kept: kept.matches };
    }
    if (kept) this.lists.delete(key);
    const ranking = this.inFlight.get(inFlightKey(key, generation));
    if (ranking) {
      this.counts.joined++;
      return { ranking };
    }
    this.counts.misses++;
    return undefined;
  }

  /** Registers the ranking of `key` at `generation` for other lookups until it settles; returns it. */
  ranking<T extends readonly Match[]>(key: string, generation: string, ranking: Promise<T>): Promise<T> {
    const name = inFlightKey(key, generation);
    this.inFlight.set(name, ranking);
    const settled = () => {
      if (this.inFlight.get(name) === ranking) this.inFlight.delete(name);
    };
    ranking.then(settled, settled);
    return ranking;
  }

  set(key: string, generation: string, matches: readonly Match[]): void {
    // The list is frozen, not its matches: a frozen object takes twice the memory of a plain one in V8 (~600 bytes
    // against ~290 per match), and the pipeline's later steps already make new matches rather than change these.
    this.lists.set(key, { generation, matches: Object.freeze(matches) });
  }

  /** Counts a list computed at a generation that moved before it was done. */
  discard(): void {
    this.counts.discarded++;
  }

  stats(): MatchCacheStats {
    // Each list's size is its matches + 1 (sizeCalculation).
    return { ...this.counts, lists: this.lists.size, matches: this.lists.calculatedSize - this.lists.size };
  }

  /** How many rankings are in flight now. */
  get rankingsInFlight(): number {
    return this.inFlight.size;
  }
}

function inFlightKey(key: string, generation: string): string {
  return `${generation} ${key}`;
}
