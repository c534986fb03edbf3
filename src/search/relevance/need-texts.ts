// Query understanding, first step: a text that asks for several things ("find the trending repositories, read
// the top one's wiki, then draft an intro in /root/markdown/intro.md") is split into need texts, each ranked
// through the whole pipeline on its own (pipeline.ts) and the first page assembled to hold the best entry of
// each (need-page.ts). Only the text's own punctuation and connectives decide: sentences, clauses after a
// comma or semicolon, "and" / "then" / "and then" between clauses. Nothing here knows a product.
import { tokenize } from '../query-text';

/**
 * At most this many needs per text (LiveMCPBench's tasks need 1-4 servers); the clauses beyond it stay in the
 * last need. Each need runs the pipeline once more, so this bounds the cost of a pasted paragraph.
 */
export const MAX_NEEDS = 4;
/**
 * A clause of fewer words than this is no need of its own ("Then,", "please"): it is joined to the clause after
 * it (the last one to the clause before it).
 */
export const MIN_NEED_WORDS = 3;

/**
 * A text of fewer words than this is one need: a short text's needs fit in one ranking of its words ("check why
 * CI failed on my PR and comment on it"), and each need costs a pipeline run. At 12, 44 of the repo sets' 254
 * texts are split (71 at any length) and 77 of LiveMCPBench's 95: the repo set's figures stay as they were and the
 * 10k p50 moves less (docs/decisions/0031-several-needs.md).
 */
export const MIN_SPLIT_WORDS = 12;

/** Splits a text into its needs' texts; [] when it asks for one thing (the text itself is then the need). */
export type NeedTextsStage = (text: string) => string[];

// A sentence ends at . ! ? or ; followed by white space (not inside "report.pdf" or "node.js"), or at a line break.
const SENTENCE_END = /(?<=[.!?;。！？；])\s+|\n+/u;
// Between clauses: a comma (not in a number: "15,000"; with the connectives that follow it), or "and then" /
// "then" / "and" between words.
const CLAUSE_BREAK = /(?<!\p{N})[,，]\s*(?:(?:and then|and|then)\s+)?|\s+(?:and then|then|and)\s+/iu;

export const needTexts: NeedTextsStage = (text) => {
  if (tokenize(text).length < MIN_SPLIT_WORDS) return [];
  const clauses = text
    .split(SENTENCE_END)
    .flatMap((sentence) => sentence.split(CLAUSE_BREAK))
    .map((c) => c.trim())
    .filter((c) => tokenize(c).length > 0);
  const needs: string[] = [];
  let pending = '';
  for (const clause of clauses) {
    const joined = pending ? `${pending} ${clause}` : clause;
    if (tokenize(joined).length < MIN_NEED_WORDS) pending = joined;
    else {
      needs.push(joined);
      pending = '';
    }
  }
  if (pending) {
    if (needs.length > 0) needs[needs.length - 1] = `${needs[needs.length - 1]} ${pending}`;
    else needs.push(pending);
  }
  if (needs.length > MAX_NEEDS) needs.splice(MAX_NEEDS - 1, needs.length, needs.slice(MAX_NEEDS - 1).join(' '));
  return needs.length > 1 ? needs : [];
};
