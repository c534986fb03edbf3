import { sql } from 'kysely';
import {
  CORRECTION_CANDIDATES,
  CORRECTION_KNN_WINDOW,
  CORRECTION_MIN_SIMILARITY,
  CORRECTIONS_PER_WORD,
  correctionsAndCompletions,
  prepareQuery,
  queryWords,
  resolveTerms,
  type QueryEmbedder,
} from '../../src/search/relevance';
import { expandQuery, type QueryWord } from '../../src/search/query-text';
import { BUNDLED_VOCABULARY } from '../../src/search/query-vocabulary';
import { useDemoCorpusDatabase } from '../helpers/demo-database';

// Migration 0006 replaced two sequential scans of term_stats by index lookups (docs/performance.md): the
// nearest words by GiST trigram KNN, prefixes by a byte-order range. They must find what the scans found.
const demo = useDemoCorpusDatabase();

/** Misspellings of every 25th vocabulary word: a letter dropped, two letters swapped. */
async function misspellings(): Promise<string[]> {
  const rows = await sql<{ term: string }>`SELECT term FROM term_stats WHERE df > 0 AND length(term) >= 5 ORDER BY term`.execute(demo.db);
  const words = rows.rows.filter((_, i) => i % 25 === 0).map((r) => r.term);
  expect(words.length).toBeGreaterThan(20);
  return words.flatMap((w) => [w.slice(0, 2) + w.slice(3), w.slice(0, 1) + w[2] + w[1] + w.slice(3)]);
}

const alternatives = (words: QueryWord[]) =>
  words.map((w) => `${w.group} ${w.word} ${w.weight.toFixed(3)}${w.correction ? ' guess' : ''}`).sort();

describe('vocabulary lookups (migration 0006)', () => {
  it('the KNN window finds the same (similarity, df) candidates as a scan of term_stats', async () => {
    for (const word of await misspellings()) {
      const knn = await sql<{ sim: number; df: number }>`
        SELECT similarity(k.term, ${word}) AS sim, k.df FROM (
          SELECT s.term, s.df FROM term_stats s WHERE s.df > 0 ORDER BY s.term <-> ${word} LIMIT ${CORRECTION_KNN_WINDOW}) k
        WHERE similarity(k.term, ${word}) >= ${CORRECTION_MIN_SIMILARITY}
        ORDER BY 1 DESC, 2 DESC LIMIT ${CORRECTION_CANDIDATES}`.execute(demo.db);
      const scan = await sql<{ sim: number; df: number }>`
        SELECT similarity(s.term, ${word}) AS sim, s.df FROM term_stats s
        WHERE s.df > 0 AND similarity(s.term, ${word}) >= ${CORRECTION_MIN_SIMILARITY}
        ORDER BY 1 DESC, 2 DESC LIMIT ${CORRECTION_CANDIDATES}`.execute(demo.db);
      expect({ word, rows: knn.rows }).toEqual({ word, rows: scan.rows });
    }
  });

  it('the byte-order range finds the same name words a prefix scan finds', async () => {
    for (const prefix of ['page', 'slac', 'post', 'gith', 'kube', 'data']) {
      const range = await sql<{ term: string }>`SELECT term FROM term_stats s
        WHERE s.term COLLATE "C" >= ${prefix} AND s.term COLLATE "C" < ${prefix} || chr(1114111) AND s.name_df > 0 AND left(s.term, length(${prefix})) = ${prefix}
        ORDER BY s.df DESC, s.term`.execute(demo.db);
      const scan = await sql<{
        term: string;
      }>`SELECT term FROM term_stats s WHERE s.name_df > 0 AND left(s.term, length(${prefix})) = ${prefix}
        ORDER BY s.df DESC, s.term`.execute(demo.db);
      expect(range.rows).toEqual(scan.rows);
    }
    const pager = await sql<{
      term: string;
    }>`SELECT term FROM term_stats s WHERE s.term COLLATE "C" >= 'pager' AND s.term COLLATE "C" < 'pager' || chr(1114111)`.execute(demo.db);
    expect(pager.rows.map((r) => r.term)).toContain('pagerduty');
  });

  it('equally close corrections are chosen by the word, not by the order the index returns them in', async () => {
    // Five words one letter from "quorbix", equally similar (0.6) and equally frequent (df 1), written in two
    // opposite orders. Before the tie-break, the two kept were the first the KNN scan returned (two databases
    // filled alike once corrected "signup" to "signal" and to "signed").
    const tied = ['quorbiu', 'quorbiv', 'quorbiw', 'quorbiy', 'quorbiz'];
    const chosen: string[] = [];
    for (const order of [[...tied].reverse(), tied]) {
      let embedded = '';
      const embedder: QueryEmbedder = {
        id: 'use-lite-512',
        dimensions: 512,
        embed: async (texts) => texts.map(() => new Array<number>(512).fill(0)),
        embedOne: async (text) => {
          embedded = text;
          return new Array<number>(512).fill(0);
        },
      };
      await demo.db
        .transaction()
        .execute(async (trx) => {
          for (const term of order) await sql`INSERT INTO term_stats (term, df, name_df) VALUES (${term}, 1, 0)`.execute(trx);
          const similarities = await sql<{
            sim: number;
          }>`SELECT DISTINCT similarity(t, 'quorbix') AS sim FROM unnest(${tied}::text[]) t`.execute(trx);
          expect(similarities.rows.map((r) => Number(r.sim))).toEqual([0.6]);
          await prepareQuery(trx, embedder, 'quorbix');
          throw new Error('rolled back');
        })
        .catch((error: Error) => expect(error.message).toBe('rolled back'));
      chosen.push(embedded);
    }
    expect(CORRECTIONS_PER_WORD).toBe(2);
    expect(chosen).toEqual(['quorbix (quorbiu quorbiv)', 'quorbix (quorbiu quorbiv)']);
  });

  // The lookups asked for in the same tick run as one statement (query-understanding.ts, vocabularyLoader and
  // lexemeLoader): each caller gets what its own statement would have found, under its own concepts.
  it('each caller of a shared lookup gets what its own lookup finds, under its own concepts', async () => {
    // The same unknown words at different concepts in different texts: a correction ("kubernets"), a completion
    // ("pager" + "duty" joined), a part of a host name ("stripe.com").
    const texts = [
      'kubernets pods',
      'restart the kubernets pods',
      'pager duty alerts',
      'open a pager duty incident',
      'stripe.com payments',
    ];
    const typed = texts.map((text) => expandQuery(text, BUNDLED_VOCABULARY.synonyms, BUNDLED_VOCABULARY.related));
    const alone: string[][] = [];
    for (const words of typed) alone.push(alternatives(await correctionsAndCompletions(demo.db, words)));
    const together = (await Promise.all(typed.map((words) => correctionsAndCompletions(demo.db, words)))).map(alternatives);
    expect(together).toEqual(alone);
    expect(alone[0].filter((w) => w.includes(' kubernetes '))).toEqual(['0 kubernetes 0.808 guess']);
    expect(alone[1].filter((w) => w.includes(' kubernetes '))).toEqual(['2 kubernetes 0.808 guess']);
    // Joined, "pagerduty" stands for both words of the pair (and completes "pager" alone, at 0.8).
    expect(alone[2].filter((w) => w.includes(' pagerduty 0.900'))).toEqual(['0 pagerduty 0.900', '1 pagerduty 0.900']);
    expect(alone[3].filter((w) => w.includes(' pagerduty 0.900'))).toEqual(['2 pagerduty 0.900', '3 pagerduty 0.900']);
    expect(alone[4].some((w) => w.startsWith('0 stripe '))).toBe(true);

    const words = await Promise.all(texts.map((text) => queryWords(demo.db, text, BUNDLED_VOCABULARY)));
    const termsAlone = [];
    for (const w of words) termsAlone.push(await resolveTerms(demo.db, w));
    const termsTogether = await Promise.all(words.map((w) => resolveTerms(demo.db, w)));
    const sorted = (q: Awaited<ReturnType<typeof resolveTerms>>) => ({
      ...q,
      terms: [...q.terms].sort((a, b) => a.group - b.group || a.lexeme.localeCompare(b.lexeme)),
    });
    expect(termsTogether.map(sorted)).toEqual(termsAlone.map(sorted));
    // The correction's lexeme as written under the typed word's concept, a guess, with its df; the stem "kubernet" is
    // the typed word's own too, so not a guess.
    const kubernetes = termsAlone[1].terms.filter((t) => t.lexeme.startsWith('kubernet'));
    expect(kubernetes.map((t) => [t.group, t.lexeme, t.correction === true])).toEqual(
      expect.arrayContaining([
        [2, 'kubernet', false],
        [2, 'kubernetes', true],
      ]),
    );
    expect(termsAlone[1].terms.find((t) => t.lexeme === 'kubernetes')?.df).toBeGreaterThan(0);
  });
});
