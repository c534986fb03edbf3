// The retrieval statements: each finds candidates (filter applied inside the retrieval, not after a cut) or
// completes their signals, and every one returns the same columns (signalColumns, SignalRow):
// - lexical: the entries with the best BM25 postings of the query's rare lexemes, with their lexical signal;
// - nearest: the identifiers of the HNSW nearest entries to the query embedding (beside the lexical retrieval);
// - vector signals: the cosine and lexical signal of the nearest entries the lexical retrieval did not find;
// - cosines: the cosine of the candidates the lexical retrieval found (it runs before the embedding is known);
// - named: the entries the query names by identifier (or a prefix of one) or by web address.
// mergeSignals makes one candidate of all its rows. toolCosineLookup reads, for the best candidates, the tool
// vector nearest the query (tool_vectors), which raises their cosine (pipeline.ts, withToolCosine).
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { GENERIC_PLAN_SETTINGS, PREPARED_STATEMENT, withLocalSettings } from '../../db/prepared-statements';
import type { Database } from '../../db/schema';
import { toVectorLiteral } from '../../db/vector-literal';
import { INDEXED_VECTOR_FIELDS } from '../../embedding/entry-texts';
import { filterToSql, type NormalisedFilter } from '../query-filter';
import { identifiersNamedIn, urlsNamedIn } from '../query-text';
import { PREFIX_WEIGHT, type LexicalQuery, type PreparedQuery } from './query-understanding';
import { BM25_B, BM25_K1, NAME_MATCH_SATURATION } from './signals';

/** Candidates per retrieval; the ranked list never goes deeper than their union. */
export const CANDIDATES_PER_SIGNAL = 300;
/**
 * Postings read per retrieval lexeme, best impact first (migration 0009). A one-word query gets exactly its
 * CANDIDATES_PER_SIGNAL best entries; an entry in none of its words' top lists is not a lexical candidate
 * (it can still come from the vector retrieval). docs/performance.md has the measured depth.
 */
export const POSTINGS_PER_LEXEME = 300;
/** Candidates of the vector retrieval per retrieval field (VECTOR_RETRIEVAL_FIELDS). */
export const CANDIDATES_PER_VECTOR_FIELD = 100;
/**
 * hnsw.ef_search of the vector retrieval: the HNSW candidate list, at least the LIMIT. recall@10 against exact
 * search at 10k entries (m = 24, ef_construction = 128, index built by inserts): 0.944 at 100, 0.976 at 200,
 * 1.000 at 400 (docs/performance.md); 200 meets the >= 0.95 target for ~1-2 ms per scan.
 */
export const HNSW_EF_SEARCH = 200;
/** Best match over these fields; name and tags+capabilities vectors were measured and hurt (docs/relevance.md). */
export const SEMANTIC_FIELDS = ['doc', 'description'] as const;
/**
 * The fields whose HNSW index retrieves candidates; the others of SEMANTIC_FIELDS only score them. The
 * description scan found nothing the doc scan and the lexical retrieval did not (bench:relevance: registry
 * MRR@10 0.746 with both, 0.749 with doc alone; Alexandria unchanged) and cost a second HNSW scan plus the
 * signals of ~100 more candidates (docs/performance.md).
 */
export const VECTOR_RETRIEVAL_FIELDS: readonly string[] = INDEXED_VECTOR_FIELDS;
/**
 * Candidates whose tool vectors are read (toolCosineLookup): the best by relevance without them. A tool raises an
 * entry's relevance by at most ~0.1 (TOOL_COSINE_WEIGHT), which lifts the first hundred's order and cutoff, not an
 * entry from further down onto the first page. Reading every candidate's (~400) cost matchText ~+23 % at 10k entries
 * six in ten of which list 7 tools; the hundred best's, docs/performance.md.
 */
export const TOOL_CANDIDATES = 100;
/** Entries one identifier prefix in a query may name ("urn:air:github.com:neo4j-contrib" -> its servers). */
export const NAMED_PREFIX_LIMIT = 100;

/** A row of any retrieval statement: the signals it computed, NULL for those it leaves to another statement. */
export interface SignalRow {
  identifier: string;
  type: string | null;
  tags: string[] | null;
  cosine: number | null;
  lexical: number | null;
  typed_lexical: number | null;
}

/** A candidate with its raw signals, merged from its rows (mergeSignals). */
export interface CandidateSignals {
  identifier: string;
  /** The entry's media type (for typeWeights); null when no statement of the candidate read it. */
  type: string | null;
  /** The best cosine over the semantic fields; for the candidates toolCosineLookup read, raised toward the best tool's. */
  cosine: number;
  /** The position (in entries.tools) of the tool whose vector raised the cosine; absent when none did. */
  vectorTool?: number;
  lexical: number;
  /** The lexical signal without the guesses' alternatives (typo corrections, related words). */
  typedLexical: number;
  /** The entry's tags (for the topic labels); [] when no statement of the candidate read them. */
  tags: string[];
}

/**
 * The lexical retrieval: runs before the query embedding is known (`embedded` null); with it (`embedded`, the
 * same query with its vector) it also reads the candidates' cosines.
 */
export type LexicalRetrieval = (
  db: Kysely<Database>,
  q: LexicalQuery,
  filter: NormalisedFilter,
  embedded: PreparedQuery | null,
) => Promise<SignalRow[]>;
/**
 * The vector retrieval's candidates: the identifiers of the entries nearest the query embedding (HNSW, the filter
 * inside the scan). It needs the vector alone, so it runs beside the lexical retrieval.
 */
export type NearestEntries = (db: Kysely<Database>, q: PreparedQuery, filter: NormalisedFilter) => Promise<string[]>;
/** The signals (entry, cosine, lexical) of vector candidates no other statement scored. */
export type VectorSignals = (db: Kysely<Database>, q: PreparedQuery, identifiers: readonly string[]) => Promise<SignalRow[]>;
/** The cosines of candidates found without them. */
export type CosineLookup = (db: Kysely<Database>, q: PreparedQuery, identifiers: readonly string[]) => Promise<SignalRow[]>;
/** The entries the query names. */
export type NamedRetrieval = (db: Kysely<Database>, q: PreparedQuery, filter: NormalisedFilter) => Promise<SignalRow[]>;
/** Of each of `identifiers` that has tool vectors, the one nearest the query: its cosine and its position in entries.tools. */
export type ToolCosineLookup = (
  db: Kysely<Database>,
  q: PreparedQuery,
  identifiers: readonly string[],
) => Promise<Map<string, { cosine: number; position: number }>>;

const NULL_SIGNAL = sql`NULL::float8`;

/**
 * The select list of every retrieval statement, over an entry `e`: its identifier, its type and tags (NULL
 * when `described` is false: the statement does not read the entry), and the signals (NULL unless given).
 */
function signalColumns(columns: {
  described?: boolean;
  cosine?: RawBuilder<unknown>;
  lexical?: RawBuilder<unknown>;
  typedLexical?: RawBuilder<unknown>;
}): RawBuilder<unknown> {
  const { described = true, cosine = NULL_SIGNAL, lexical = NULL_SIGNAL, typedLexical = NULL_SIGNAL } = columns;
  const [type, tags] = described ? [sql`e.type`, sql`e.tags`] : [sql`NULL::text`, sql`NULL::text[]`];
  return sql`e.identifier, ${type} AS type, ${tags} AS tags, ${cosine} AS cosine, ${lexical} AS lexical, ${typedLexical} AS typed_lexical`;
}

/**
 * The text form of each query vector, made once: a need's statements pass the same vector four or five times, and
 * writing 512 new numbers as text takes ~0.06 ms of the event loop each time (toVectorLiteral). Keyed by the vector
 * itself (the embedder's, never changed after), so it lives as long as the query, or as the query cache keeps the
 * vector (withQueryCache: 1,000 vectors, ~7 MB of their text: ~6,950 characters each).
 */
const vectorLiterals = new WeakMap<readonly number[], string>();

export function vectorSql(q: Pick<PreparedQuery, 'vector' | 'dimensions'>): RawBuilder<unknown> {
  let literal = vectorLiterals.get(q.vector);
  if (literal === undefined) vectorLiterals.set(q.vector, (literal = toVectorLiteral(q.vector)));
  return sql`${literal}::vector(${sql.raw(String(q.dimensions))})`;
}

/** `v.embedding` cast to the model's dimensions: the same expression the HNSW indexes are built on. */
export function embeddingColumnSql(q: Pick<PreparedQuery, 'dimensions'>, alias = 'v'): RawBuilder<unknown> {
  return sql`${sql.ref(`${alias}.embedding`)}::vector(${sql.raw(String(q.dimensions))})`;
}

/** The query terms as a table `qt(grp, lexeme, wi, corr)`; wi = weight x IDF. */
function queryTermsSql(q: LexicalQuery): RawBuilder<unknown> {
  return sql`qt AS MATERIALIZED (SELECT * FROM unnest(${q.terms.map((t) => t.group)}::int[], ${q.terms.map((t) => t.lexeme)}::text[],
                                  ${q.terms.map((t) => t.weight * t.idf)}::float8[], ${q.terms.map((t) => t.correction === true)}::bool[]) AS qt(grp, lexeme, wi, corr)
             WHERE qt.wi > 0)`;
}

/**
 * CTEs from `ce` (the candidates' entries: identifier, facet_key, rank_length) to
 * `lx(identifier, lexical, typed_lexical)`: BM25F (saturation(), lexicalSignal() of signals.ts) from the
 * term-frequency parts of the candidates' postings (migration 0021), set-based. Each candidate's postings are
 * one range of the primary key (entry_key, lexeme), read from the index alone (it includes tf_name and
 * tf_other), and meet the query terms in a hash join. `OFFSET 0` keeps the range scan per candidate: the
 * planner would otherwise read each query lexeme's whole posting list (thousands of rows for a common word)
 * and hash the candidates. At 10k entries, 300 candidates and 14 query lexemes: ~2.9 ms against ~7.3 for
 * one array_position per (candidate, query lexeme) over the entries' arrays (0007), copied out of their
 * stored form (docs/performance.md).
 */
function lexicalSignalCtes(q: LexicalQuery): RawBuilder<unknown> {
  const lexicalMax = (q.lexicalMax > 0 ? q.lexicalMax : 1) * NAME_MATCH_SATURATION;
  return sql`hits AS (
      SELECT ce.identifier, qt.grp, qt.wi, qt.corr,
             p.tf_name + p.tf_other / (1 - ${BM25_B}::float8 + ${BM25_B}::float8 * ce.rank_length / ${q.averageLength}::float8) AS tf
      FROM ce CROSS JOIN LATERAL (SELECT p.lexeme, p.tf_name, p.tf_other FROM lexeme_postings p WHERE p.entry_key = ce.facet_key OFFSET 0) p
      JOIN qt ON qt.lexeme = p.lexeme),
    per_concept AS (
      SELECT identifier, max(wi * tf / (tf + ${BM25_K1}::float8)) AS best,
             coalesce(max(wi * tf / (tf + ${BM25_K1}::float8)) FILTER (WHERE NOT corr), 0) AS best_typed
      FROM hits GROUP BY identifier, grp),
    lx AS (
      SELECT identifier, sum(best) / ${lexicalMax}::float8 AS lexical, sum(best_typed) / ${lexicalMax}::float8 AS typed_lexical
      FROM per_concept GROUP BY identifier)`;
}

/**
 * The candidates' entries for lexicalSignalCtes, `from` a join that names the entry `e`: what the
 * statement returns of them, and their key and length for the BM25F.
 */
function candidateEntries(from: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`ce AS MATERIALIZED (SELECT e.identifier, e.type, e.tags, e.facet_key, e.rank_length FROM ${from})`;
}

/** The best cosine of the entry `e` over the semantic fields. */
function cosineSql(q: PreparedQuery, fields: readonly string[]): RawBuilder<unknown> {
  return sql`(SELECT max(1 - (${embeddingColumnSql(q)} <=> ${vectorSql(q)})) FROM entry_vectors v
           WHERE v.identifier = e.identifier AND v.model = ${q.model} AND v.field = ANY(${[...fields]}::text[]))`;
}

/**
 * The lexical candidates: the top CANDIDATES_PER_SIGNAL entries matching the query's retrieval lexemes
 * (filter inside the retrieval), with their lexical signals, and their cosine over `semanticFields` when the
 * embedding is known; `postingsPerLexeme` best postings are read per lexeme (POSTINGS_PER_LEXEME in production).
 */
export function lexicalRetrieval(postingsPerLexeme: number, semanticFields: readonly string[]): LexicalRetrieval {
  return async (db, q, filter, embedded) => {
    if (q.retrievalLexemes.length === 0) return [];
    const cosine = embedded ? cosineSql(embedded, semanticFields) : NULL_SIGNAL;
    // Each retrieval lexeme's best postings (lexeme_postings, migration 0009), read in impact order from the
    // index; a filter joins the entry, so the scan goes on until enough pass it.
    const postings =
      filter.length === 0
        ? sql`SELECT p.entry_key, p.impact FROM lexeme_postings p WHERE p.lexeme = qt.lexeme ORDER BY p.impact DESC, p.entry_key LIMIT ${postingsPerLexeme}`
        : sql`SELECT p.entry_key, p.impact FROM lexeme_postings p JOIN entries e ON e.facet_key = p.entry_key
              WHERE p.lexeme = qt.lexeme AND ${filterToSql(filter)} ORDER BY p.impact DESC, p.entry_key LIMIT ${postingsPerLexeme}`;
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
      ${candidateEntries(sql`best_keys b JOIN entries e ON e.facet_key = b.entry_key`)},
      ${lexicalSignalCtes(q)}
      SELECT ${signalColumns({ cosine, lexical: sql`lx.lexical`, typedLexical: sql`lx.typed_lexical` })}
      FROM ce AS e LEFT JOIN lx ON lx.identifier = e.identifier`.execute(db);
    return result.rows;
  };
}

/**
 * The vector candidates: the top CANDIDATES_PER_VECTOR_FIELD entries per retrieval field (VECTOR_RETRIEVAL_FIELDS
 * among `semanticFields`, all of them when it names none), the filter inside the HNSW scan. Identifiers only:
 * vectorSignals scores those the lexical retrieval, which runs at the same time, did not find.
 */
export function nearestEntries(semanticFields: readonly string[]): NearestEntries {
  const retrieving = semanticFields.filter((f) => VECTOR_RETRIEVAL_FIELDS.includes(f));
  const retrievalFields = retrieving.length > 0 ? retrieving : semanticFields;
  if (retrievalFields.length === 0) return async () => [];
  return async (db, q, filter) => {
    const where = filterToSql(filter);
    const retrievals = retrievalFields.map(
      (field) => sql`(SELECT v.identifier FROM entry_vectors v JOIN entries e ON e.identifier = v.identifier
          WHERE v.model = ${sql.lit(q.model)} AND v.field = ${sql.lit(field)} AND e.deleted_at IS NULL AND ${where}
          ORDER BY ${embeddingColumnSql(q)} <=> ${vectorSql(q)} LIMIT ${CANDIDATES_PER_VECTOR_FIELD})`,
    );
    const prepared = filter.length === 0;
    // Filtered vector retrieval: let HNSW keep scanning until LIMIT rows pass the filter (pgvector 0.8). Without a
    // filter the statement's text is fixed: it is prepared and planned once per connection on its generic plan (which
    // can use the model's partial HNSW index because model and field are literals): 2.2 ms of planning saved per
    // query. And no JIT in either: the generic plan does not know the LIMIT, so at 100k entries its estimate passes
    // jit_above_cost and every call compiled ~67 functions, ~26 ms, where the statement itself runs in ~8
    // (docs/performance.md).
    const settings = {
      'hnsw.iterative_scan': 'relaxed_order',
      'hnsw.ef_search': String(HNSW_EF_SEARCH),
      ...(prepared ? GENERIC_PLAN_SETTINGS : { plan_cache_mode: 'auto', jit: 'off' }),
    };
    const result = await withLocalSettings(db, settings, (trx) =>
      sql<{ identifier: string }>`${prepared ? PREPARED_STATEMENT : sql``}${sql.join(retrievals, sql` UNION `)}`.execute(trx),
    );
    return result.rows.map((r) => r.identifier);
  };
}

/**
 * The vector candidates' signals: their entry, their cosine over `semanticFields` and their lexical signals
 * (lexicalSignalCtes), for candidates nearestEntries found and the lexical retrieval did not.
 */
export function vectorSignals(semanticFields: readonly string[]): VectorSignals {
  return async (db, q, identifiers) => {
    if (identifiers.length === 0) return [];
    const result = await sql<SignalRow>`${PREPARED_STATEMENT}
      WITH ${queryTermsSql(q)},
      ${candidateEntries(sql`unnest(${[...identifiers]}::text[]) AS cand(identifier) JOIN entries e ON e.identifier = cand.identifier`)},
      ${lexicalSignalCtes(q)}
      SELECT ${signalColumns({ cosine: cosineSql(q, semanticFields), lexical: sql`coalesce(lx.lexical, 0)`, typedLexical: sql`coalesce(lx.typed_lexical, 0)` })}
      FROM ce AS e LEFT JOIN lx ON lx.identifier = e.identifier`.execute(db);
    return result.rows;
  };
}

/** The cosine over `semanticFields` of entries whose lexical signals are already known (the lexical candidates). */
export function cosineLookup(semanticFields: readonly string[]): CosineLookup {
  return async (db, q, identifiers) => {
    if (identifiers.length === 0) return [];
    const result = await sql<SignalRow>`${PREPARED_STATEMENT}
      SELECT ${signalColumns({ described: false, cosine: cosineSql(q, semanticFields) })}
      FROM unnest(${[...identifiers]}::text[]) AS e(identifier)`.execute(db);
    return result.rows;
  };
}

/**
 * The nearest tool vector (tool_vectors, migration 0023) of each of the given entries that has any: one statement,
 * each entry's rows one range of the primary key (an entry without tools reads nothing).
 */
export const toolCosineLookup: ToolCosineLookup = async (db, q, identifiers) => {
  const found = new Map<string, { cosine: number; position: number }>();
  if (identifiers.length === 0) return found;
  const result = await sql<{ identifier: string; distance: number; position: number }>`${PREPARED_STATEMENT}
    SELECT DISTINCT ON (t.identifier) t.identifier, ${embeddingColumnSql(q, 't')} <=> ${vectorSql(q)} AS distance, t.position
    FROM tool_vectors t
    WHERE t.identifier = ANY(${[...identifiers]}::text[]) AND t.model = ${q.model}
    ORDER BY t.identifier, distance, t.position`.execute(db);
  for (const r of result.rows) found.set(r.identifier, { cosine: 1 - Number(r.distance), position: Number(r.position) });
  return found;
};

/**
 * The entries a query names by identifier or by web address (live, passing the filter), with their cosine
 * over `semanticFields`. Named exactly (the identifier, or the entry's `url` in urlKey form:
 * "github.com/org/repo" names the entry whose url is https://github.com/org/repo): the strongest lexical
 * evidence there is, lexical signal 1 (relevance 1, score 100 before type weights) whatever else the query
 * says. Named by an identifier prefix ending at a segment (the identifier continues with ':'): PREFIX_WEIGHT,
 * like a name completion. mergeSignals keeps the larger lexical signal.
 */
export function namedRetrieval(semanticFields: readonly string[]): NamedRetrieval {
  return async (db, q, filter) => {
    const identifiers = identifiersNamedIn(q.text);
    const urls = urlsNamedIn(q.text);
    if (identifiers.length === 0 && urls.length === 0) return [];
    const urlKey = urlKeySql(sql`e.entry->>'url'`);
    const exact = sql`(e.identifier = ANY(${[...identifiers]}::text[]) OR ${urlKey} = ANY(${[...urls]}::text[]))`;
    const lexical = sql`CASE WHEN ${exact} THEN 1 ELSE ${PREFIX_WEIGHT}::float8 END`;
    // Prefix: a byte-order range (':' + 1 is ';'), then the exact test.
    const prefixes = identifiers.map((id) => `${id}:`);
    const result = await sql<SignalRow>`
      SELECT ${signalColumns({ cosine: cosineSql(q, semanticFields), lexical, typedLexical: lexical })}
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
  };
}

/** urlKey() of query-text.ts in SQL, for a stored url (a test compares the two). */
export function urlKeySql(url: RawBuilder<unknown>): RawBuilder<string> {
  const bare = sql`regexp_replace(regexp_replace(regexp_replace(lower(${url}), '^https?://', ''), '^www\\.', ''), '(\\.git)?/*$', '')`;
  return sql<string>`regexp_replace(${bare}, '^arxiv\\.org/(?:abs|pdf)/([0-9]{4}\\.[0-9]{4,5})(?:v[0-9]+)?(?:\\.pdf)?$', 'arxiv.org/abs/\\1')`;
}

/**
 * One row per candidate from the statements' rows: a row's non-null signals complete the candidate's (a
 * lexical candidate's cosine comes from the vector or the cosine statement; overlapping rows agree).
 */
export function mergeSignals(rows: SignalRow[]): CandidateSignals[] {
  const out = new Map<string, CandidateSignals>();
  for (const r of rows) {
    const seen = out.get(r.identifier);
    const row = seen ?? { identifier: r.identifier, type: null, cosine: 0, lexical: 0, typedLexical: 0, tags: [] };
    if (r.type !== null) row.type = r.type;
    if (r.tags !== null) row.tags = r.tags;
    if (r.cosine !== null) row.cosine = Number(r.cosine);
    // Statements that both compute an entry's lexical signal agree; an identifier named in the query
    // (the named retrieval) can only raise it.
    if (r.lexical !== null) row.lexical = Math.max(row.lexical, Math.min(1, Number(r.lexical)));
    if (r.typed_lexical !== null) row.typedLexical = Math.max(row.typedLexical, Math.min(1, Number(r.typed_lexical)));
    if (!seen) out.set(r.identifier, row);
  }
  return [...out.values()];
}
