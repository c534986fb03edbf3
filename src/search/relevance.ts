// Relevance of entries to a natural-language query, shared by POST /search (ranking) and
// POST /explore (the matched set): one definition, one cutoff (ARD §7.3). docs/relevance.md explains the
// signals, the calibration of the 0-100 score and how RELEVANCE_CUTOFF was chosen.
//
// Two signals, each on [0, 1] with the same meaning for every query:
// - semantic: the best cosine similarity between the query embedding and the entry's per-field
//   embeddings (whole text, description), mapped linearly from SEMANTIC_FLOOR to SEMANTIC_CEILING.
// - lexical: BM25 over the field-weighted lexemes of `entries.rank_doc` (name > tags/capabilities >
//   description), normalised by what a perfect match of every query concept would score, so it reads as
//   "the IDF-weighted share of the query's concepts this entry matches, saturated by term frequency".
//   Concepts are groups of alternatives (query-text.ts): the word as typed, its synonyms.json expansions,
//   its related-words.json guesses ("rain" -> "weather", counted only with semantic agreement),
//   a trigram typo correction from the corpus vocabulary, and completions of a prefix of a product name.
// fuse(): a noisy OR of SEMANTIC_WEIGHT x semantic and lexical, so a single signal's clear win (an exact
// product name) is never averaged away, and agreement of both ranks above either alone.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { PREPARED_STATEMENT } from '../db/prepared-statements';
import type { Database } from '../db/schema';
import type { Embedder } from '../embedding/embedder';
import { toVectorLiteral } from '../embedding/embedder';
import { filterToSql, type NormalisedFilter } from './query-filter';
import { dedupe, editDistance, embeddingText, EXPANSION_WEIGHT, expandQuery, identifiersNamedIn, isPlausibleTypo, transpositions, urlsNamedIn, type QueryWord } from './query-text';
import { BUNDLED_VOCABULARY, type QueryVocabulary } from './query-vocabulary';

/**
 * Semantic calibration (fitted on the dev half of bench/relevance, docs/relevance.md): cosine mapped
 * linearly from SEMANTIC_FLOOR to SEMANTIC_CEILING, then weighted by SEMANTIC_WEIGHT. USE-lite puts most
 * MCP-server texts at cosine 0.5-0.8 of any tool-ish query, so on its own it can vouch for at most
 * SEMANTIC_WEIGHT of the relevance; a lexical match of the query's rare words is what reaches 0.9+.
 */
export const SEMANTIC_FLOOR = 0.2;
export const SEMANTIC_CEILING = 1.0;
export const SEMANTIC_WEIGHT = 0.45;
/**
 * Paraphrase calibration (fitted on the dev half, docs/relevance.md): the semantic weight grows by
 * UNSEEN_SEMANTIC_BOOST x the share of the query's concepts the corpus has no word for ("encyclopedia" in
 * "encyclopedia articles"), since no lexical signal can ever vouch for those words. Only when at least one
 * concept is known: a query none of whose words the corpus holds is off-topic or gibberish, and its
 * embedding (of unknown words) is no evidence either.
 */
export const UNSEEN_SEMANTIC_BOOST = 0.3;
/**
 * Typo corrections and related words (related-words.json: "pictures" -> "images", which also means
 * container images) are guesses: the lexical signal an entry owes to them counts in proportion to
 * how far its cosine stands above the median cosine of the query's top candidates, reaching full weight
 * CORRECTION_AGREEMENT_SPAN above it. "look at pictures of cats" -> "chats" finds a chat tool that the
 * query's embedding does not agree with, so that match does not count.
 */
export const CORRECTION_AGREEMENT_SPAN = 0.1;
/** The median of this many best candidate cosines is the query's semantic baseline. */
export const SEMANTIC_BASELINE_DEPTH = 100;
/**
 * Entries under this relevance are not in the matched set (search results, explore counts). Chosen on the
 * dev half of bench/relevance: the lowest threshold at which off-topic queries keep fewer than 3 results on
 * average; it keeps 82 % of the grade-2 entries of the whole candidate lists (docs/relevance.md). Re-read in
 * session 4: 0.20 now passes that rule too but changes no top-ten figure and shows 2.4 off-topic results per
 * query instead of 0.9, so it stays 0.25. Session 10 (product glossary): it keeps 90 % of them (dev half),
 * off-topic results still 0.9 per query (0.20: 2.0). Session 11 (the glosses' uses): 94 %, off-topic 1.0 (0.20: 2.0).
 */
export const RELEVANCE_CUTOFF = 0.25;
/**
 * Minimum matches (docs/relevance.md): a query whose text brings fewer than MINIMUM_MATCHES entries to
 * RELEVANCE_CUTOFF also gets its best candidates, by relevance, down to RELEVANCE_FLOOR, up to MINIMUM_MATCHES
 * in all (matchThreshold). Long, specific needs ("which cargo ships are anchored off Rotterdam right now")
 * got an empty answer while their entry stood first at 0.24. Which entries fill depends on the text alone,
 * never on the filter, so the matched set under a filter is the unfiltered one narrowed by it and /explore's
 * count for a value is what filtering on it returns. 3 and 0.15: the most results and the lowest floor that
 * keep the cutoff's rule (the off-topic queries keep fewer than 3 results on average: 2.6 here).
 */
export const MINIMUM_MATCHES = 3;
export const RELEVANCE_FLOOR = 0.15;
/** BM25 parameters (the usual defaults). */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;
/** Typo correction: trigram similarity a vocabulary word needs to stand in for an unknown query word. */
export const CORRECTION_MIN_SIMILARITY = 0.3;
/**
 * An unknown word this long or longer is also looked up with two adjacent letters swapped ("emial" -> "email").
 * Not 4: the swaps of a short ordinary word are often other ordinary words ("cats" -> "acts").
 */
export const SWAP_MIN_LENGTH = 5;
/** Trigram-similar vocabulary words fetched per unknown word, then checked by edit distance (isPlausibleTypo). */
export const CORRECTION_CANDIDATES = 8;
/**
 * Nearest vocabulary words (trigram distance, GiST KNN) re-ordered by (similarity, df) to pick the
 * CORRECTION_CANDIDATES: the same words as a full scan unless more than WINDOW - CANDIDATES words tie with
 * the last one kept at the same similarity.
 */
export const CORRECTION_KNN_WINDOW = 32;
/** Corrections kept per unknown word. */
export const CORRECTIONS_PER_WORD = 2;
/**
 * Prefix completion ("pager" -> "pagerduty") only from words this long that the corpus does not hold, to
 * names only: completing a known word ("next" -> "next.js", "need" -> "needle") added noise (docs/relevance.md).
 */
export const PREFIX_MIN_LENGTH = 4;
export const PREFIX_WEIGHT = 0.8;
/** Candidates per retrieval; the ranked list never goes deeper than their union. */
export const CANDIDATES_PER_SIGNAL = 300;
/**
 * Postings read per retrieval lexeme, best impact first (migration 0009). A one-word query gets exactly its
 * CANDIDATES_PER_SIGNAL best entries; an entry in none of its words' top lists is not a lexical candidate
 * (it can still come from the vector retrieval). docs/performance.md has the measured depth.
 */
export const POSTINGS_PER_LEXEME = 300;
export const CANDIDATES_PER_VECTOR_FIELD = 100;
/**
 * hnsw.ef_search of the vector retrieval: the HNSW candidate list, at least the LIMIT. recall@10 against exact
 * search at 10k entries (m = 24, ef_construction = 128, index built by inserts): 0.944 at 100, 0.976 at 200,
 * 1.000 at 400 (docs/performance.md); 200 meets the >= 0.95 target for ~1-2 ms per scan.
 */
export const HNSW_EF_SEARCH = 200;

/**
 * Topic labels (docs/relevance.md, relevance6). The query embedding is compared with the embedding of every
 * tag a live entry holds (tag_vectors, migration 0010); a tag whose cosine stands TOPIC_Z_FLOOR standard
 * deviations above the mean over all tags marks the query's topic ("is it going to rain in Lisbon" ->
 * weather-api, forecasting; "somewhere to stay in Barcelona" -> airbnb). An entry holding such a tag gains
 * up to TOPIC_WEIGHT, in full from TOPIC_Z_FULL, fused like a third signal (noisy OR). Relative to the other
 * tags, not absolute: USE-lite gives every short label a cosine of 0.3-0.6 with any sentence, so only a
 * label that stands out says something. Fitted on the dev half: weight 0.2-0.5, floor 2.5-3.5, full 4-5.
 * A label is a guess about which sense the query means: for an entry under the cutoff (one of minimum
 * matches' candidates) its lift counts by the entry's semanticAgreement, as a typo correction's does
 * ("banana bread" stands out for the tag "fork", which GitHub's server holds); a match gets it in full.
 */
export const TOPIC_WEIGHT = 0.3;
export const TOPIC_Z_FLOOR = 3;
export const TOPIC_Z_FULL = 5;
/** Fewer live tags than this: no population to stand out from, no topic labels. */
export const TOPIC_MIN_LABELS = 50;
/** The most topic labels one query keeps (the best by z-score). */
export const TOPIC_MAX_LABELS = 20;

/** Best match over these fields; name and tags+capabilities vectors were measured and hurt (docs/relevance.md). */
export const SEMANTIC_FIELDS = ['doc', 'description'] as const;
/**
 * The fields whose HNSW index retrieves candidates; the others of SEMANTIC_FIELDS only score them. The
 * description scan found nothing the doc scan and the lexical retrieval did not (bench:relevance: registry
 * MRR@10 0.746 with both, 0.749 with doc alone; Alexandria unchanged) and cost a second HNSW scan plus the
 * signals of ~100 more candidates (docs/performance.md).
 */
export const VECTOR_RETRIEVAL_FIELDS: readonly string[] = ['doc'];

export interface QueryTerm {
  group: number;
  lexeme: string;
  weight: number;
  df: number;
  idf: number;
  /** Only a guess stands for this lexeme: a typo correction or a related word (not the word as typed, a synonym or a completion). */
  correction?: boolean;
}

export interface PreparedQuery {
  text: string;
  model: string;
  dimensions: number;
  vector: number[];
  /** Query concepts as lexemes with their weights and IDF. */
  terms: QueryTerm[];
  /** Σ over concepts of the best weight × IDF: what a perfect lexical match scores. */
  lexicalMax: number;
  /** Average field-weighted document length (BM25's avgdl). */
  averageLength: number;
  /** Lexemes the lexical retrieval looks up (the common ones left out when rarer ones exist). */
  retrievalLexemes: string[];
  /** Share of the query's concepts none of whose alternatives the corpus holds (0-1). */
  unseenShare: number;
}

export interface QueryEmbedder extends Embedder {
  embedOne(text: string): Promise<number[]>;
}

/** Per-query tuning knobs; the defaults are production. The benchmark varies them for its ablations. */
export interface RankingOptions {
  semanticFields?: readonly string[];
  cutoff?: number;
  /** Turn a signal off (benchmark: each signal alone). */
  signals?: { semantic?: boolean; lexical?: boolean };
  /** Typo correction and prefix completion (benchmark ablation). */
  corrections?: boolean;
  /** synonyms.json expansion (benchmark ablation). */
  expansions?: boolean;
  /** The synonyms and related words that expand the query (SEARCH_SYNONYMS_FILE, ...); default the bundled tables. */
  vocabulary?: QueryVocabulary;
  /** Postings read per retrieval lexeme (default POSTINGS_PER_LEXEME; benchmark and tests vary it). */
  postingsPerLexeme?: number;
  /**
   * Rank weight by entry type (SEARCH_TYPE_WEIGHTS; none by default), used only when the filter does not
   * name `type`: the entry ranks and scores at relevance x weight. Membership (the cutoff) stays on the
   * relevance itself, so explore's counts do not depend on it (see applyTypeWeights).
   */
  typeWeights?: Readonly<Record<string, number>>;
  /** Topic labels (benchmark ablation; on by default, needs the semantic signal). */
  topics?: boolean;
  /** MINIMUM_MATCHES (benchmark ablation and tests: 0 makes the cutoff fixed). */
  minimumMatches?: number;
}

export interface Match {
  identifier: string;
  /** What the cutoff reads: the fused signals. */
  relevance: number;
  /** 0-100: relevance x the entry type's weight (1 unless typeWeights apply); the list is in its order. */
  score: number;
  /** The entry's media type; null if unknown (typeWeights then count it as 1). */
  type: string | null;
  semantic: number;
  lexical: number;
  /** Raw best cosine similarity (before calibration). */
  cosine: number;
  /** What the query's topic labels add (0 to TOPIC_WEIGHT, before fusion): topicBoost, x semanticAgreement under the cutoff. */
  topic: number;
}

export interface CandidateSignals {
  identifier: string;
  /** The entry's media type (for typeWeights); null when no statement of the candidate read it. */
  type: string | null;
  cosine: number;
  lexical: number;
  /** The lexical signal without the guesses' alternatives (typo corrections, related words). */
  typedLexical: number;
  /** The entry's tags (for the topic labels); [] when no statement of the candidate read them. */
  tags: string[];
}

export async function prepareQuery(
  db: Kysely<Database>,
  embedder: QueryEmbedder,
  text: string,
  options: Pick<RankingOptions, 'corrections' | 'expansions' | 'vocabulary'> = {},
): Promise<PreparedQuery> {
  const words = await queryWords(db, text, options);
  const [vector, lexical] = await Promise.all([embedder.embedOne(embeddingText(text, words)), resolveTerms(db, words)]);
  return { text, model: embedder.id, dimensions: embedder.dimensions, vector, ...lexical };
}

/** The query's concepts: the words as typed, their expansions, typo corrections and name completions. */
async function queryWords(db: Kysely<Database>, text: string, options: Pick<RankingOptions, 'corrections' | 'expansions' | 'vocabulary'>): Promise<QueryWord[]> {
  const { synonyms, related } = options.vocabulary ?? BUNDLED_VOCABULARY;
  const typed = expandQuery(text, synonyms, related).filter((w) => options.expansions !== false || w.weight === 1);
  const corrections = options.corrections === false ? [] : await correctionsAndCompletions(db, typed);
  return dedupe([...typed, ...corrections]);
}

/**
 * What the corpus vocabulary (term_stats) adds to the typed words, in one statement. For a typed word the corpus
 * does not contain:
 * - 'correction': the closest vocabulary words by trigram similarity ("kubernets" -> "kubernetes"), kept when
 *   plausible typos, as guesses;
 * - 'prefix' (PREFIX_MIN_LENGTH+ letters): the name words it begins ("pager" -> "pagerduty"), since stemming and
 *   whole-word matching cannot see inside names; they replace its corrections;
 * - 'head' (PREFIX_MIN_LENGTH + 2+ letters): the longest name word it begins with ("slackbot" -> "slack");
 * - 'part': the parts of a host name or camelCase word that the corpus holds ("stripe.com" -> "stripe",
 *   "getWeatherForecast" -> "weather", QueryWord.parts).
 * And for two adjacent typed words, 'joined': the name word they make together ("pager duty" -> "pagerduty"),
 * an alternative of both.
 */
async function correctionsAndCompletions(db: Kysely<Database>, words: QueryWord[]): Promise<QueryWord[]> {
  // Each distinct word is looked up once (at its first place), its alternatives then given to every place it holds.
  const distinct: QueryWord[] = [];
  const groupsOf = new Map<string, number[]>();
  for (const w of words) {
    if (w.weight !== 1 || w.word.length < 3) continue;
    const groups = groupsOf.get(w.word);
    if (groups) groups.push(w.group);
    else {
      groupsOf.set(w.word, [w.group]);
      distinct.push(w);
    }
  }
  const typed = distinct.slice(0, MAX_LOOKED_UP_WORDS);
  const pairs = adjacentPairs(words).slice(0, MAX_LOOKED_UP_WORDS);
  if (typed.length === 0 && pairs.length === 0) return [];
  const { fromWords, fromPairs } = await vocabularyAlternatives(db, typed, pairs);
  const placesOf = new Map(typed.map((w) => [w.group, groupsOf.get(w.word)!]));
  return [...fromWords.flatMap((alt) => placesOf.get(alt.group)!.map((group) => ({ ...alt, group }))), ...fromPairs];
}

/**
 * At most this many distinct typed words, and this many adjacent pairs, are looked up in the vocabulary for one
 * query (the first ones): an unknown word costs a nearest-trigram scan (~2 ms at 10k entries), so a pasted
 * paragraph of unknown words is bounded.
 */
export const MAX_LOOKED_UP_WORDS = 32;

/** correctionsAndCompletions' statement, for distinct words and the pairs; alternatives by where they came from. */
async function vocabularyAlternatives(
  db: Kysely<Database>,
  typed: QueryWord[],
  pairs: ReturnType<typeof adjacentPairs>,
): Promise<{ fromWords: QueryWord[]; fromPairs: QueryWord[] }> {
  const parts = typed.flatMap((w) => (w.parts ?? []).map((part) => ({ group: w.group, word: w.word, part })));
  const swaps = typed.filter((w) => w.word.length >= SWAP_MIN_LENGTH).flatMap((w) => transpositions(w.word).map((swap) => ({ group: w.group, word: w.word, swap })));
  const rows = await sql<{ grp: number; term: string; sim: number; kind: string; typed: string; df: number }>`${PREPARED_STATEMENT}
    WITH t AS (SELECT * FROM unnest(${typed.map((w) => w.group)}::int[], ${typed.map((w) => w.word)}::text[]) AS t(grp, word)),
    h AS (SELECT * FROM unnest(${parts.map((p) => p.group)}::int[], ${parts.map((p) => p.word)}::text[], ${parts.map((p) => p.part)}::text[]) AS h(grp, word, part)),
    x AS (SELECT * FROM unnest(${swaps.map((p) => p.group)}::int[], ${swaps.map((p) => p.word)}::text[], ${swaps.map((p) => p.swap)}::text[]) AS x(grp, word, swap)),
    j AS (SELECT * FROM unnest(${pairs.map((p) => p.first)}::int[], ${pairs.map((p) => p.second)}::int[], ${pairs.map((p) => p.joined)}::text[],
                               ${pairs.map((p) => p.words[0])}::text[], ${pairs.map((p) => p.words[1])}::text[]) AS j(ga, gb, joined, a, b))
    SELECT t.grp, c.term, similarity(c.term, t.word) AS sim, 'correction' AS kind, t.word AS typed, c.df
    FROM t CROSS JOIN LATERAL (
      -- KNN on the GiST trigram index (migration 0006): the CORRECTION_KNN_WINDOW nearest words, then the
      -- same order and limit as before (similarity, then df, then the word: equal ones must not be chosen
      -- by the index's build order). 7.3 ms -> see docs/performance.md per word.
      SELECT k.term, k.df FROM (
        SELECT s.term, s.df FROM term_stats s WHERE s.df > 0
        ORDER BY s.term <-> t.word LIMIT ${CORRECTION_KNN_WINDOW}) k
      WHERE similarity(k.term, t.word) >= ${CORRECTION_MIN_SIMILARITY}
      ORDER BY similarity(k.term, t.word) DESC, k.df DESC, k.term COLLATE "C" LIMIT ${CORRECTION_CANDIDATES}) c
    WHERE length(t.word) >= 4 AND NOT EXISTS (SELECT 1 FROM term_stats s WHERE s.term COLLATE "C" = t.word AND s.df > 0)
    UNION ALL
    SELECT t.grp, p.term, 1.0, 'prefix', t.word, 0
    FROM t CROSS JOIN LATERAL (
      SELECT s.term FROM term_stats s
      -- A byte-order range on term_stats_prefix_idx (migration 0006), then the exact prefix test.
      WHERE s.term COLLATE "C" >= t.word AND s.term COLLATE "C" < t.word || chr(1114111)
        AND s.name_df > 0 AND left(s.term, length(t.word)) = t.word AND s.term <> t.word
      ORDER BY s.df DESC, s.term LIMIT 3) p
    -- Only words the corpus does not hold: a known word matches as itself ("next" is not "next.js").
    WHERE length(t.word) >= ${PREFIX_MIN_LENGTH} AND NOT EXISTS (SELECT 1 FROM term_stats s WHERE s.term COLLATE "C" = t.word AND s.df > 0)
    UNION ALL
    -- The longest product-name word an unknown word begins with ("slackbot" -> "slack"), leaving 2+ letters.
    SELECT t.grp, p.term, 1.0, 'head', t.word, 0
    FROM t CROSS JOIN LATERAL (
      SELECT s.term FROM generate_series(length(t.word) - 2, ${PREFIX_MIN_LENGTH}, -1) AS n(len)
      JOIN term_stats s ON s.term COLLATE "C" = left(t.word, n.len) AND s.name_df > 0
      ORDER BY n.len DESC LIMIT 1) p
    WHERE length(t.word) >= ${PREFIX_MIN_LENGTH + 2} AND NOT EXISTS (SELECT 1 FROM term_stats s WHERE s.term COLLATE "C" = t.word AND s.df > 0)
    UNION ALL
    -- A host name or camelCase word the corpus does not hold ("stripe.com", "getWeatherForecast"): the parts of it
    -- that the corpus does hold ("stripe"; "weather", "forecast").
    SELECT h.grp, h.part, 1.0, 'part', h.word, 0 FROM h
    WHERE NOT EXISTS (SELECT 1 FROM term_stats s WHERE s.term COLLATE "C" = h.word AND s.df > 0)
      AND EXISTS (SELECT 1 FROM term_stats s WHERE s.term COLLATE "C" = h.part AND s.df > 0)
    UNION ALL
    -- An unknown word one swap of adjacent letters from a vocabulary word ("pyhton" -> "python"): a correction.
    SELECT x.grp, x.swap, similarity(x.swap, x.word), 'swap', x.word, v.df FROM x
    JOIN term_stats v ON v.term COLLATE "C" = x.swap AND v.df > 0
    WHERE NOT EXISTS (SELECT 1 FROM term_stats s WHERE s.term COLLATE "C" = x.word AND s.df > 0)
    UNION ALL
    -- Two adjacent words that together are a product-name word ("pager duty" -> "pagerduty"): an alternative of both.
    SELECT g.grp, j.joined, 1.0, 'joined', j.joined, 0 FROM j CROSS JOIN LATERAL (VALUES (j.ga), (j.gb)) AS g(grp)
    WHERE EXISTS (SELECT 1 FROM term_stats s WHERE s.term COLLATE "C" = j.joined AND s.name_df > 0)
    UNION ALL
    -- Two adjacent words, one of which (4+ letters, as for a correction) the corpus does not hold, that together are
    -- a typo of a product-name word ("cockroch db" -> "cockroachdb"): the nearest-words lookup of a correction,
    -- among name words (the partial index of migration 0011); the unknown word needs 4 letters, like a corrected
    -- one (stop words are unknown).
    SELECT g.grp, c.term, similarity(c.term, j.joined), 'joined-correction', j.joined, 0
    FROM j CROSS JOIN LATERAL (
      SELECT k.term FROM (
        SELECT s.term FROM term_stats s WHERE s.name_df > 0
        ORDER BY s.term <-> j.joined LIMIT ${CORRECTION_KNN_WINDOW}) k
      WHERE similarity(k.term, j.joined) >= ${CORRECTION_MIN_SIMILARITY}
      ORDER BY similarity(k.term, j.joined) DESC, k.term COLLATE "C" LIMIT ${CORRECTION_CANDIDATES}) c
    CROSS JOIN LATERAL (VALUES (j.ga), (j.gb)) AS g(grp)
    WHERE NOT EXISTS (SELECT 1 FROM term_stats s WHERE s.term COLLATE "C" = j.joined AND s.name_df > 0)
      AND ((length(j.a) >= 4 AND NOT EXISTS (SELECT 1 FROM term_stats s WHERE s.term COLLATE "C" = j.a AND s.df > 0))
        OR (length(j.b) >= 4 AND NOT EXISTS (SELECT 1 FROM term_stats s WHERE s.term COLLATE "C" = j.b AND s.df > 0)))`.execute(db);
  const knownParts = rows.rows.filter((r) => r.kind === 'part').map((r) => ({ group: r.grp, word: r.term, weight: EXPANSION_WEIGHT }));
  const joined = rows.rows.filter((r) => r.kind === 'joined').map((r) => ({ group: r.grp, word: r.term, weight: EXPANSION_WEIGHT }));
  // A word that begins a product name is that name, not a typo: its completions replace its corrections.
  const completed = new Set(rows.rows.filter((r) => r.kind === 'prefix').map((r) => r.grp));
  // Sorted best first per group, each kind keeps the best CORRECTIONS_PER_WORD plausible ones of a concept.
  const correctionsKept = perGroupLimit(CORRECTIONS_PER_WORD);
  // A swap of two adjacent letters is one edit whatever the trigrams say: it counts as the closest correction.
  const closeness = (r: { kind: string; sim: number }) => (r.kind === 'swap' ? 1 : Number(r.sim));
  // Equally close ones by df, then by the word: the same vocabulary gives the same corrections, whatever order
  // the statement returned them in (two databases filled alike once chose "signup" -> "signal" and "signed").
  const fixes = rows.rows
    .filter((r) => r.kind === 'correction' || r.kind === 'swap' || r.kind === 'prefix')
    .sort((a, b) => a.grp - b.grp || closeness(b) - closeness(a) || Number(b.df) - Number(a.df) || compareText(a.term, b.term))
    .filter((r) => {
      if (r.kind === 'prefix') return true;
      return !completed.has(r.grp) && isPlausibleTypo(r.typed, r.term) && correctionsKept(r.grp);
    })
    .map((r) => ({ group: r.grp, word: r.term, weight: r.kind === 'prefix' ? PREFIX_WEIGHT : correctionWeight(closeness(r)), correction: r.kind !== 'prefix' }));
  const heads = rows.rows.filter((r) => r.kind === 'head').map((r) => ({ group: r.grp, word: r.term, weight: PREFIX_WEIGHT }));
  const pairFixesKept = perGroupLimit(CORRECTIONS_PER_WORD);
  const joinedFixes = rows.rows
    .filter((r) => r.kind === 'joined-correction')
    .sort((a, b) => a.grp - b.grp || Number(b.sim) - Number(a.sim) || compareText(a.term, b.term))
    .filter((r) => {
      // One edit from the joined words (a split and two typos is a guess too far: "the cats" is not "threats"),
      // beginning as they do ("my rough" is not "through"), and needing both ("tf registry" is not "registry").
      const pair = pairs.find((p) => p.joined === r.typed && (p.first === r.grp || p.second === r.grp));
      if (!pair || r.term[0] !== r.typed[0] || editDistance(r.typed, r.term, 1) > 1 || pair.words.some((w) => isPlausibleTypo(w, r.term))) return false;
      return pairFixesKept(r.grp);
    })
    .map((r) => ({ group: r.grp, word: r.term, weight: correctionWeight(Number(r.sim)), correction: true }));
  return { fromWords: [...fixes, ...heads, ...knownParts], fromPairs: [...joined, ...joinedFixes] };
}

/** A predicate true for the first `limit` calls with each group (it counts the calls). */
function perGroupLimit(limit: number): (group: number) => boolean {
  const seen = new Map<number, number>();
  return (group) => {
    const n = seen.get(group) ?? 0;
    seen.set(group, n + 1);
    return n < limit;
  };
}

/**
 * Adjacent typed words (concepts g and g + 1) of 2+ letters and digits each, and the word they make together.
 * Not one letter: "agent's" is "agent" + "s", and "agents" is no name it stands for.
 */
export function adjacentPairs(words: QueryWord[]): Array<{ first: number; second: number; joined: string; words: [string, string] }> {
  const typed = new Map(words.filter((w) => w.weight === 1 && /^[\p{L}\p{N}]{2,}$/u.test(w.word)).map((w) => [w.group, w.word]));
  return [...typed].flatMap(([group, word]) => {
    const next = typed.get(group + 1);
    return next === undefined ? [] : [{ first: group, second: group + 1, joined: word + next, words: [word, next] as [string, string] }];
  });
}

/** A correction counts by how close it is: similarity 0.3 -> 0.65, 0.7+ -> 0.85 (below an exact word). */
export function correctionWeight(similarity: number): number {
  return Math.min(0.85, 0.5 + similarity / 2);
}

/** BM25's IDF (always positive). */
export function idf(df: number, n: number): number {
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

/**
 * The words' lexemes (stemmed, and as written for names) with document frequencies from lexeme_stats.
 * A concept none of whose lexemes the corpus has still counts in lexicalMax with the IDF of an unseen
 * word: a query about things the registry does not hold must not look like a perfect match.
 */
async function resolveTerms(db: Kysely<Database>, words: QueryWord[]): Promise<Omit<PreparedQuery, 'text' | 'model' | 'dimensions' | 'vector'>> {
  const rows = await sql<{ grp: number; lexeme: string; weight: number; correction: boolean; df: number; n: string; total: number }>`${PREPARED_STATEMENT}
    WITH w AS (SELECT * FROM unnest(${words.map((w) => w.group)}::int[], ${words.map((w) => w.word)}::text[], ${words.map((w) => w.weight)}::float8[],
                                    ${words.map((w) => w.correction === true)}::bool[]) AS w(grp, word, weight, correction)),
    lx AS (
      SELECT w.grp, w.weight, w.correction, l.lexeme FROM w CROSS JOIN LATERAL (
        SELECT unnest(tsvector_to_array(to_tsvector('english', w.word))) AS lexeme
        UNION
        SELECT unnest(tsvector_to_array(to_tsvector('simple', w.word))) WHERE to_tsvector('english', w.word) <> ''::tsvector
      ) l
    )
    SELECT lx.grp, lx.lexeme, max(lx.weight) AS weight, bool_and(lx.correction) AS correction, coalesce(max(s.df), 0) AS df, c.live_entries AS n, c.total_length AS total
    FROM lx LEFT JOIN lexeme_stats s ON s.lexeme = lx.lexeme CROSS JOIN corpus_stats c
    GROUP BY lx.grp, lx.lexeme, c.live_entries, c.total_length`.execute(db);
  const n = rows.rows.length > 0 ? Number(rows.rows[0].n) : 0;
  const averageLength = rows.rows.length > 0 && n > 0 ? Number(rows.rows[0].total) / n : 1;
  const terms: QueryTerm[] = rows.rows.map((r) => ({
    group: r.grp,
    lexeme: r.lexeme,
    weight: Number(r.weight),
    df: Number(r.df),
    idf: idf(Number(r.df), n),
    ...(r.correction ? { correction: true } : {}),
  }));
  return { terms, lexicalMax: lexicalMax(terms, n), averageLength: averageLength || 1, retrievalLexemes: retrievalLexemes(terms, n), unseenShare: unseenShare(terms) };
}

/** Σ over concepts of the best weight × IDF among the alternatives the corpus has (an unseen word's IDF if none). */
export function lexicalMax(terms: QueryTerm[], n: number): number {
  const groups = new Map<number, number>();
  for (const t of terms) {
    const value = t.df > 0 ? t.weight * t.idf : 0;
    groups.set(t.group, Math.max(groups.get(t.group) ?? 0, value));
  }
  let total = 0;
  for (const value of groups.values()) total += value > 0 ? value : idf(0, n);
  return total;
}

/** Share of the concepts none of whose alternatives (corrections included) the corpus holds. */
export function unseenShare(terms: Pick<QueryTerm, 'group' | 'df'>[]): number {
  const seen = new Map<number, boolean>();
  for (const t of terms) seen.set(t.group, (seen.get(t.group) ?? false) || t.df > 0);
  if (seen.size === 0) return 0;
  return [...seen.values()].filter((s) => !s).length / seen.size;
}

/** Lexemes in more than a third of the entries ("server", "mcp") find nothing a rarer word does not. */
function retrievalLexemes(terms: QueryTerm[], n: number): string[] {
  const present = terms.filter((t) => t.df > 0);
  const rare = present.filter((t) => t.df <= n / 3);
  return [...new Set((rare.length > 0 ? rare : present).map((t) => t.lexeme))];
}

/**
 * BM25F term saturation in [0, 1): the name part of the term frequency is not length-normalised (a long
 * description must not bury a name hit), the rest is: tf = tfName + tfOther / (1 - b + b dl/avgdl),
 * saturation = tf / (tf + k1).
 */
export function saturation(tfName: number, tfOther: number, length: number, averageLength: number): number {
  const tf = tfName + tfOther / (1 - BM25_B + (BM25_B * length) / averageLength);
  return tf <= 0 ? 0 : tf / (tf + BM25_K1);
}

/**
 * The saturation of a word found once in the name (weight 3). The lexical signal is divided by it, so
 * "every query concept is in the name" reads as 1 whatever the query; stronger matches are capped there.
 */
export const NAME_MATCH_SATURATION = saturation(3, 0, 1, 1);

/** The lexical signal from matched terms (for tests and explanation; SQL computes the same in rankSignals). */
export function lexicalSignal(
  q: Pick<PreparedQuery, 'terms' | 'lexicalMax' | 'averageLength'>,
  tfs: Map<string, { name: number; other: number }>,
  length: number,
): number {
  if (q.lexicalMax <= 0) return 0;
  const best = new Map<number, number>();
  for (const t of q.terms) {
    const tf = tfs.get(t.lexeme) ?? { name: 0, other: 0 };
    const value = t.weight * t.idf * saturation(tf.name, tf.other, length, q.averageLength);
    best.set(t.group, Math.max(best.get(t.group) ?? 0, value));
  }
  return Math.min(1, [...best.values()].reduce((a, b) => a + b, 0) / (q.lexicalMax * NAME_MATCH_SATURATION));
}

export function semanticSignal(cosine: number): number {
  return Math.min(1, Math.max(0, (cosine - SEMANTIC_FLOOR) / (SEMANTIC_CEILING - SEMANTIC_FLOOR)));
}

/**
 * The weight of the semantic signal for a query: SEMANTIC_WEIGHT, plus UNSEEN_SEMANTIC_BOOST x the share of
 * concepts the corpus has no word for, when at least one concept is known (see UNSEEN_SEMANTIC_BOOST).
 */
export function semanticWeight(unseen: number): number {
  return unseen >= 1 ? SEMANTIC_WEIGHT : SEMANTIC_WEIGHT + UNSEEN_SEMANTIC_BOOST * Math.max(0, unseen);
}

/**
 * How far a guess about an entry (a typo correction, a related word, a topic label) may count: 0 at or
 * below the query's semantic baseline (the median of its best candidate cosines), 1 from
 * CORRECTION_AGREEMENT_SPAN above it, linear between.
 */
export function semanticAgreement(cosine: number, baseline: number): number {
  return Math.min(1, Math.max(0, (cosine - baseline) / CORRECTION_AGREEMENT_SPAN));
}

/**
 * The lexical signal with the typo corrections' share gated by semantic agreement: the part owed to
 * corrections (lexical - typedLexical) counts by the entry's semanticAgreement.
 */
export function gatedLexical(lexical: number, typedLexical: number, cosine: number, baseline: number): number {
  const corrected = Math.max(0, lexical - typedLexical);
  return Math.min(lexical, typedLexical + corrected * semanticAgreement(cosine, baseline));
}

/** The median of the best `depth` values (the query's semantic baseline); 0 for none. */
export function baselineCosine(cosines: number[], depth = SEMANTIC_BASELINE_DEPTH): number {
  const top = [...cosines].sort((a, b) => b - a).slice(0, depth);
  if (top.length === 0) return 0;
  const mid = Math.floor(top.length / 2);
  return top.length % 2 === 1 ? top[mid] : (top[mid - 1] + top[mid]) / 2;
}

/**
 * Noisy OR of the weighted semantic signal and the lexical signal: the stronger one counts in full and the
 * weaker adds its share of what is left, so a single signal's clear win (an exact product name) survives.
 */
export function fuse(semantic: number, lexical: number, weight = SEMANTIC_WEIGHT): number {
  const s = weight * semantic;
  const hi = Math.max(s, lexical);
  const lo = Math.min(s, lexical);
  return hi + lo * (1 - hi);
}

export function toScore(relevance: number): number {
  return Math.max(0, Math.min(100, Math.round(relevance * 100)));
}

export function vectorSql(q: PreparedQuery): RawBuilder<unknown> {
  return sql`${toVectorLiteral(q.vector)}::vector(${sql.raw(String(q.dimensions))})`;
}

/** `v.embedding` cast to the model's dimensions: the same expression the HNSW indexes are built on. */
export function embeddingColumnSql(q: PreparedQuery, alias = 'v'): RawBuilder<unknown> {
  return sql`${sql.ref(`${alias}.embedding`)}::vector(${sql.raw(String(q.dimensions))})`;
}

/** The query without its embedding: what the lexical retrieval needs, known before the embedding is. */
type LexicalQuery = Omit<PreparedQuery, 'vector'>;

/** The query terms as a table `qt(grp, lexeme, wi, corr)`; wi = weight x IDF. */
function queryTermsSql(q: LexicalQuery): RawBuilder<unknown> {
  return sql`qt AS MATERIALIZED (SELECT * FROM unnest(${q.terms.map((t) => t.group)}::int[], ${q.terms.map((t) => t.lexeme)}::text[],
                                  ${q.terms.map((t) => t.weight * t.idf)}::float8[], ${q.terms.map((t) => t.correction === true)}::bool[]) AS qt(grp, lexeme, wi, corr)
             WHERE qt.wi > 0)`;
}

/**
 * CTEs from `ce` (the candidates' entries: identifier, rank_* columns) to
 * `lx(identifier, lexical, typed_lexical)`: BM25F (saturation(), lexicalSignal()) from the entries'
 * precomputed term frequencies (migration 0007), one array_position per (candidate, query lexeme), set-based.
 */
function lexicalSignalCtes(q: LexicalQuery): RawBuilder<unknown> {
  const lexicalMax = (q.lexicalMax > 0 ? q.lexicalMax : 1) * NAME_MATCH_SATURATION;
  return sql`hits AS (
      SELECT ce.identifier, qt.grp, qt.wi, qt.corr,
             ce.rank_tf_name[p.i] + ce.rank_tf_other[p.i] / (1 - ${BM25_B}::float8 + ${BM25_B}::float8 * ce.rank_length / ${q.averageLength}::float8) AS tf
      FROM ce CROSS JOIN qt CROSS JOIN LATERAL array_position(ce.rank_lexemes, qt.lexeme) AS p(i)
      WHERE p.i IS NOT NULL),
    per_concept AS (
      SELECT identifier, max(wi * tf / (tf + ${BM25_K1}::float8)) AS best,
             coalesce(max(wi * tf / (tf + ${BM25_K1}::float8)) FILTER (WHERE NOT corr), 0) AS best_typed
      FROM hits GROUP BY identifier, grp),
    lx AS (
      SELECT identifier, sum(best) / ${lexicalMax}::float8 AS lexical, sum(best_typed) / ${lexicalMax}::float8 AS typed_lexical
      FROM per_concept GROUP BY identifier)`;
}

/**
 * The candidates' entries for lexicalSignalCtes, from a CTE `cand(identifier)`. The arrays are copied out
 * of their stored form once (`|| '{}'`): about a fifth of them are stored compressed, and array_position
 * and the subscripts would decompress the stored value again on every call (one per candidate and query
 * lexeme): the lexical statement p50 9.9 -> 8.0 ms at 10k entries (docs/performance.md).
 */
const CANDIDATE_ENTRIES = sql`ce AS MATERIALIZED (
      SELECT e.identifier, e.type, e.tags, e.rank_lexemes || '{}'::text[] AS rank_lexemes, e.rank_tf_name || '{}'::real[] AS rank_tf_name,
             e.rank_tf_other || '{}'::real[] AS rank_tf_other, e.rank_length
      FROM cand JOIN entries e ON e.identifier = cand.identifier)`;

/** The best cosine of the entry `e` over the semantic fields. */
function cosineSql(q: PreparedQuery, fields: readonly string[]): RawBuilder<unknown> {
  return sql`(SELECT max(1 - (${embeddingColumnSql(q)} <=> ${vectorSql(q)})) FROM entry_vectors v
           WHERE v.identifier = e.identifier AND v.model = ${q.model} AND v.field = ANY(${[...fields]}::text[]))`;
}

interface SignalRow {
  identifier: string;
  type: string | null;
  tags: string[] | null;
  cosine: number | null;
  lexical: number | null;
  typed_lexical: number | null;
}

/**
 * The lexical candidates: the top CANDIDATES_PER_SIGNAL entries matching the query's retrieval lexemes
 * (filter inside the retrieval), with their lexical signals, and their cosine when the embedding is known.
 */
async function lexicalCandidates(db: Kysely<Database>, q: LexicalQuery, embedded: PreparedQuery | null, filter: NormalisedFilter, options: RankingOptions): Promise<SignalRow[]> {
  if (options.signals?.lexical === false || q.retrievalLexemes.length === 0) return [];
  const cosine = embedded && options.signals?.semantic !== false ? cosineSql(embedded, options.semanticFields ?? SEMANTIC_FIELDS) : sql`NULL::float8`;
  // Each retrieval lexeme's best POSTINGS_PER_LEXEME postings (lexeme_postings, migration 0009), read in
  // impact order from the index; a filter joins the entry, so the scan goes on until enough pass it.
  const depth = options.postingsPerLexeme ?? POSTINGS_PER_LEXEME;
  const postings =
    filter.length === 0
      ? sql`SELECT p.entry_key, p.impact FROM lexeme_postings p WHERE p.lexeme = qt.lexeme ORDER BY p.impact DESC, p.entry_key LIMIT ${depth}`
      : sql`SELECT p.entry_key, p.impact FROM lexeme_postings p JOIN entries e ON e.facet_key = p.entry_key
            WHERE p.lexeme = qt.lexeme AND ${filterToSql(filter)} ORDER BY p.impact DESC, p.entry_key LIMIT ${depth}`;
  const result = await sql<SignalRow>`${filter.length === 0 ? PREPARED_STATEMENT : sql``}
    WITH ${queryTermsSql(q)},
    posting_hits AS (
      SELECT p.entry_key, qt.grp, max(qt.wi * p.impact) AS best
      FROM qt CROSS JOIN LATERAL (${postings}) p
      WHERE qt.lexeme = ANY(${q.retrievalLexemes}::text[])
      GROUP BY p.entry_key, qt.grp),
    best_keys AS (
      SELECT entry_key FROM posting_hits GROUP BY entry_key
      ORDER BY sum(best) DESC, entry_key LIMIT ${CANDIDATES_PER_SIGNAL}),
    cand AS (SELECT e.identifier FROM best_keys b JOIN entries e ON e.facet_key = b.entry_key),
    ${CANDIDATE_ENTRIES},
    ${lexicalSignalCtes(q)}
    SELECT e.identifier, e.type, e.tags, ${cosine} AS cosine, lx.lexical, lx.typed_lexical
    FROM ce AS e LEFT JOIN lx ON lx.identifier = e.identifier`.execute(db);
  return result.rows;
}

/**
 * The vector candidates (the top CANDIDATES_PER_VECTOR_FIELD per retrieval field, filter inside the HNSW
 * scan) with their cosine and lexical signals, except the `known` ones (lexical candidates retrieved
 * before the embedding was ready, whose signals candidateCosines completes).
 */
async function vectorCandidates(db: Kysely<Database>, q: PreparedQuery, filter: NormalisedFilter, known: readonly string[], options: RankingOptions): Promise<SignalRow[]> {
  const fields = options.semanticFields ?? SEMANTIC_FIELDS;
  if (options.signals?.semantic === false || fields.length === 0) return [];
  const where = filterToSql(filter);
  // Retrieval by VECTOR_RETRIEVAL_FIELDS among the semantic fields (all of them if it names none: benchmark ablations).
  const retrieving = fields.filter((f) => VECTOR_RETRIEVAL_FIELDS.includes(f));
  const retrievals = (retrieving.length > 0 ? retrieving : fields).map(
    (field) => sql`(SELECT v.identifier FROM entry_vectors v JOIN entries e ON e.identifier = v.identifier
        WHERE v.model = ${sql.lit(q.model)} AND v.field = ${sql.lit(field)} AND e.deleted_at IS NULL AND ${where}
        ORDER BY ${embeddingColumnSql(q)} <=> ${vectorSql(q)} LIMIT ${CANDIDATES_PER_VECTOR_FIELD})`,
  );
  const found = sql.join(retrievals, sql` UNION `);
  const lexical = options.signals?.lexical !== false;
  const prepared = filter.length === 0;
  const run = async (trx: Kysely<Database>) => {
    // Filtered vector retrieval: let HNSW keep scanning until LIMIT rows pass the filter (pgvector 0.8).
    // One round trip for the settings (transaction-local, like SET LOCAL). Without a filter the statement's
    // text is fixed: it is prepared and planned once per connection (a generic plan, which can use the
    // model's partial HNSW index because model and field are literals): 2.2 ms of planning saved per query.
    await sql`SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true), set_config('hnsw.ef_search', ${String(HNSW_EF_SEARCH)}, true),
                     set_config('plan_cache_mode', ${prepared ? 'force_generic_plan' : 'auto'}, true)`.execute(trx);
    return sql<SignalRow>`${prepared ? PREPARED_STATEMENT : sql``}
      WITH ${queryTermsSql(q)},
      cand AS (SELECT f.identifier FROM (${found}) f WHERE f.identifier <> ALL(${[...known]}::text[])),
      ${CANDIDATE_ENTRIES},
      ${lexicalSignalCtes(q)}
      SELECT e.identifier, e.type, e.tags, ${cosineSql(q, fields)} AS cosine,
        ${lexical ? sql`coalesce(lx.lexical, 0)` : sql`NULL::float8`} AS lexical,
        ${lexical ? sql`coalesce(lx.typed_lexical, 0)` : sql`NULL::float8`} AS typed_lexical
      FROM ce AS e LEFT JOIN lx ON lx.identifier = e.identifier`.execute(trx);
  };
  return (await db.transaction().execute(run)).rows;
}

/** The cosine of entries whose lexical signals are already known (the lexical candidates of matchText). */
async function candidateCosines(db: Kysely<Database>, q: PreparedQuery, identifiers: readonly string[], options: RankingOptions): Promise<SignalRow[]> {
  const fields = options.semanticFields ?? SEMANTIC_FIELDS;
  if (options.signals?.semantic === false || identifiers.length === 0) return [];
  const result = await sql<SignalRow>`${PREPARED_STATEMENT}
    SELECT e.identifier, NULL::text AS type, NULL::text[] AS tags, ${cosineSql(q, fields)} AS cosine, NULL::float8 AS lexical, NULL::float8 AS typed_lexical
    FROM unnest(${[...identifiers]}::text[]) AS e(identifier)`.execute(db);
  return result.rows;
}

/** Entries one identifier prefix in a query may name ("urn:air:github.com:neo4j-contrib" -> its servers). */
export const NAMED_PREFIX_LIMIT = 100;

/**
 * The entries a query names by identifier or by web address (live, passing the filter), with their cosine.
 * Named exactly (the identifier, or the entry's `url` in urlKey form: "github.com/org/repo" names the entry
 * whose url is https://github.com/org/repo): the strongest lexical evidence there is, lexical signal 1
 * (relevance 1, score 100 before type weights) whatever else the query says. Named by an identifier prefix
 * ending at a segment (the identifier continues with ':'): PREFIX_WEIGHT, like a name completion.
 * mergeSignals keeps the larger lexical signal.
 */
async function namedCandidates(db: Kysely<Database>, q: PreparedQuery, names: QueryNames, filter: NormalisedFilter, options: RankingOptions): Promise<SignalRow[]> {
  const { identifiers, urls } = names;
  if (identifiers.length === 0 && urls.length === 0) return [];
  const cosine = options.signals?.semantic !== false ? cosineSql(q, options.semanticFields ?? SEMANTIC_FIELDS) : sql`NULL::float8`;
  const urlKey = urlKeySql(sql`e.entry->>'url'`);
  const exact = sql`(e.identifier = ANY(${[...identifiers]}::text[]) OR ${urlKey} = ANY(${[...urls]}::text[]))`;
  const lexical = options.signals?.lexical !== false ? sql`CASE WHEN ${exact} THEN 1 ELSE ${PREFIX_WEIGHT}::float8 END` : sql`NULL::float8`;
  // Prefix: a byte-order range (':' + 1 is ';'), then the exact test.
  const prefixes = identifiers.map((id) => `${id}:`);
  const result = await sql<SignalRow>`
    SELECT e.identifier, e.type, e.tags, ${cosine} AS cosine, ${lexical} AS lexical, ${lexical} AS typed_lexical
    FROM (
      SELECT e.identifier FROM entries e WHERE e.identifier = ANY(${[...identifiers]}::text[]) AND e.deleted_at IS NULL AND ${filterToSql(filter)}
      UNION
      (SELECT e.identifier FROM entries e CROSS JOIN unnest(${prefixes}::text[]) AS p(prefix)
       WHERE e.identifier COLLATE "C" > p.prefix AND e.identifier COLLATE "C" < left(p.prefix, -1) || ';'
         AND left(e.identifier, length(p.prefix)) = p.prefix AND e.deleted_at IS NULL AND ${filterToSql(filter)}
       ORDER BY e.identifier LIMIT ${NAMED_PREFIX_LIMIT * Math.max(1, identifiers.length)})
      UNION
      -- Entries whose url the query names (a sequential read of the urls, only for such queries).
      (SELECT e.identifier FROM entries e WHERE ${urls.length > 0 ? sql`${urlKey} = ANY(${[...urls]}::text[])` : sql`false`}
         AND e.deleted_at IS NULL AND ${filterToSql(filter)} ORDER BY e.identifier LIMIT ${NAMED_PREFIX_LIMIT})
    ) n JOIN entries e ON e.identifier = n.identifier`.execute(db);
  return result.rows;
}

/**
 * The query's topic labels: live tags (some live entry holds them) whose embedding's cosine with the query
 * stands at least TOPIC_Z_FLOOR standard deviations above the mean over all live tags, with that z-score;
 * at most TOPIC_MAX_LABELS, none with fewer than TOPIC_MIN_LABELS live tags. One sequential read of the
 * tag vectors of the query's model (~800 rows for the demo corpus).
 */
export async function topicLabels(db: Kysely<Database>, q: PreparedQuery, options: RankingOptions = {}): Promise<Map<string, number>> {
  if (options.topics === false || options.signals?.semantic === false) return new Map();
  const result = await sql<{ tag: string; z: number }>`${PREPARED_STATEMENT}
    WITH c AS MATERIALIZED (
      SELECT t.tag, 1 - (${embeddingColumnSql(q, 't')} <=> ${vectorSql(q)}) AS cosine
      FROM tag_vectors t JOIN facet_value_counts f ON f.field = 'tags' AND f.value = t.tag AND f.entries > 0
      WHERE t.model = ${q.model}),
    s AS (SELECT avg(cosine) AS mean, stddev_pop(cosine) AS sd, count(*) AS n FROM c)
    SELECT c.tag, (c.cosine - s.mean) / s.sd AS z FROM c CROSS JOIN s
    WHERE s.n >= ${TOPIC_MIN_LABELS} AND s.sd > 0 AND c.cosine >= s.mean + ${TOPIC_Z_FLOOR}::float8 * s.sd
    ORDER BY z DESC, c.tag LIMIT ${TOPIC_MAX_LABELS}`.execute(db);
  return new Map(result.rows.map((r) => [r.tag, Number(r.z)]));
}

/** What an entry with these tags gains from the query's topic labels: TOPIC_WEIGHT x its best label's share of the z range. */
export function topicBoost(tags: readonly string[], topics: ReadonlyMap<string, number>): number {
  let best = 0;
  for (const tag of tags) {
    const z = topics.get(tag);
    if (z !== undefined) best = Math.max(best, Math.min(1, (z - TOPIC_Z_FLOOR) / (TOPIC_Z_FULL - TOPIC_Z_FLOOR)));
  }
  return TOPIC_WEIGHT * best;
}

/** urlKey() of query-text.ts in SQL, for a stored url (a test compares the two). */
export function urlKeySql(url: RawBuilder<unknown>): RawBuilder<string> {
  const bare = sql`regexp_replace(regexp_replace(regexp_replace(lower(${url}), '^https?://', ''), '^www\\.', ''), '(\\.git)?/*$', '')`;
  return sql<string>`regexp_replace(${bare}, '^arxiv\\.org/(?:abs|pdf)/([0-9]{4}\\.[0-9]{4,5})(?:v[0-9]+)?(?:\\.pdf)?$', 'arxiv.org/abs/\\1')`;
}

/** What a query names exactly: ARD identifiers (and prefixes of them), web addresses (urlKey form). */
interface QueryNames {
  identifiers: string[];
  urls: string[];
}

function namesIn(text: string): QueryNames {
  return { identifiers: identifiersNamedIn(text), urls: urlsNamedIn(text) };
}

/**
 * One row per candidate from the statements' rows: a row's non-null signals complete the candidate's (a
 * lexical candidate's cosine comes from the vector or the cosine statement; overlapping rows agree).
 */
function mergeSignals(rows: SignalRow[]): CandidateSignals[] {
  const out = new Map<string, CandidateSignals>();
  for (const r of rows) {
    const seen = out.get(r.identifier);
    const row = seen ?? { identifier: r.identifier, type: null, cosine: 0, lexical: 0, typedLexical: 0, tags: [] };
    if (r.type !== null) row.type = r.type;
    if (r.tags !== null) row.tags = r.tags;
    if (r.cosine !== null) row.cosine = Number(r.cosine);
    // Statements that both compute an entry's lexical signal agree; an identifier named in the query
    // (namedCandidates) can only raise it.
    if (r.lexical !== null) row.lexical = Math.max(row.lexical, Math.min(1, Number(r.lexical)));
    if (r.typed_lexical !== null) row.typedLexical = Math.max(row.typedLexical, Math.min(1, Number(r.typed_lexical)));
    if (!seen) out.set(r.identifier, row);
  }
  return [...out.values()];
}

/**
 * Every candidate (top by the vector retrieval field, top by lexical match; the filter applied inside each
 * retrieval, not after a cut) with its raw signals: best cosine and the lexical signal. The lexical and
 * the vector statement run at the same time, on two connections of the pool.
 */
async function rankSignals(
  db: Kysely<Database>,
  q: PreparedQuery,
  filter: NormalisedFilter,
  options: RankingOptions = {},
): Promise<CandidateSignals[]> {
  const [lexicalRows, vectorRows, namedRows] = await Promise.all([
    lexicalCandidates(db, q, q, filter, options),
    vectorCandidates(db, q, filter, [], options),
    namedCandidates(db, q, namesIn(q.text), filter, options),
  ]);
  return mergeSignals([...lexicalRows, ...vectorRows, ...namedRows]);
}

/**
 * The matched set for (prepared query, filter): every entry at or above the cutoff (and, for a query with
 * fewer than MINIMUM_MATCHES of those, the best ones down to RELEVANCE_FLOOR) with its relevance and 0-100
 * score, best first, ties by identifier. Search pages through it; explore counts and groups it.
 */
export async function findMatches(db: Kysely<Database>, q: PreparedQuery, filter: NormalisedFilter, options: RankingOptions = {}): Promise<Match[]> {
  const [rows, topics] = await Promise.all([rankSignals(db, q, filter, options), topicLabels(db, q, options)]);
  return scoreCandidates(db, q, rows, topics, filter, options);
}

/** A candidate's signals after calibration and the corrections' semantic gate, and its relevance with the topic labels. */
interface ScoredCandidate {
  identifier: string;
  row: CandidateSignals;
  semantic: number;
  lexical: number;
  /** The relevance without the topic labels: what the cutoff reads. */
  base: number;
  topic: number;
  relevance: number;
}

function scoreSignals(q: Pick<PreparedQuery, 'unseenShare'>, rows: CandidateSignals[], topics: ReadonlyMap<string, number>, options: RankingOptions): ScoredCandidate[] {
  const useSemantic = options.signals?.semantic !== false;
  const useLexical = options.signals?.lexical !== false;
  const baseline = baselineCosine(rows.map((r) => r.cosine));
  const weight = semanticWeight(q.unseenShare);
  return rows.map((row) => {
    const semantic = useSemantic ? semanticSignal(row.cosine) : 0;
    // Without the semantic signal (benchmark ablation) there is nothing to agree with: corrections count.
    const lexical = !useLexical ? 0 : useSemantic ? gatedLexical(row.lexical, row.typedLexical, row.cosine, baseline) : row.lexical;
    const base = fuse(semantic, lexical, weight);
    // A label lifts a match freely. An entry under RELEVANCE_CUTOFF has no evidence of its own, and there a
    // label is a guess like a correction: it counts by the entry's semantic agreement ("banana bread" stands
    // out for the tag "fork", which GitHub's server holds). The production cutoff, whatever options.cutoff
    // says, so the benchmark's uncut list shows production relevance.
    const labelled = topicBoost(row.tags, topics);
    const topic = base >= RELEVANCE_CUTOFF ? labelled : labelled * semanticAgreement(row.cosine, baseline);
    return { identifier: row.identifier, row, semantic, lexical, base, topic, relevance: fuse(topic, base, 1) };
  });
}

/**
 * What a candidate needs to be matched: base relevance (without the topic labels) at the cutoff, or, when
 * fewer than MINIMUM_MATCHES candidates reach it, to be one of the MINIMUM_MATCHES best by relevance (topic
 * labels included; ties by identifier) among those at RELEVANCE_FLOOR or above: `fill`, which depends on the
 * query text alone (scoreCandidates).
 */
export interface MatchThreshold {
  cutoff: number;
  fill: ReadonlySet<string>;
}

export function matchThreshold(
  candidates: ReadonlyArray<{ identifier: string; base: number; relevance: number }>,
  options: Pick<RankingOptions, 'cutoff' | 'minimumMatches'> = {},
): MatchThreshold {
  const cutoff = options.cutoff ?? RELEVANCE_CUTOFF;
  const minimum = options.minimumMatches ?? MINIMUM_MATCHES;
  if (minimum <= 0 || candidates.filter((c) => c.base >= cutoff).length >= minimum) return { cutoff, fill: new Set() };
  const best = candidates
    .filter((c) => c.relevance >= RELEVANCE_FLOOR)
    .sort((a, b) => b.relevance - a.relevance || compareIdentifiers(a, b))
    .slice(0, minimum);
  return { cutoff, fill: new Set(best.map((c) => c.identifier)) };
}

export function isMatched(c: { identifier: string; base: number }, threshold: MatchThreshold): boolean {
  return c.base >= threshold.cutoff || threshold.fill.has(c.identifier);
}

/**
 * Signals to relevance: calibration, the corrections' semantic gate, fusion with the topic labels, the
 * threshold; best first, by relevance x type weight when the filter leaves the types open (applyTypeWeights).
 * The cutoff reads the relevance without the topic labels: a label reorders matches, it never lifts one over
 * the cutoff ("banana bread" stands out for the tag "fork"). The threshold depends on the text alone: when a
 * filtered query's own candidates would lower it, those of the text without the filter are retrieved to find
 * it (only then: a threshold the cutoff alone meets is not changed by more candidates).
 */
async function scoreCandidates(
  db: Kysely<Database>,
  q: PreparedQuery,
  rows: CandidateSignals[],
  topics: ReadonlyMap<string, number>,
  filter: NormalisedFilter,
  options: RankingOptions,
): Promise<Match[]> {
  const scored = scoreSignals(q, rows, topics, options);
  let threshold = matchThreshold(scored, options);
  if (threshold.fill.size > 0 && filter.length > 0) {
    threshold = matchThreshold(scoreSignals(q, await rankSignals(db, q, [], options), topics, options), options);
  }
  const out: Match[] = scored
    .filter((c) => isMatched(c, threshold))
    .map(({ row, semantic, lexical, topic, relevance }) => ({ identifier: row.identifier, type: row.type, relevance, score: toScore(relevance), semantic, lexical, cosine: row.cosine, topic }));
  return applyTypeWeights(out.sort((a, b) => b.relevance - a.relevance || compareIdentifiers(a, b)), filter, options);
}

function compareIdentifiers(a: { identifier: string }, b: { identifier: string }): number {
  return compareText(a.identifier, b.identifier);
}

/** Code-unit order, the same in every locale (ties between equally ranked things are broken by it). */
function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The type weights (SEARCH_TYPE_WEIGHTS) of a search whose filter does not name `type`: each match ranks
 * and scores at relevance x its type's weight, ties by identifier. The matched set is the same (the cutoff
 * read the relevance), so POST /explore's count for a type is what filtering on it returns. A filter on
 * `type` means the client chose the types: nothing is weighted.
 */
export function applyTypeWeights(matches: Match[], filter: NormalisedFilter, options: Pick<RankingOptions, 'typeWeights'>): Match[] {
  const weights = options.typeWeights;
  if (!weights || Object.keys(weights).length === 0 || filter.some((f) => f.path === 'type')) return matches;
  return matches
    .map((match) => ({ match, rank: match.relevance * (match.type !== null && Object.hasOwn(weights, match.type) ? weights[match.type] : 1) }))
    .sort((a, b) => b.rank - a.rank || compareIdentifiers(a.match, b.match))
    .map(({ match, rank }) => (rank === match.relevance ? match : { ...match, score: toScore(rank) }));
}

/**
 * The matched set for a query text, pipelined: the lexical retrieval runs in PostgreSQL while the query
 * is embedded (on the embedder's worker thread), then the vector retrieval and the lexical candidates'
 * cosines, side by side on two connections. Same result as findMatches(prepareQuery(text)); what
 * POST /search and POST /explore call.
 */
export async function matchText(
  db: Kysely<Database>,
  embedder: QueryEmbedder,
  text: string,
  filter: NormalisedFilter,
  options: RankingOptions = {},
  timings?: StageTimings,
): Promise<Match[]> {
  let sqlMs = 0;
  const inSql = async <T>(work: () => Promise<T>): Promise<T> => {
    const start = performance.now();
    try {
      return await work();
    } finally {
      sqlMs += performance.now() - start;
    }
  };
  const words = await inSql(() => queryWords(db, text, options));
  const embeddingStart = performance.now();
  const embedding = embedder.embedOne(embeddingText(text, words)).then((vector) => {
    timings?.observe('embedding', (performance.now() - embeddingStart) / 1000);
    return vector;
  });
  // Awaited below; a failure of the lexical side first must not leave this rejection unhandled.
  embedding.catch(() => undefined);
  const lexical: LexicalQuery = { text, model: embedder.id, dimensions: embedder.dimensions, ...(await inSql(() => resolveTerms(db, words))) };
  const lexicalStart = performance.now();
  const lexicalRows = lexicalCandidates(db, lexical, null, filter, options).finally(() => {
    sqlMs += performance.now() - lexicalStart;
  });
  lexicalRows.catch(() => undefined);
  // Usually the lexical retrieval is done first. When the embedding is (a cached query vector: a repeated
  // query, the next page), the vector retrieval starts at once instead of waiting for it.
  const embeddedFirst = await Promise.race([embedding.then(() => true), lexicalRows.then(() => false)]);
  const q: PreparedQuery = { ...lexical, vector: await embedding };
  const namedRows = inSql(() => namedCandidates(db, q, namesIn(text), filter, options));
  namedRows.catch(() => undefined);
  const topics = inSql(() => topicLabels(db, q, options));
  topics.catch(() => undefined);
  let rows: SignalRow[];
  if (embeddedFirst) {
    const [lexicalFound, vectorRows] = await Promise.all([lexicalRows, inSql(() => vectorCandidates(db, q, filter, [], options))]);
    const scored = new Set(vectorRows.map((r) => r.identifier));
    const unscored = lexicalFound.map((r) => r.identifier).filter((id) => !scored.has(id));
    rows = [...lexicalFound, ...vectorRows, ...(await inSql(() => candidateCosines(db, q, unscored, options)))];
  } else {
    // Both cores are free again: the new vector candidates and the lexical candidates' cosines run at the same time.
    const lexicalFound = await lexicalRows;
    const known = lexicalFound.map((r) => r.identifier);
    const [vectorRows, cosineRows] = await inSql(() => Promise.all([vectorCandidates(db, q, filter, known, options), candidateCosines(db, q, known, options)]));
    rows = [...lexicalFound, ...vectorRows, ...cosineRows];
  }
  rows.push(...(await namedRows));
  const labels = await topics;
  timings?.observe('sql', sqlMs / 1000);
  return scoreCandidates(db, q, mergeSignals(rows), labels, filter, options);
}

/**
 * Receives the duration of matchText's stages, which overlap: 'embedding' (the query embedding) runs while
 * part of 'sql' (the statements' wall time, summed) does.
 */
export interface StageTimings {
  observe(stage: 'embedding' | 'sql', seconds: number): void;
}
