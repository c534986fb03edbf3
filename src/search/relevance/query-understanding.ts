// Query understanding: the query text becomes concepts (groups of alternative words, query-text.ts) and
// their lexemes with document frequencies. The alternatives of a word: the word as typed, its synonyms.json
// expansions, its related-words.json guesses ("rain" -> "weather", counted only with semantic agreement),
// a trigram typo correction from the corpus vocabulary, and completions of a prefix of a product name.
import DataLoader from 'dataloader';
import { sql, type Kysely } from 'kysely';
import { onGenericPlans, PREPARED_STATEMENT } from '../../db/prepared-statements';
import type { Database } from '../../db/schema';
import type { Embedder } from '../../embedding/embedder';
import { editDistance } from '../../edit-distance';
import {
  compareText,
  dedupe,
  embeddingText,
  EXPANSION_WEIGHT,
  expandQuery,
  isCjkWord,
  isPlausibleTypo,
  transpositions,
  type QueryWord,
} from '../query-text';
import { BUNDLED_VOCABULARY, type QueryVocabulary } from '../query-vocabulary';
import { idf } from './signals';

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
 * names only: completing a known word ("next" -> "next.js", "need" -> "needle") adds noise (docs/relevance.md).
 */
export const PREFIX_MIN_LENGTH = 4;
/** The weight of a name completion, and of an identifier prefix named in the query (retrieval.ts). */
export const PREFIX_WEIGHT = 0.8;
/**
 * At most this many distinct typed words, and this many adjacent pairs, are looked up in the vocabulary for one
 * query (the first ones): an unknown word costs a nearest-trigram scan (~2 ms at 10k entries), so a pasted
 * paragraph of unknown words is bounded.
 */
export const MAX_LOOKED_UP_WORDS = 32;

export interface QueryTerm {
  group: number;
  lexeme: string;
  weight: number;
  df: number;
  idf: number;
  /** Only a guess stands for this lexeme: a typo correction or a related word (not the word as typed, a synonym or a completion). */
  correction?: boolean;
}

/** The query as the lexical retrieval needs it, known before the embedding is. */
export interface LexicalQuery {
  text: string;
  model: string;
  dimensions: number;
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

export interface PreparedQuery extends LexicalQuery {
  vector: number[];
  /** The share of the text's characters the model can read (Embedder.readableShare); absent: all of them. */
  readable?: number;
}

export interface QueryEmbedder extends Embedder {
  embedOne(text: string): Promise<number[]>;
}

/** The query's words from its text: what the ranking pipeline's first stage returns (RankingStages.queryWords). */
export type QueryWordsStage = (db: Kysely<Database>, text: string, vocabulary: QueryVocabulary) => Promise<QueryWord[]>;

/** The query's concepts: the words as typed, their expansions, typo corrections and name completions. */
export const queryWords: QueryWordsStage = async (db, text, vocabulary) => {
  const typed = expandQuery(text, vocabulary.synonyms, vocabulary.related);
  return dedupe([...typed, ...(await correctionsAndCompletions(db, typed))]);
};

/**
 * The whole query understood at once: its words, their terms and its embedding. The ranking pipeline runs
 * these steps overlapped (pipeline.ts); this serves tests and the benchmark's own signal rankers.
 */
export async function prepareQuery(
  db: Kysely<Database>,
  embedder: QueryEmbedder,
  text: string,
  vocabulary: QueryVocabulary = BUNDLED_VOCABULARY,
  words: QueryWordsStage = queryWords,
): Promise<PreparedQuery> {
  const found = await words(db, text, vocabulary);
  const [vector, lexical] = await Promise.all([embedder.embedOne(embeddingText(text, found)), resolveTerms(db, found)]);
  return { text, model: embedder.id, dimensions: embedder.dimensions, vector, readable: embedder.readableShare?.(text) ?? 1, ...lexical };
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
export async function correctionsAndCompletions(db: Kysely<Database>, words: QueryWord[]): Promise<QueryWord[]> {
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
 * A DataLoader per database handle over `batch`, without a cache (what it reads changes with every ingest): the
 * keys asked for in the same tick, whoever asks, are read in one call of `batch`, each distinct key (by `keyId`) once.
 */
function loaderPerHandle<K, V>(
  batch: (db: Kysely<Database>, distinct: readonly K[]) => Promise<V[]>,
  keyId: (key: K) => string,
): (db: Kysely<Database>) => DataLoader<K, V> {
  const loaders = new WeakMap<Kysely<Database>, DataLoader<K, V>>();
  const distinctBatch = async (db: Kysely<Database>, keys: readonly K[]): Promise<V[]> => {
    const indexOf = new Map<string, number>();
    const distinct: K[] = [];
    const positions = keys.map((key) => {
      const id = keyId(key);
      let index = indexOf.get(id);
      if (index === undefined) {
        index = distinct.push(key) - 1;
        indexOf.set(id, index);
      }
      return index;
    });
    const values = await batch(db, distinct);
    return positions.map((index) => values[index]);
  };
  return (db) => {
    let loader = loaders.get(db);
    if (!loader) {
      loader = new DataLoader<K, V>((keys) => distinctBatch(db, keys), { cache: false });
      loaders.set(db, loader);
    }
    return loader;
  };
}

/** The values of `keys`, or the first error among them (the batch's statement failed). */
async function loadAll<K, V>(loader: DataLoader<K, V>, keys: readonly K[]): Promise<V[]> {
  const values = await loader.loadMany(keys);
  const failed = values.find((value): value is Error => value instanceof Error);
  if (failed) throw failed;
  return values as V[];
}

/** A distinct typed word (with the parts query-text.ts found in it) or adjacent pair, as the vocabulary statement looks it up. */
type VocabularyKey = { word: string; parts: readonly string[] } | { pair: readonly [string, string] };
/** What the vocabulary statement found for one key: `grp` is a placeholder the caller replaces with its concepts. */
interface VocabularyRow {
  grp: number;
  term: string;
  sim: number;
  kind: string;
  typed: string;
  df: number;
}

const vocabularyKeyId = (key: VocabularyKey): string =>
  'pair' in key ? `p\u0000${key.pair[0]}\u0000${key.pair[1]}` : `w\u0000${key.word}\u0000${key.parts.join('\u0000')}`;

/**
 * The vocabulary statement's batches (loaderPerHandle): the lookups asked for in the same tick (the pipelines of a
 * text with several needs start together, pipeline.ts) run as one statement over their distinct words and pairs.
 * What a word or pair finds does not depend on the other words of its query (its concept number aside, which each
 * caller puts back), so one statement answers each caller as its own would have; one statement per pipeline cost a
 * task text of four needs five, each with its nearest-trigram scans (docs/performance.md "What keeps it fast").
 */
const vocabularyLoader = loaderPerHandle<VocabularyKey, VocabularyRow[]>((db, keys) => vocabularyRows(db, keys), vocabularyKeyId);

/** The vocabulary statement over distinct keys; each key's rows with `grp` its index among them. */
async function vocabularyRows(db: Kysely<Database>, keys: readonly VocabularyKey[]): Promise<VocabularyRow[][]> {
  const typed = keys.flatMap((key, i) => ('word' in key ? [{ group: i, word: key.word, parts: key.parts }] : []));
  const pairs = keys.flatMap((key, i) => ('pair' in key ? [{ id: i, joined: key.pair[0] + key.pair[1], words: key.pair }] : []));
  const parts = typed.flatMap((w) => w.parts.map((part) => ({ group: w.group, word: w.word, part })));
  const swaps = typed
    .filter((w) => w.word.length >= SWAP_MIN_LENGTH)
    .flatMap((w) => transpositions(w.word).map((swap) => ({ group: w.group, word: w.word, swap })));
  // On its generic plan: custom plans, made anew at every call, took 2.8 ms a call where the generic plan takes 1.5
  // (the labelled queries, docs/performance.md "What keeps it fast").
  const rows = await onGenericPlans(db, (trx) =>
    sql<VocabularyRow>`${PREPARED_STATEMENT}
    WITH t AS (SELECT * FROM unnest(${typed.map((w) => w.group)}::int[], ${typed.map((w) => w.word)}::text[]) AS t(grp, word)),
    h AS (SELECT * FROM unnest(${parts.map((p) => p.group)}::int[], ${parts.map((p) => p.word)}::text[], ${parts.map((p) => p.part)}::text[]) AS h(grp, word, part)),
    x AS (SELECT * FROM unnest(${swaps.map((p) => p.group)}::int[], ${swaps.map((p) => p.word)}::text[], ${swaps.map((p) => p.swap)}::text[]) AS x(grp, word, swap)),
    j AS (SELECT * FROM unnest(${pairs.map((p) => p.id)}::int[], ${pairs.map((p) => p.joined)}::text[],
                               ${pairs.map((p) => p.words[0])}::text[], ${pairs.map((p) => p.words[1])}::text[]) AS j(grp, joined, a, b))
    SELECT t.grp, c.term, similarity(c.term, t.word) AS sim, 'correction' AS kind, t.word AS typed, c.df
    FROM t CROSS JOIN LATERAL (
      -- KNN on the GiST trigram index (migration 0006): the CORRECTION_KNN_WINDOW nearest words, then ordered
      -- by similarity, then df, then the word (equal ones must not be chosen by the index's build order) and
      -- cut to CORRECTION_CANDIDATES: a full scan's choice at a fraction of its cost (docs/performance.md).
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
    SELECT j.grp, j.joined, 1.0, 'joined', j.joined, 0 FROM j
    WHERE EXISTS (SELECT 1 FROM term_stats s WHERE s.term COLLATE "C" = j.joined AND s.name_df > 0)
    UNION ALL
    -- Two adjacent words, one of which (4+ letters, as for a correction) the corpus does not hold, that together are
    -- a typo of a product-name word ("cockroch db" -> "cockroachdb"): the nearest-words lookup of a correction,
    -- among name words (the partial index of migration 0011); the unknown word needs 4 letters, like a corrected
    -- one (stop words are unknown).
    SELECT j.grp, c.term, similarity(c.term, j.joined), 'joined-correction', j.joined, 0
    FROM j CROSS JOIN LATERAL (
      SELECT k.term FROM (
        SELECT s.term FROM term_stats s WHERE s.name_df > 0
        ORDER BY s.term <-> j.joined LIMIT ${CORRECTION_KNN_WINDOW}) k
      WHERE similarity(k.term, j.joined) >= ${CORRECTION_MIN_SIMILARITY}
      ORDER BY similarity(k.term, j.joined) DESC, k.term COLLATE "C" LIMIT ${CORRECTION_CANDIDATES}) c
    WHERE NOT EXISTS (SELECT 1 FROM term_stats s WHERE s.term COLLATE "C" = j.joined AND s.name_df > 0)
      AND ((length(j.a) >= 4 AND NOT EXISTS (SELECT 1 FROM term_stats s WHERE s.term COLLATE "C" = j.a AND s.df > 0))
        OR (length(j.b) >= 4 AND NOT EXISTS (SELECT 1 FROM term_stats s WHERE s.term COLLATE "C" = j.b AND s.df > 0)))`.execute(trx),
  );
  const found: VocabularyRow[][] = keys.map(() => []);
  for (const row of rows.rows) found[row.grp].push(row);
  return found;
}

/** correctionsAndCompletions' lookup, for distinct words and the pairs; alternatives by where they came from. */
async function vocabularyAlternatives(
  db: Kysely<Database>,
  typed: QueryWord[],
  pairs: ReturnType<typeof adjacentPairs>,
): Promise<{ fromWords: QueryWord[]; fromPairs: QueryWord[] }> {
  const byKey = await loadAll(vocabularyLoader(db), [
    ...typed.map((w): VocabularyKey => ({ word: w.word, parts: w.parts ?? [] })),
    ...pairs.map((p): VocabularyKey => ({ pair: p.words })),
  ]);
  // Each key's rows under the caller's concepts: a word's under its own, a pair's under both of its words'.
  const rows = [
    ...typed.flatMap((w, i) => byKey[i].map((row) => ({ ...row, grp: w.group }))),
    ...pairs.flatMap((p, i) =>
      byKey[typed.length + i].flatMap((row) => [
        { ...row, grp: p.first },
        { ...row, grp: p.second },
      ]),
    ),
  ];
  const knownParts = rows.filter((r) => r.kind === 'part').map((r) => ({ group: r.grp, word: r.term, weight: EXPANSION_WEIGHT }));
  const joined = rows.filter((r) => r.kind === 'joined').map((r) => ({ group: r.grp, word: r.term, weight: EXPANSION_WEIGHT }));
  // A word that begins a product name is that name, not a typo: its completions replace its corrections.
  const completed = new Set(rows.filter((r) => r.kind === 'prefix').map((r) => r.grp));
  // Sorted best first per group, each kind keeps the best CORRECTIONS_PER_WORD plausible ones of a concept.
  const correctionsKept = perGroupLimit(CORRECTIONS_PER_WORD);
  // A swap of two adjacent letters is one edit whatever the trigrams say: it counts as the closest correction.
  const closeness = (r: { kind: string; sim: number }) => (r.kind === 'swap' ? 1 : Number(r.sim));
  // Equally close ones by df, then by the word: the same vocabulary gives the same corrections, whatever order
  // the statement returned them in (two databases filled alike once chose "signup" -> "signal" and "signed").
  const fixes = rows
    .filter((r) => r.kind === 'correction' || r.kind === 'swap' || r.kind === 'prefix')
    .sort((a, b) => a.grp - b.grp || closeness(b) - closeness(a) || Number(b.df) - Number(a.df) || compareText(a.term, b.term))
    .filter((r) => {
      if (r.kind === 'prefix') return true;
      return !completed.has(r.grp) && isPlausibleTypo(r.typed, r.term) && correctionsKept(r.grp);
    })
    .map((r) => ({
      group: r.grp,
      word: r.term,
      weight: r.kind === 'prefix' ? PREFIX_WEIGHT : correctionWeight(closeness(r)),
      correction: r.kind !== 'prefix',
    }));
  const heads = rows.filter((r) => r.kind === 'head').map((r) => ({ group: r.grp, word: r.term, weight: PREFIX_WEIGHT }));
  const pairFixesKept = perGroupLimit(CORRECTIONS_PER_WORD);
  const joinedFixes = rows
    .filter((r) => r.kind === 'joined-correction')
    .sort((a, b) => a.grp - b.grp || Number(b.sim) - Number(a.sim) || compareText(a.term, b.term))
    .filter((r) => {
      // One edit from the joined words (a split and two typos is a guess too far: "the cats" is not "threats"),
      // beginning as they do ("my rough" is not "through"), and needing both ("tf registry" is not "registry").
      const pair = pairs.find((p) => p.joined === r.typed && (p.first === r.grp || p.second === r.grp));
      if (!pair || r.term[0] !== r.typed[0] || editDistance(r.typed, r.term, 1) > 1 || pair.words.some((w) => isPlausibleTypo(w, r.term)))
        return false;
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

/** A word's lexeme with its document frequency, and the corpus's size, as the term statistics statement reads them. */
interface WordLexeme {
  lexeme: string;
  df: number;
  n: string;
  total: number;
}

/**
 * The term statistics statement's batches, one loader per database handle, as for the vocabulary statement
 * (vocabularyLoader): the words of the pipelines that start together are read in one statement.
 */
const lexemeLoader = loaderPerHandle<string, WordLexeme[]>(
  (db, words) => wordLexemes(db, words),
  (word) => word,
);

/** Each word's lexemes (its English stems, and as written when it has any) with their document frequencies. */
async function wordLexemes(db: Kysely<Database>, words: readonly string[]): Promise<WordLexeme[][]> {
  const rows = await sql<WordLexeme & { i: string }>`${PREPARED_STATEMENT}
    WITH w AS (SELECT * FROM unnest(${words}::text[]) WITH ORDINALITY AS w(word, i)),
    lx AS (
      SELECT w.i, l.lexeme FROM w CROSS JOIN LATERAL (
        SELECT unnest(tsvector_to_array(to_tsvector('english', w.word))) AS lexeme
        UNION
        SELECT unnest(tsvector_to_array(to_tsvector('simple', w.word))) WHERE to_tsvector('english', w.word) <> ''::tsvector
      ) l
    )
    SELECT lx.i, lx.lexeme, coalesce(s.df, 0) AS df, c.live_entries AS n, c.total_length AS total
    FROM lx LEFT JOIN lexeme_stats s ON s.lexeme = lx.lexeme CROSS JOIN corpus_stats c`.execute(db);
  const found: WordLexeme[][] = words.map(() => []);
  for (const row of rows.rows) found[Number(row.i) - 1].push({ lexeme: row.lexeme, df: Number(row.df), n: row.n, total: row.total });
  return found;
}

/**
 * The words' lexemes (stemmed, and as written for names) with document frequencies from lexeme_stats.
 * A concept none of whose lexemes the corpus has still counts in lexicalMax with the IDF of an unseen
 * word: a query about things the registry does not hold must not look like a perfect match.
 */
export async function resolveTerms(db: Kysely<Database>, words: QueryWord[]): Promise<Omit<LexicalQuery, 'text' | 'model' | 'dimensions'>> {
  const found = await loadAll(
    lexemeLoader(db),
    words.map((w) => w.word),
  );
  // The corpus's size, the same on every row; none when no word has a lexeme.
  const corpus = found.flat()[0];
  const n = corpus ? Number(corpus.n) : 0;
  const averageLength = corpus && n > 0 ? Number(corpus.total) / n : 1;
  // Each concept's lexemes: the best weight among its words that have the lexeme, a guess only if every one is.
  const byTerm = new Map<string, QueryTerm>();
  words.forEach((w, i) => {
    for (const { lexeme, df } of found[i]) {
      const key = `${w.group}\u0000${lexeme}`;
      const seen = byTerm.get(key);
      if (!seen)
        byTerm.set(key, { group: w.group, lexeme, weight: w.weight, df, idf: idf(df, n), ...(w.correction ? { correction: true } : {}) });
      else {
        seen.weight = Math.max(seen.weight, w.weight);
        if (!w.correction) delete seen.correction;
      }
    }
  });
  const terms = [...byTerm.values()];
  return {
    terms,
    lexicalMax: lexicalMax(terms, n),
    averageLength: averageLength || 1,
    retrievalLexemes: retrievalLexemes(terms, n),
    unseenShare: unseenShare(terms),
  };
}

/**
 * Σ over concepts of the best weight × IDF among the alternatives the corpus has (an unseen word's IDF if none). An
 * unseen CJK bigram counts nothing: most bigrams of such a text straddle two words (查一, 下今 in 查一下今天), so the
 * corpus not holding one says nothing about whether an entry serves the query.
 */
export function lexicalMax(terms: QueryTerm[], n: number): number {
  const groups = new Map<number, { value: number; cjk: boolean }>();
  for (const t of terms) {
    const value = t.df > 0 ? t.weight * t.idf : 0;
    const known = groups.get(t.group);
    groups.set(t.group, { value: Math.max(known?.value ?? 0, value), cjk: (known?.cjk ?? true) && isCjkWord(t.lexeme) });
  }
  let total = 0;
  for (const { value, cjk } of groups.values()) total += value > 0 ? value : cjk ? 0 : idf(0, n);
  return total > 0 ? total : idf(0, n);
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
