// What the registry knows about an entry beyond its text, applied after scoring in one place
// (docs/liveness.md "Ranking"): an entry whose endpoint fails ranks below live ones doing the same job
// (LIVENESS_DEMOTION), one dead for longer than LIVENESS_DROP_AFTER_SECONDS leaves the results unless the
// filter names `@liveness`, and a verified one (ARD v0.91 §4.5.2) may rank higher (TRUST_RANK_BOOST, off by
// default); an entry that says it is archived or deprecated (its name, the opening of its description, or a
// `metadata.archived` / `metadata.deprecated` flag) ranks below active ones doing the same job
// (SEARCH_ARCHIVED_DEMOTION). The search pipeline applies it to its matched set, so POST /search, POST /explore and
// federation's `auto` (which fuses the local scores rank gives) all see the same adjusted list.
import { sql, type Kysely } from 'kysely';
import type { RegistryConfig } from '../../config';
import { PREPARED_STATEMENT } from '../../db/prepared-statements';
import type { Database } from '../../db/schema';
import { filtersOnLiveness, type NormalisedFilter } from '../query-filter';
import { rankBy, typeWeight, type Match } from './scoring';

export interface EntryStateRanking {
  /** Failing entries (unreachable, dead) rank at (relevance x type weight) x (1 - demotion); 0 = off. */
  livenessDemotion: number;
  /** An entry dead for longer than this (seconds) is left out unless the filter names `@liveness`. */
  dropDeadAfterSeconds: number;
  /** Verified entries rank at r + boost x (1 - r), r = relevance x type weight; 0 = off. */
  verifiedBoost: number;
  /** Entries that say they are archived or deprecated rank at (relevance x type weight) x (1 - demotion); 0 = off. */
  archivedDemotion?: number;
}

/** The ranking's entry states from the settings: LIVENESS_DEMOTION, LIVENESS_DROP_AFTER_SECONDS, TRUST_RANK_BOOST, SEARCH_ARCHIVED_DEMOTION. */
export function entryStateRanking(
  config: Pick<RegistryConfig, 'liveness' | 'trustRankBoost' | 'searchArchivedDemotion'>,
): EntryStateRanking {
  return {
    livenessDemotion: config.liveness.demotion,
    dropDeadAfterSeconds: config.liveness.dropAfterSeconds,
    verifiedBoost: config.trustRankBoost,
    archivedDemotion: config.searchArchivedDemotion,
  };
}

interface EntryStates {
  failing: Set<string>;
  dropped: Set<string>;
  verified: Set<string>;
  archived: Set<string>;
}

/**
 * Matched sets adjusted for their entries' states, read once for all of them (a text with several needs has a list
 * for the whole text and one per need: one statement, not one per list): each list keeps its matches less the
 * long-dead ones, ordered by their adjusted rank (ties by identifier) and scored at it (0-100). `typeWeights` are the
 * ones the pipeline applied, so the adjustment starts from the rank each list is in.
 */
export async function adjustForEntryState(
  db: Kysely<Database>,
  lists: ReadonlyArray<readonly Match[]>,
  filter: NormalisedFilter,
  ranking: EntryStateRanking,
  typeWeights: Readonly<Record<string, number>>,
  now: Date = new Date(),
): Promise<ReadonlyArray<readonly Match[]>> {
  const identifiers = [...new Set(lists.flatMap((list) => list.map((m) => m.identifier)))];
  if (identifiers.length === 0) return lists;
  const states = await entryStates(db, identifiers, ranking, filtersOnLiveness(filter), now);
  if (states.failing.size + states.dropped.size + states.verified.size + states.archived.size === 0) return lists;
  return lists.map((matches) => {
    const kept = states.dropped.size === 0 ? matches : matches.filter((m) => !states.dropped.has(m.identifier));
    return rankBy(kept, (match) => {
      let rank = match.relevance * typeWeight(match, filter, typeWeights);
      if (states.archived.has(match.identifier)) rank *= 1 - (ranking.archivedDemotion ?? 0);
      if (states.failing.has(match.identifier)) return rank * (1 - ranking.livenessDemotion);
      if (states.verified.has(match.identifier)) return rank + ranking.verifiedBoost * (1 - rank);
      return rank;
    });
  });
}

/**
 * The matches' liveness, trust and retirement states that change their rank, in one statement. Only the matches
 * with a state are read: the retired ones from the partial index of `entries.retired` (migration 0025), the failing
 * and verified ones from their tables' primary keys; an entry without any state is not read at all.
 */
async function entryStates(
  db: Kysely<Database>,
  ids: readonly string[],
  ranking: EntryStateRanking,
  keepDead: boolean,
  now: Date,
): Promise<EntryStates> {
  const dropBefore = new Date(now.getTime() - ranking.dropDeadAfterSeconds * 1000).toISOString();
  const boost = ranking.verifiedBoost > 0;
  const retire = (ranking.archivedDemotion ?? 0) > 0;
  const { rows } = await sql<{
    identifier: string;
    failing: boolean;
    dropped: boolean;
    verified: boolean;
    archived: boolean;
  }>`${PREPARED_STATEMENT}
    WITH ids AS MATERIALIZED (SELECT unnest(${ids}::text[]) AS identifier),
    stated AS (
      SELECT e.identifier FROM entries e WHERE ${retire} AND e.retired AND e.identifier IN (SELECT identifier FROM ids)
      UNION
      SELECT l.identifier FROM entry_liveness l WHERE l.state IN ('unreachable', 'dead') AND l.identifier IN (SELECT identifier FROM ids)
      UNION
      SELECT v.identifier FROM entry_verification v WHERE ${boost} AND v.state = 'verified' AND v.identifier IN (SELECT identifier FROM ids)
    )
    SELECT e.identifier,
           ${retire} AND e.retired AS archived,
           coalesce(l.state IN ('unreachable', 'dead'), false) AS failing,
           coalesce(NOT ${keepDead} AND l.state = 'dead' AND l.dead_since <= ${dropBefore}::timestamptz, false) AS dropped,
           coalesce(v.state = 'verified', false) AS verified
    FROM stated s
    JOIN entries e ON e.identifier = s.identifier
    LEFT JOIN entry_liveness l ON l.identifier = e.identifier AND l.content_hash = e.content_hash
    LEFT JOIN entry_verification v ON ${boost} AND v.identifier = e.identifier AND v.content_hash = e.content_hash`.execute(db);
  const states: EntryStates = { failing: new Set(), dropped: new Set(), verified: new Set(), archived: new Set() };
  for (const row of rows) {
    if (row.archived) states.archived.add(row.identifier);
    if (row.dropped) states.dropped.add(row.identifier);
    else if (row.failing && ranking.livenessDemotion > 0) states.failing.add(row.identifier);
    else if (row.verified && boost) states.verified.add(row.identifier);
  }
  return states;
}
