// Signal math: each signal on [0, 1] with the same meaning for every query (docs/relevance.md).
// - semantic: the best cosine similarity between the query embedding and the entry's per-field embeddings,
//   raised toward its best tool's (withToolCosine), mapped linearly from SEMANTIC_FLOOR to SEMANTIC_CEILING.
// - lexical: BM25F over the field-weighted lexemes of `entries.rank_doc` (name > tags/capabilities >
//   description), divided by what a perfect match of every query concept scores, so it reads as "the
//   IDF-weighted share of the query's concepts this entry matches, saturated by term frequency".
// fuse(): a noisy OR of SEMANTIC_WEIGHT x semantic and lexical, so a single signal's clear win (an exact
// product name) is never averaged away, and agreement of both ranks above either alone.
// The SQL of the retrieval statements (retrieval.ts) computes the same lexical signal set-based.

/**
 * Semantic calibration, fitted on the dev half of bench/relevance: USE-lite puts most MCP-server texts at
 * cosine 0.5-0.8 of any tool-ish query, so on its own it can vouch for at most SEMANTIC_WEIGHT of the
 * relevance; a lexical match of the query's rare words is what reaches 0.9+.
 */
export const SEMANTIC_FLOOR = 0.2;
export const SEMANTIC_CEILING = 1.0;
export const SEMANTIC_WEIGHT = 0.45;
/**
 * Guards paraphrases ("encyclopedia articles"): the semantic weight grows by this x the share of the query's
 * concepts the corpus has no word for, since no lexical signal can vouch for those words. Fitted on the dev half.
 */
export const UNSEEN_SEMANTIC_BOOST = 0.3;
/**
 * Guards against guesses the query's embedding does not back ("look at pictures of cats" -> "chats"): the
 * lexical signal owed to a typo correction or related word counts fully only this far above the semantic baseline.
 */
export const CORRECTION_AGREEMENT_SPAN = 0.1;
/**
 * How far a candidate's cosine is raised toward the cosine of its best tool (tool_vectors, migration 0023) when
 * that is higher: a tool's sentence ("search flights: find one-way flights between two airports") is short enough
 * for the model to read whole, where the entry's `doc` text is mostly its own description. Measured on LiveMCPBench
 * at 0.3, 0.5, 0.7 and 1 (decision 0037): 0.3 gains recall without costing the first place.
 */
export const TOOL_COSINE_WEIGHT = 0.3;

/** An entry's cosine raised toward its best tool's: cosine + TOOL_COSINE_WEIGHT × (tool − cosine) when the tool's is higher. */
export function withToolCosine(cosine: number, toolCosine: number | null): number {
  return toolCosine === null || toolCosine <= cosine ? cosine : cosine + TOOL_COSINE_WEIGHT * (toolCosine - cosine);
}

/** The median of this many best candidate cosines is the query's semantic baseline. */
export const SEMANTIC_BASELINE_DEPTH = 100;
/** BM25 parameters (the usual defaults). */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;

/** BM25's IDF (always positive). */
export function idf(df: number, n: number): number {
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
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

/** What lexicalSignal reads of the query (query-understanding.ts, PreparedQuery). */
export interface LexicalTerms {
  terms: Array<{ group: number; lexeme: string; weight: number; idf: number }>;
  /** Σ over concepts of the best weight × IDF: what a perfect lexical match scores. */
  lexicalMax: number;
  /** Average field-weighted document length (BM25's avgdl). */
  averageLength: number;
}

/** The lexical signal from matched terms (for tests and explanation; the retrieval statements compute the same in SQL). */
export function lexicalSignal(q: LexicalTerms, tfs: Map<string, { name: number; other: number }>, length: number): number {
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
 * concepts the corpus has no word for, when at least one concept is known: a query none of whose words the
 * corpus holds is off-topic or gibberish, and its embedding (of unknown words) is no evidence either.
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
 * corrections (lexical - typedLexical) counts by the entry's semanticAgreement, times the share of the query
 * the model could read (`readable`, Embedder.readableShare: an embedding of unknown characters backs nothing).
 */
export function gatedLexical(lexical: number, typedLexical: number, cosine: number, baseline: number, readable = 1): number {
  const corrected = Math.max(0, lexical - typedLexical);
  return Math.min(lexical, typedLexical + corrected * semanticAgreement(cosine, baseline) * readable);
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

/**
 * The "relevant" line of the 0-100 score (docs/relevance.md): from here a result is more often relevant than
 * not on the labelled sets, and a need the corpus does not serve seldom reaches it.
 */
export const RELEVANT_SCORE = 50;

/**
 * The share of the 0-100 score an entry gives up when the query's embedding does not single it out (semantic
 * agreement 0: its cosine at the query's baseline). A partial lexical match (one word of two, "google" of
 * "google calendar") the embedding does not back is the off-topic text's typical best answer; on the labelled
 * sets a match with agreement is graded relevant about twice as often at the same relevance. Fitted on
 * bench/relevance (0.2-0.35 measured): the "relevant" line of the score then holds on the repo sets and
 * LiveMCPBench, with one off-topic text of fifteen above it.
 */
export const UNAGREED_SCORE_DISCOUNT = 0.25;

/**
 * What an entry's score keeps of its rank: 1 with full semantic agreement or a lexical match of every concept in
 * the name (an exact product name, an entry named by identifier: no embedding needs to back it), else
 * 1 - UNAGREED_SCORE_DISCOUNT x (1 - agreement).
 */
export function scoreConfidence(lexical: number, agreement: number): number {
  return lexical >= 1 ? 1 : 1 - UNAGREED_SCORE_DISCOUNT * (1 - agreement);
}

export function toScore(relevance: number): number {
  return Math.max(0, Math.min(100, Math.round(relevance * 100)));
}
