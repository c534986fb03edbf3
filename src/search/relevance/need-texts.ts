// Query understanding, first step: a text that asks for several things ("find the trending repositories, read
// the top one's wiki, then draft an intro in /root/markdown/intro.md") is split into need texts, each ranked
// through the whole pipeline on its own (pipeline.ts) and the first page assembled to hold the best entry of
// each (need-page.ts). The text's own punctuation and connectives decide the split: sentences, clauses after a
// comma or semicolon, "and" / "then" / "and then" between clauses, their Chinese counterparts. Three forms in a task imply a need its words
// do not name (impliedNeeds): a local file path (files to read or write), a date relative to today (the current
// date), a web address (a page to fetch). Nothing here knows a product: each implied need is a sentence about an
// operation, ranked like any need, so whatever entry of the index has that operation answers it.
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
 * A text of fewer words than this is split only where it says its steps come one after another ("then": STEP_BREAK):
 * a short text's needs otherwise fit in one ranking of its words ("check why CI failed on my PR and comment on it"),
 * and each need costs a pipeline run. At 12, 44 of the repo sets' 254 texts are split at every break (71 at any
 * length) and 77 of LiveMCPBench's 95: the repo set's figures stay as they were and the 10k p50 moves less
 * (docs/decisions/0031-several-needs.md).
 */
export const MIN_SPLIT_WORDS = 12;

/** Splits a text into its needs' texts; [] when it asks for one thing (the text itself is then the need). */
export type NeedTextsStage = (text: string) => string[];

// A sentence ends at . ! ? or ; followed by white space (not inside "report.pdf" or "node.js"), at a Chinese or
// Japanese 。！？；, which no space follows, or at a line break.
const SENTENCE_END = /(?<=[.!?;])\s+|(?<=[。！？；])\s*|\n+/u;
// Between clauses: a comma (not in a number: "15,000"; with the connectives that follow it), "and then" / "then" /
// "and" between words, or 然后 / 接着 / 并且 ("then", "next", "and also") after a Chinese character.
const CLAUSE_BREAK = /(?<!\p{N})[,，]\s*(?:(?:and then|and|then)\s+)?|\s+(?:and then|then|and)\s+|(?<=\p{Script=Han})(?:然后|接着|并且)/iu;

// Between the steps of a short text: "then" / "and then" after a word or a comma, 然后 / 接着 ("then", "next") after
// a Chinese character. Not "and" or a comma alone, which join the parts of one need as often as two needs.
const STEP_BREAK = /(?:[,，]\s*|\s+)(?:and then|then)\s+|(?<=\p{Script=Han})(?:然后|接着)/iu;

/** An implied need: the form in a task's text that implies it, and the need's text, ranked like a clause's. */
interface ImpliedNeed {
  form: RegExp;
  need: string;
}

/** The top directories that make an absolute path without a file extension a local one ("/root/pdf"), not a web API's ("/v1/chat"). */
const FILE_SYSTEM_ROOTS = 'root|home|users|tmp|var|mnt|media|data|opt|srv|etc|workspace|usr';
const WEEKDAY = '(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)';
const SPAN = '(?:hours?|h|days?|weeks?|months?|years?)';

/**
 * The implied needs, in this order after the clauses. The forms are conservative: a path starts a word with `/`,
 * `~/`, `./` or a drive letter and ends in a file name with an extension ("/report.docx"), or starts with `~/`,
 * `./` or a file system's top directory ("/root/pdf", "/home/me", "/tmp/x"): not "and/or", "24/7", "CI/CD", an
 * API's path ("/v1/chat/completions"), a subreddit ("/r/rust") nor the path inside a web address; a date is one to compute from the day the task runs: ahead of it ("tomorrow", "next
 * Wednesday", "in 3 days") or a span back from it ("the last 24h", "past 7 days"). Not "today", "yesterday's
 * call" or "last week", which place something the user remembers, nor "latest" or "current", which ask for
 * fresh data rather than for the date.
 */
export const IMPLIED_NEEDS: readonly ImpliedNeed[] = [
  {
    form: new RegExp(
      `(?:^|[\\s"'“‘(（])(?:(?:~|\\.{1,2})?(?:\\/[\\w.-]+)*\\/[\\w-]+\\.[a-z][a-z0-9]{1,4}\\b|(?:~|\\.{1,2})\\/[\\w.-]+|` +
        `\\/(?:${FILE_SYSTEM_ROOTS})\\/[\\w.-]+|[a-z]:\\\\[\\w.\\\\-]+)`,
      'iu',
    ),
    need: 'read and write files and directories on the local file system',
  },
  {
    form: new RegExp(
      `\\b(?:tomorrow|tonight|near future|(?:next|this coming) (?:${WEEKDAY}|week|weekend|month|year)|` +
        `(?:last|past|next) (?:\\d+ ?${SPAN}|24h)|in \\d+ ${SPAN}|\\d+ ${SPAN} (?:ago|from now))\\b`,
      'iu',
    ),
    need: 'get the current date and time',
  },
  { form: /\bhttps?:\/\/[^\s/]+\/\S+/iu, need: 'fetch a web page from its URL and read its content' },
];

/** Whether a need's text is one of IMPLIED_NEEDS' (the first page places the needs a text names before them). */
export function isImpliedNeed(need: string): boolean {
  return IMPLIED_NEEDS.some((implied) => implied.need === need);
}

/** The needs a task's text implies without naming them (IMPLIED_NEEDS), in IMPLIED_NEEDS' order. */
export function impliedNeeds(text: string): string[] {
  return IMPLIED_NEEDS.filter((implied) => implied.form.test(text)).map((implied) => implied.need);
}

/** The clauses' needs and the implied ones of a text of MIN_SPLIT_WORDS words or more; a shorter text's steps. */
export const needTexts: NeedTextsStage = (text) =>
  longEnoughToSplit(text) ? [...severalClauses(text), ...impliedNeeds(text)] : steps(text);

/** The clauses' needs alone (the benchmark's `- implied needs`). */
export const clauseNeedTexts: NeedTextsStage = (text) => (longEnoughToSplit(text) ? severalClauses(text) : steps(text));

/** A text of MIN_SPLIT_WORDS words or more: a shorter one is split at its steps alone (STEP_BREAK). */
function longEnoughToSplit(text: string): boolean {
  return tokenize(text).length >= MIN_SPLIT_WORDS;
}

/** The text's clauses as needs; [] when it asks for one thing. */
function severalClauses(text: string): string[] {
  return asNeeds(text.split(SENTENCE_END).flatMap((sentence) => sentence.split(CLAUSE_BREAK)));
}

/** A short text's steps as needs (STEP_BREAK); [] when it names one. */
function steps(text: string): string[] {
  return asNeeds(text.split(STEP_BREAK));
}

/** Parts of a text as needs (MIN_NEED_WORDS, MAX_NEEDS); [] when they make one. */
function asNeeds(parts: string[]): string[] {
  const clauses = parts.map((c) => c.trim()).filter((c) => tokenize(c).length > 0);
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
}
