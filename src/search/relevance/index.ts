// Relevance of entries to a natural-language query, by stage (docs/relevance.md):
// query-understanding.ts (words, expansions, typo corrections, terms), retrieval.ts (the candidate
// statements), signals.ts (BM25F, cosine calibration, fusion), topic-labels.ts, scoring.ts (cutoff, minimum
// matches, order, type weights), entry-state-adjustment.ts (liveness and trust in the rank) and pipeline.ts, the one pipeline that runs them. ablations.ts is the
// benchmark's, never production's.
export * from './query-understanding';
export * from './retrieval';
export * from './signals';
export * from './topic-labels';
export * from './scoring';
export * from './pipeline';
export * from './entry-state-adjustment';
export * from './need-texts';
export * from './need-page';
export * from './match-cache';
