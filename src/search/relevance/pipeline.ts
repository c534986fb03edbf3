// The ranking pipeline: the matched set for a query text, shared by POST /search (ranking) and POST /explore
// (the matched set): one definition, one cutoff (ARD §7.3). Its stages are RankingStages; production runs
// PRODUCTION_STAGES, the benchmark's ablations (ablations.ts) swap some of them.
//
// Pipelined: the lexical retrieval runs in PostgreSQL while the query is embedded, the HNSW scan beside it once the
// embedding is known (with the named entries and the topic labels), then the new vector candidates' signals and the
// lexical candidates' cosines side by side: each on its own pooled connection.
import type { Kysely } from 'kysely';
import { cjkGloss } from '../../catalog/cjk-glossary';
import type { Database } from '../../db/schema';
import { filtersOnEntryStates, type NormalisedFilter } from '../query-filter';
import { compareText, embeddingText } from '../query-text';
import { BUNDLED_VOCABULARY, type QueryVocabulary } from '../query-vocabulary';
import {
  queryWords,
  resolveTerms,
  type LexicalQuery,
  type PreparedQuery,
  type QueryEmbedder,
  type QueryWordsStage,
} from './query-understanding';
import {
  cosineLookup,
  lexicalRetrieval,
  mergeSignals,
  namedRetrieval,
  nearestEntries,
  TOOL_CANDIDATES,
  toolCosineLookup,
  POSTINGS_PER_LEXEME,
  SEMANTIC_FIELDS,
  vectorSignals,
  type CandidateSignals,
  type CosineLookup,
  type ToolCosineLookup,
  type LexicalRetrieval,
  type NamedRetrieval,
  type NearestEntries,
  type VectorSignals,
} from './retrieval';
import {
  applyTypeWeights,
  calibrate,
  scoreSignals,
  threshold,
  toMatches,
  type CalibrationStage,
  confidentScores,
  type Match,
  type ThresholdStage,
} from './scoring';
import { adjustForEntryState, type EntryStateRanking } from './entry-state-adjustment';
import { withToolCosine } from './signals';
import { topicLabels, type TopicLabelsStage } from './topic-labels';
import { isImpliedNeed, needTexts, type NeedTextsStage } from './need-texts';
import { assembleNeedPage } from './need-page';
import { MatchCache, readIndexGeneration } from './match-cache';

/** The stages of the pipeline, in the order they run. */
export interface RankingStages {
  /** A text that asks for several things, split into its needs' texts (need-texts.ts). */
  needTexts: NeedTextsStage;
  /** Query understanding: the words as typed, their expansions, corrections and completions. */
  queryWords: QueryWordsStage;
  lexicalRetrieval: LexicalRetrieval;
  /** The vector retrieval: the nearest entries' identifiers, then the signals of those no other statement scored. */
  nearestEntries: NearestEntries;
  vectorSignals: VectorSignals;
  cosineLookup: CosineLookup;
  namedRetrieval: NamedRetrieval;
  /** The best candidates' nearest tool vectors, which raise their cosine (withToolCosine). */
  toolCosines: ToolCosineLookup;
  topicLabels: TopicLabelsStage;
  /** Signals to [0, 1]. */
  calibrate: CalibrationStage;
  /** Who is matched: the cutoff and minimum matches. */
  threshold: ThresholdStage;
}

export const PRODUCTION_STAGES: RankingStages = {
  needTexts,
  queryWords,
  lexicalRetrieval: lexicalRetrieval(POSTINGS_PER_LEXEME, SEMANTIC_FIELDS),
  nearestEntries: nearestEntries(SEMANTIC_FIELDS),
  vectorSignals: vectorSignals(SEMANTIC_FIELDS),
  cosineLookup: cosineLookup(SEMANTIC_FIELDS),
  namedRetrieval: namedRetrieval(SEMANTIC_FIELDS),
  toolCosines: toolCosineLookup,
  topicLabels,
  calibrate,
  threshold,
};

/**
 * Receives the duration of the pipeline's stages, which overlap: 'embedding' (the query embedding) runs while
 * part of 'sql' (the statements' wall time, summed) does.
 */
export interface StageTimings {
  observe(stage: 'embedding' | 'sql', seconds: number): void;
}

/** What the pipeline runs on: the search service holds one (search-service.ts). */
export interface RankingDeps {
  db: Kysely<Database>;
  embedder: QueryEmbedder;
  /** The synonyms and related words that expand the query (SEARCH_SYNONYMS_FILE, ...); default the bundled tables. */
  vocabulary?: QueryVocabulary;
  /**
   * Rank weight by entry type (SEARCH_TYPE_WEIGHTS; none by default), used only when the filter does not
   * name `type`: the entry ranks and scores at relevance x weight. Membership (the cutoff) stays on the
   * relevance itself, so explore's counts do not depend on it (applyTypeWeights).
   */
  typeWeights?: Readonly<Record<string, number>>;
  /**
   * The entries' liveness and trust states in the ranking (LIVENESS_DEMOTION, LIVENESS_DROP_AFTER_SECONDS,
   * TRUST_RANK_BOOST): entry-state-adjustment.ts, after the type weights. Absent: the text alone ranks.
   */
  entryStates?: EntryStateRanking;
  timings?: StageTimings;
  /**
   * Ranked lists kept while the index does not change (SEARCH_MATCH_CACHE_SIZE, match-cache.ts); absent: every
   * request ranks its texts. Used with the production stages only.
   */
  matchCache?: MatchCache;
}

/** Sums the wall time of the statements it runs. */
class SqlClock {
  ms = 0;
  async time<T>(work: () => Promise<T>): Promise<T> {
    const start = performance.now();
    try {
      return await work();
    } finally {
      this.ms += performance.now() - start;
    }
  }
}

/**
 * The matched set for a query text and filter. A text with several needs (needTexts) is ranked as a whole and
 * need by need, at the same time, and its list opens with the best entry of each need (need-page.ts).
 */
export async function matchText(
  deps: RankingDeps,
  text: string,
  filter: NormalisedFilter,
  stages: RankingStages = PRODUCTION_STAGES,
): Promise<Match[]> {
  return (await matchTextAt(deps, text, filter, stages)).matches;
}

/** A text's matched set (matchText) and the index generation it was ranked at, when the match cache read one. */
export interface MatchedSet {
  matches: Match[];
  /**
   * The index generation read before the lists were ranked or found (match-cache.ts); undefined without a match
   * cache or for a filter on the entries' states. What is kept per generation beside the lists (the product keys
   * of product-collapse.ts) is valid for the same generation.
   */
  generation?: string;
}

/** matchText, with the index generation the set was ranked at (MatchedSet). */
export async function matchTextAt(
  deps: RankingDeps,
  text: string,
  filter: NormalisedFilter,
  stages: RankingStages = PRODUCTION_STAGES,
): Promise<MatchedSet> {
  const needs = stages.needTexts(text);
  const { lists, generation } = await needLists(deps, [text, ...needs], filter, stages);
  const [whole, ...perNeed] = lists;
  const matches = confidentScores(needs.length === 0 ? whole : assembleNeedPage(whole, perNeed, { implied: needs.map(isImpliedNeed) }));
  return { matches, ...(generation !== undefined ? { generation } : {}) };
}

/**
 * Each text's matched set with the entries' states applied, the texts at the same time. With a match cache
 * (production stages, a filter that does not name an entry state) a text's list comes from it when the index
 * generation has not moved since it was kept; the lists ranked here are kept when it did not move while they were
 * (match-cache.ts); one being ranked by another request at the same generation is waited for. The entries' states are
 * read for every request, kept list or not, in one statement for all the texts' lists, beside the second read. With a
 * match cache, the generation read first comes back with the lists.
 */
async function needLists(
  deps: RankingDeps,
  texts: string[],
  filter: NormalisedFilter,
  stages: RankingStages,
): Promise<{ lists: ReadonlyArray<readonly Match[]>; generation?: string }> {
  const cache = stages === PRODUCTION_STAGES && !filtersOnEntryStates(filter) ? deps.matchCache : undefined;
  const withStates = (lists: ReadonlyArray<readonly Match[]>) => withEntryStates(deps, lists, filter);
  if (!cache) return { lists: await withStates(await Promise.all(texts.map((t) => matchNeed(deps, t, filter, stages)))) };
  const generation = await readIndexGeneration(deps.db);
  const ranked = new Map<string, Match[]>();
  const lists = await Promise.all(
    texts.map(async (t) => {
      const key = MatchCache.key(deps.embedder.id, t, filter);
      const found = cache.lookup(key, generation);
      if (found) return 'kept' in found ? found.kept : found.ranking;
      const list = await cache.ranking(key, generation, matchNeed(deps, t, filter, stages));
      ranked.set(key, list);
      return list;
    }),
  );
  if (ranked.size === 0) return { lists: await withStates(lists), generation };
  const [after, adjusted] = await Promise.all([readIndexGeneration(deps.db), withStates(lists)]);
  if (after === generation) for (const [key, list] of ranked) cache.set(key, generation, list);
  else cache.discard();
  return { lists: adjusted, generation };
}

/** The lists adjusted for their entries' liveness, trust and retirement (one statement for all), when the deps rank by them. */
function withEntryStates(
  deps: RankingDeps,
  lists: ReadonlyArray<readonly Match[]>,
  filter: NormalisedFilter,
): Promise<ReadonlyArray<readonly Match[]>> {
  if (!deps.entryStates) return Promise.resolve(lists);
  return adjustForEntryState(deps.db, lists, filter, deps.entryStates, deps.typeWeights ?? {});
}

/**
 * The matched set for one need's text and filter: every entry at or above the cutoff (and, for a query with
 * fewer than MINIMUM_MATCHES of those, the best ones down to RELEVANCE_FLOOR) with its relevance and 0-100
 * score, best first (by relevance x type weight when the filter leaves the types open), ties by identifier.
 * Search pages through it; explore counts and groups it.
 */
async function matchNeed(deps: RankingDeps, need: string, filter: NormalisedFilter, stages: RankingStages): Promise<Match[]> {
  const { db, embedder, timings } = deps;
  const clock = new SqlClock();
  // A Chinese query is searched with the English senses of its words too (as Chinese text is indexed with them:
  // cjk-glossary.ts), so it finds entries written in English; the model reads the senses in place of the characters.
  const { text, readableText } = withEnglishSenses(need);
  const words = await clock.time(() => stages.queryWords(db, text, deps.vocabulary ?? BUNDLED_VOCABULARY));
  const embeddingStart = performance.now();
  const embedding = embedder.embedOne(embeddingText(readableText, words)).then((vector) => {
    timings?.observe('embedding', (performance.now() - embeddingStart) / 1000);
    return vector;
  });
  // Awaited below; a failure of the lexical side first must not leave this rejection unhandled.
  embedding.catch(() => undefined);
  const lexical: LexicalQuery = {
    text,
    model: embedder.id,
    dimensions: embedder.dimensions,
    ...(await clock.time(() => resolveTerms(db, words))),
  };
  const lexicalRows = clock.time(() => stages.lexicalRetrieval(db, lexical, filter, null));
  lexicalRows.catch(() => undefined);
  const q: PreparedQuery = { ...lexical, vector: await embedding, readable: embedder.readableShare?.(readableText) ?? 1 };
  // The HNSW scan needs the vector alone: it runs while the lexical retrieval does (usually still running then).
  const nearest = clock.time(() => stages.nearestEntries(db, q, filter));
  nearest.catch(() => undefined);
  const namedRows = clock.time(() => stages.namedRetrieval(db, q, filter));
  namedRows.catch(() => undefined);
  const topics = clock.time(() => stages.topicLabels(db, q));
  topics.catch(() => undefined);
  const [lexicalFound, nearestFound] = await Promise.all([lexicalRows, nearest]);
  const known = lexicalFound.map((r) => r.identifier);
  const lexicalIds = new Set(known);
  const newNearest = nearestFound.filter((id) => !lexicalIds.has(id));
  // The new vector candidates' signals and the lexical candidates' cosines at the same time, on two connections.
  const [vectorRows, cosineRows] = await clock.time(() =>
    Promise.all([stages.vectorSignals(db, q, newNearest), stages.cosineLookup(db, q, known)]),
  );
  const rows = [...lexicalFound, ...vectorRows, ...cosineRows];
  rows.push(...(await namedRows));
  const labels = await topics;
  const candidates = await clock.time(() => withToolCosines(db, stages, q, mergeSignals(rows), labels));
  timings?.observe('sql', clock.ms / 1000);
  return scoreCandidates(deps, stages, q, candidates, labels, filter);
}

/**
 * The candidates, the TOOL_CANDIDATES best by relevance without their tools with their cosine raised toward their
 * nearest tool's (withToolCosine) and, when that raised it, the tool's position (Match.vectorTool).
 */
async function withToolCosines(
  db: Kysely<Database>,
  stages: RankingStages,
  q: PreparedQuery,
  rows: CandidateSignals[],
  topics: ReadonlyMap<string, number>,
): Promise<CandidateSignals[]> {
  if (rows.length === 0) return rows;
  const best = scoreSignals(q, rows, topics, stages.calibrate)
    .sort((a, b) => b.relevance - a.relevance || compareText(a.identifier, b.identifier))
    .slice(0, TOOL_CANDIDATES);
  const tools = await stages.toolCosines(
    db,
    q,
    best.map((c) => c.identifier),
  );
  if (tools.size === 0) return rows;
  return rows.map((row) => {
    const tool = tools.get(row.identifier);
    if (!tool || tool.cosine <= row.cosine) return row;
    return { ...row, cosine: withToolCosine(row.cosine, tool.cosine), vectorTool: tool.position };
  });
}

/**
 * The text a need is searched with: a text holding Chinese words the dictionary knows gets their English senses on a
 * line after it, and the model embeds the text with each Chinese run replaced by its senses ("获取天气预报" ->
 * "gain; weather forecast"); any other text is searched as written.
 */
export function withEnglishSenses(need: string): { text: string; readableText: string } {
  const senses = cjkGloss([need]);
  if (senses === '') return { text: need, readableText: need };
  return { text: `${need}\n${senses}`, readableText: need.replace(/\p{Script=Han}+/gu, (run) => ` ${cjkGloss([run])} `).trim() };
}

/**
 * Signals to relevance, the threshold, the order, the type weights and the entries' states. The cutoff reads the relevance
 * without the topic labels: a label reorders matches, it never lifts one over the cutoff ("banana bread"
 * stands out for the tag "fork"). The threshold depends on the text alone: when a filtered query's own
 * candidates would lower it, those of the text without the filter are retrieved to find it (only then: a
 * threshold the cutoff alone meets is not changed by more candidates).
 */
async function scoreCandidates(
  deps: RankingDeps,
  stages: RankingStages,
  q: PreparedQuery,
  rows: CandidateSignals[],
  topics: ReadonlyMap<string, number>,
  filter: NormalisedFilter,
): Promise<Match[]> {
  const scored = scoreSignals(q, rows, topics, stages.calibrate);
  let matched = stages.threshold(scored);
  if (matched.fill.size > 0 && filter.length > 0) {
    const unfiltered = await withToolCosines(deps.db, stages, q, await unfilteredCandidates(deps.db, stages, q), topics);
    matched = stages.threshold(scoreSignals(q, unfiltered, topics, stages.calibrate));
  }
  return applyTypeWeights(toMatches(scored, matched), filter, deps.typeWeights ?? {});
}

/** Every candidate of the query without a filter, the embedding known: the three retrievals at the same time. */
async function unfilteredCandidates(db: Kysely<Database>, stages: RankingStages, q: PreparedQuery): Promise<CandidateSignals[]> {
  const [lexicalRows, vectorRows, namedRows] = await Promise.all([
    stages.lexicalRetrieval(db, q, [], q),
    stages.nearestEntries(db, q, []).then((identifiers) => stages.vectorSignals(db, q, identifiers)),
    stages.namedRetrieval(db, q, []),
  ]);
  return mergeSignals([...lexicalRows, ...vectorRows, ...namedRows]);
}
