// What stops a federated search from coming back (ARD §8 leaves the mechanism to registries).
// Without any header (a peer that ignores them all, or one that implements `auto` by asking us with
// `auto` again, as the spec allows):
// - In-flight queries: while this registry waits on its peers for a query, the query's fingerprint
//   (text and filter) is held here; an `auto` request for the same fingerprint that arrives meanwhile,
//   without a page token, is answered with `none` at once (it is our own query coming back).
// - Page sizes never grow: a peer is asked for the caller's pageSize, never more.
// Headers, a documented extension of this registry (no spec names them):
// - ARD-Federation-Hops: how many more registry-to-registry hops the receiver may take. A receiver
//   that gets 0 searches only its own index. Without the header a registry starts from its own
//   FEDERATION_MAX_HOPS; with it, the smaller of the two.
// - ARD-Federation-Visited: the base URLs of registries already in this fan-out (comma-separated):
//   the sender, the registries before it, and every peer the sender asks in this round (the
//   receiver included, so two peers of one round do not ask each other). A receiver never queries
//   a registry on the list, nor itself.
// - ARD-Federation-Budget-Ms: how long the sender still waits for the receiver; the receiver's
//   budget is the smaller of its own and this one less a margin for the way back, so a deeper hop
//   never outlives its caller.
import { queryKey } from '../search/paging';
import type { NormalisedFilter } from '../search/query-filter';
import { normalisePeerBase } from './peer-directory';

export const HOPS_HEADER = 'ard-federation-hops';
export const VISITED_HEADER = 'ard-federation-visited';
export const BUDGET_HEADER = 'ard-federation-budget-ms';

/** Visited lists longer than this are cut (a header is not a place for a crawl frontier). */
export const MAX_VISITED = 64;
/** Time kept back for the answer's way back and our own merge. */
export const RETURN_MARGIN_MS = 50;

export interface FederationHop {
  /** Hops this registry may still take; 0 = local only. */
  hopsLeft: number;
  /** Normalised base URLs already visited. */
  visited: string[];
  /** Time budget for this request, in ms. */
  budgetMs: number;
}

type Headers = Record<string, string | string[] | undefined>;

function header(headers: Headers, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(',') : value;
}

export function readFederationHop(headers: Headers, limits: { maxHops: number; budgetMs: number }): FederationHop {
  const rawHops = header(headers, HOPS_HEADER);
  const parsedHops = rawHops !== undefined && /^\s*\d{1,3}\s*$/.test(rawHops) ? Number(rawHops) : undefined;
  const visited = parseVisited(header(headers, VISITED_HEADER));
  const hopsLeft = parsedHops === undefined ? limits.maxHops : Math.min(parsedHops, limits.maxHops);
  const rawBudget = header(headers, BUDGET_HEADER);
  const upstream = rawBudget !== undefined && /^\s*\d{1,7}\s*$/.test(rawBudget) ? Number(rawBudget) - RETURN_MARGIN_MS : undefined;
  const budgetMs = upstream === undefined ? limits.budgetMs : Math.max(0, Math.min(limits.budgetMs, upstream));
  return { hopsLeft, visited, budgetMs };
}

export function parseVisited(raw: string | undefined): string[] {
  if (!raw) return [];
  const out: string[] = [];
  for (const part of raw.split(',')) {
    const base = normalisePeerBase(part.trim());
    if (base && !out.includes(base)) out.push(base);
    if (out.length >= MAX_VISITED) break;
  }
  return out;
}

/** Headers for a call to a peer: one hop fewer, the visited list, the time left to the sender's peer deadline. */
export function federationHeaders(hopsLeftForPeer: number, visited: readonly string[], remainingMs: number): Record<string, string> {
  return {
    [HOPS_HEADER]: String(Math.max(0, hopsLeftForPeer)),
    [VISITED_HEADER]: visited.slice(0, MAX_VISITED).join(','),
    [BUDGET_HEADER]: String(Math.max(0, Math.floor(remainingMs))),
  };
}

/** The fingerprint of a query across hops: its text and filter (not the page size, which peers may change). */
export function queryFingerprint(text: string, filter: NormalisedFilter): string {
  return queryKey({ op: 'federated-query', text, filter });
}

/** Fingerprints of the queries this registry is waiting on peers for, with how many such waits. */
export class InFlightQueries {
  private readonly waits = new Map<string, number>();

  has(fingerprint: string): boolean {
    return this.waits.has(fingerprint);
  }

  /** Holds `fingerprint` until the returned release is called (once). */
  hold(fingerprint: string): () => void {
    this.waits.set(fingerprint, (this.waits.get(fingerprint) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const n = (this.waits.get(fingerprint) ?? 1) - 1;
      if (n <= 0) this.waits.delete(fingerprint);
      else this.waits.set(fingerprint, n);
    };
  }
}
