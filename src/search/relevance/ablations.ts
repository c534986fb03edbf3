// The benchmark's ablations: the ranking pipeline with stages swapped (a signal alone, no corrections, no
// topic labels, another cutoff, ...), so bench/relevance.ts can measure what each part is worth. Production
// never imports this module: it runs PRODUCTION_STAGES (pipeline.ts).
import { dedupe, expandQuery } from '../query-text';
import { correctionsAndCompletions, type QueryWordsStage } from './query-understanding';
import {
  cosineLookup,
  lexicalRetrieval,
  namedRetrieval,
  nearestEntries,
  POSTINGS_PER_LEXEME,
  SEMANTIC_FIELDS,
  vectorSignals,
} from './retrieval';
import { calibrate, matchThreshold, MINIMUM_MATCHES, RELEVANCE_CUTOFF, type CalibrationStage } from './scoring';
import { semanticSignal } from './signals';
import { topicLabels } from './topic-labels';
import { PRODUCTION_STAGES, type RankingStages } from './pipeline';
import { clauseNeedTexts } from './need-texts';

/** What an ablation changes; everything left out is production. */
export interface RankingAblations {
  /** Turn a signal off (each signal alone). */
  signals?: { semantic?: boolean; lexical?: boolean };
  /** false: no typo correction or prefix completion. */
  corrections?: boolean;
  /** false: no synonyms.json or related-words.json expansion. */
  expansions?: boolean;
  /** false: no topic labels. */
  topics?: boolean;
  /** MINIMUM_MATCHES instead (0 makes the cutoff fixed). */
  minimumMatches?: number;
  /** RELEVANCE_CUTOFF instead (0: every candidate). */
  cutoff?: number;
  /** SEMANTIC_FIELDS instead. */
  semanticFields?: readonly string[];
  /** false: the entries' tool vectors do not raise their cosine (withToolCosine). */
  toolVectors?: boolean;
  /** POSTINGS_PER_LEXEME instead. */
  postingsPerLexeme?: number;
  /** false: every text is one need (no need texts, no coverage-first page). */
  needs?: boolean;
  /** false: the clauses' needs only, none implied by a path, a relative date or a web address. */
  impliedNeeds?: boolean;
}

const lexicalOnly: CalibrationStage = (row) => ({ semantic: 0, lexical: row.lexical });
const semanticOnly: CalibrationStage = (row) => ({ semantic: semanticSignal(row.cosine), lexical: 0 });
const neither: CalibrationStage = () => ({ semantic: 0, lexical: 0 });

/** The pipeline's stages under `ablations`. */
export function ablatedStages(ablations: RankingAblations): RankingStages {
  const semantic = ablations.signals?.semantic !== false;
  const lexical = ablations.signals?.lexical !== false;
  // Without the semantic signal no statement reads a cosine (the named entries' is NULL over no field).
  const fields = semantic ? (ablations.semanticFields ?? SEMANTIC_FIELDS) : [];
  const cutoff = ablations.cutoff ?? RELEVANCE_CUTOFF;
  const minimum = ablations.minimumMatches ?? MINIMUM_MATCHES;
  return {
    ...PRODUCTION_STAGES,
    needTexts: ablations.needs === false ? () => [] : ablations.impliedNeeds === false ? clauseNeedTexts : PRODUCTION_STAGES.needTexts,
    queryWords: ablatedQueryWords(ablations.expansions !== false, ablations.corrections !== false),
    lexicalRetrieval: lexical ? lexicalRetrieval(ablations.postingsPerLexeme ?? POSTINGS_PER_LEXEME, fields) : async () => [],
    nearestEntries: nearestEntries(fields),
    vectorSignals: vectorSignals(fields),
    cosineLookup: semantic ? cosineLookup(fields) : async () => [],
    namedRetrieval: namedRetrieval(fields),
    toolCosines: semantic && ablations.toolVectors !== false ? PRODUCTION_STAGES.toolCosines : async () => new Map(),
    topicLabels: semantic && ablations.topics !== false ? topicLabels : async () => new Map(),
    // Without the semantic signal there is nothing to agree with: corrections count in full.
    calibrate: semantic ? (lexical ? calibrate : semanticOnly) : lexical ? lexicalOnly : neither,
    threshold: (candidates) => matchThreshold(candidates, cutoff, minimum),
  };
}

function ablatedQueryWords(expansions: boolean, corrections: boolean): QueryWordsStage {
  return async (db, text, vocabulary) => {
    const typed = expandQuery(text, vocabulary.synonyms, vocabulary.related).filter((w) => expansions || w.weight === 1);
    return dedupe([...typed, ...(corrections ? await correctionsAndCompletions(db, typed) : [])]);
  };
}
