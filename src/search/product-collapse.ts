// One product, one result (docs/relevance.md "One product, one result", decision 0036): entries that are the same
// product (catalog/product-keys.ts: a shared repository, package or remote endpoint) collapse to the best ranked
// of them. Applied by the search service to the whole ranked list before it is cut into pages, so a collapsed
// entry is on no page and the page tokens' offsets stay those of one list. POST /explore counts the matched set
// without it.
import { sql, type Kysely } from 'kysely';
import { LRUCache } from 'lru-cache';
import { productKeys, type ProductKeys } from '../catalog/product-keys';
import { PREPARED_STATEMENT } from '../db/prepared-statements';
import type { Database } from '../db/schema';
import type { Match } from './relevance';

/** A ranked list with the entries of the same product as a better one left out. */
export interface CollapsedList {
  matches: Match[];
  /** For each kept entry that stands for others: their identifiers, best first. */
  collapsed: ReadonlyMap<string, string[]>;
}

/** Content versions whose product keys are remembered: a 10k index's entries twice over (~1 MB). */
export const PRODUCT_KEY_CACHE_SIZE = 20_000;

/**
 * Product keys by content hash, least recently used dropped past `limit`: keys are a function of the content, so
 * each version of an entry is normalised once (URL parsing was ~1.5-3 ms of the collapse of a 270-entry list).
 *
 * Beside them, the keys of the entries read at one index generation (match-cache.ts), by identifier, at most `limit`:
 * an entry's product fields change only with a committed write, which moves the generation, so a list ranked at the
 * generation the keys were read at collapses without reading them again (the statement and its rows were ~1.6 ms of
 * a search at 10k entries, docs/performance.md). A list of another generation starts them anew.
 *
 * Both are `lru-cache`s, not Maps trimmed by deleting their first key: a Map keeps a deleted entry's slot until it is
 * rehashed, and finding the first key steps over every such slot, so once full each insert cost more than the one
 * before (at 100k entries ~2 ms of a new text's search, docs/performance.md "A new text's round trips").
 */
export class ProductKeyCache {
  private readonly byHash: LRUCache<string, ProductKeys>;
  private generation: string | undefined;
  private readonly byIdentifier: LRUCache<string, ProductKeys>;
  constructor(limit = PRODUCT_KEY_CACHE_SIZE) {
    this.byHash = new LRUCache({ max: limit });
    this.byIdentifier = new LRUCache({ max: limit });
  }

  keysOf(contentHash: string, fields: Parameters<typeof productKeys>[0]): ProductKeys {
    const known = this.byHash.get(contentHash);
    if (known) return known;
    const keys = productKeys(fields);
    this.byHash.set(contentHash, keys);
    return keys;
  }

  /** The keys of `identifier` as read at `generation`, if they were. */
  keysAt(generation: string, identifier: string): ProductKeys | undefined {
    return generation === this.generation ? this.byIdentifier.get(identifier) : undefined;
  }

  /** Remembers `identifier`'s keys as read at `generation`; those of another generation are forgotten. */
  rememberAt(generation: string, identifier: string, keys: ProductKeys): void {
    if (generation !== this.generation) {
      this.generation = generation;
      this.byIdentifier.clear();
    }
    this.byIdentifier.set(identifier, keys);
  }
}

/**
 * The ranked list collapsed by product, the keys read for its entries in one statement (primary key lookups). With
 * the index `generation` the list was ranked at (pipeline.ts matchTextAt), only the entries whose keys `cache` has not
 * read at that generation are read.
 */
export async function collapseProducts(
  db: Kysely<Database>,
  matches: Match[],
  cache = new ProductKeyCache(),
  generation?: string,
): Promise<CollapsedList> {
  if (matches.length < 2) return { matches, collapsed: new Map() };
  return collapseByProduct(matches, await readProductKeys(db, matches, cache, generation));
}

/**
 * Keeps the first (best ranked) entry of each product, in the list's order. Entries of one type are the same
 * product when they share a key, transitively. A repository named without a directory is a key only when it is not a
 * repository of several servers: not when an entry of the list names a directory inside it, nor when two
 * entries naming it have packages and none in common (`modelcontextprotocol/servers` lists `mcp/github` and
 * `mcp/slack`).
 */
export function collapseByProduct(matches: Match[], keysOf: ReadonlyMap<string, ProductKeys>): CollapsedList {
  const keys = matches.map((m) => keysOf.get(m.identifier) ?? { packages: [], remotes: [] });
  const parent = matches.map((_m, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i])));
  const owner = new Map<string, number>();
  // Only entries of one type are the same product: a library record about a repository is not its MCP server.
  const join = (key: string, i: number) => {
    const typed = `${matches[i].type ?? ''} ${key}`;
    const first = owner.get(typed);
    if (first === undefined) owner.set(typed, i);
    else parent[find(i)] = find(first);
  };
  const severalServers = repositoriesOfSeveralServers(keys);
  keys.forEach((k, i) => {
    const repository = k.repository;
    if (repository?.directory) join(`repo:${repository.base}//${repository.directory}`, i);
    else if (repository && !severalServers.has(repository.base)) join(`repo:${repository.base}`, i);
    for (const key of [...k.packages, ...k.remotes]) join(key, i);
  });
  const kept: Match[] = [];
  const collapsed = new Map<string, string[]>();
  const keptOfGroup = new Map<number, string>();
  matches.forEach((match, i) => {
    const group = find(i);
    const first = keptOfGroup.get(group);
    if (first === undefined) {
      keptOfGroup.set(group, match.identifier);
      kept.push(match);
    } else {
      collapsed.set(first, [...(collapsed.get(first) ?? []), match.identifier]);
    }
  });
  return { matches: kept, collapsed };
}

/** Repositories named without a directory that hold several servers, as the list's own entries show. */
function repositoriesOfSeveralServers(keys: ProductKeys[]): Set<string> {
  const several = new Set<string>();
  const packagesByBase = new Map<string, Array<Set<string>>>();
  for (const { repository, packages } of keys) {
    if (!repository) continue;
    if (repository.directory) several.add(repository.base);
    else if (packages.length > 0) packagesByBase.set(repository.base, [...(packagesByBase.get(repository.base) ?? []), new Set(packages)]);
  }
  for (const [base, sets] of packagesByBase) {
    const disjoint = sets.some((a, i) => sets.slice(i + 1).some((b) => ![...a].some((p) => b.has(p))));
    if (disjoint) several.add(base);
  }
  return several;
}

/**
 * The fields productKeys reads, for the listed entries: `product_fields`, written with the entry (migration 0018);
 * at a `generation`, those `cache` read at it are not read again. A deleted entry has none.
 */
async function readProductKeys(
  db: Kysely<Database>,
  matches: Match[],
  cache: ProductKeyCache,
  generation: string | undefined,
): Promise<Map<string, ProductKeys>> {
  const keys = new Map<string, ProductKeys>();
  const ids: string[] = [];
  for (const { identifier } of matches) {
    const known = generation === undefined ? undefined : cache.keysAt(generation, identifier);
    if (known) keys.set(identifier, known);
    else ids.push(identifier);
  }
  if (ids.length === 0) return keys;
  const { rows } = await sql<{ identifier: string; content_hash: string; fields: Parameters<typeof productKeys>[0] }>`${PREPARED_STATEMENT}
    SELECT identifier, content_hash, product_fields AS fields
    FROM entries WHERE identifier = ANY(${ids}::text[]) AND deleted_at IS NULL`.execute(db);
  for (const r of rows) {
    const read = cache.keysOf(r.content_hash, r.fields);
    if (generation !== undefined) cache.rememberAt(generation, r.identifier, read);
    keys.set(r.identifier, read);
  }
  return keys;
}
