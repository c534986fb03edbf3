// Each retrieval signal on its own, for the relevance benchmark: the same filter, the top 10 by that signal.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../src/db/schema';
import { filterToSql, type NormalisedFilter } from '../src/search/query-filter';
import { embeddingColumnSql, vectorSql, type PreparedQuery } from '../src/search/relevance';

export interface Ranked {
  identifier: string;
  relevance: number;
  /** The 0-100 score a client sees (the production rankers only). */
  score?: number;
}

export interface BenchSignal {
  name: string;
  rank(db: Kysely<Database>, q: PreparedQuery, filter: NormalisedFilter): Promise<Ranked[]>;
}

/** OR of the query's retrieval lexemes as a tsquery: the ts_rank_cd baseline's query (search no longer uses one). */
function lexicalQuerySql(q: Pick<PreparedQuery, 'retrievalLexemes'>): RawBuilder<unknown> {
  return sql`(SELECT to_tsquery('simple', string_agg(quote_literal(l), ' | ')) FROM unnest(${q.retrievalLexemes}::text[]) AS l)`;
}

async function topBy(
  db: Kysely<Database>,
  filter: NormalisedFilter,
  score: RawBuilder<number>,
  extraWhere: RawBuilder<unknown> = sql`true`,
): Promise<Ranked[]> {
  const rows = await sql<{ identifier: string; s: number }>`
    SELECT e.identifier, ${score} AS s FROM entries e
    WHERE e.deleted_at IS NULL AND ${filterToSql(filter)} AND ${extraWhere}
    ORDER BY s DESC, e.identifier LIMIT 10`.execute(db);
  return rows.rows.map((r) => ({ identifier: r.identifier, relevance: Number(r.s) }));
}

function vectorField(field: string): BenchSignal {
  return {
    name: `vector(${field})`,
    async rank(db, q, filter) {
      const rows = await sql<{ identifier: string; d: number }>`
        SELECT v.identifier, ${embeddingColumnSql(q)} <=> ${vectorSql(q)} AS d
        FROM entry_vectors v JOIN entries e ON e.identifier = v.identifier
        WHERE v.model = ${q.model} AND v.field = ${field} AND e.deleted_at IS NULL AND ${filterToSql(filter)}
        ORDER BY d LIMIT 10`.execute(db);
      return rows.rows.map((r) => ({ identifier: r.identifier, relevance: 1 - Number(r.d) }));
    },
  };
}

export const benchSignals: BenchSignal[] = [
  vectorField('doc'),
  {
    name: 'ts_rank_cd(OR)',
    rank: (db, q, filter) =>
      topBy(db, filter, sql<number>`ts_rank_cd(e.search_doc, ${lexicalQuerySql(q)})`, sql`e.search_doc @@ ${lexicalQuerySql(q)}`),
  },
  {
    name: 'trigram(name)',
    rank: (db, q, filter) => topBy(db, filter, sql<number>`word_similarity(lower(e.display_name), lower(${q.text}))`),
  },
];
