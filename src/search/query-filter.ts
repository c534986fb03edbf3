// The structured filter of POST /search and POST /explore (ARD §7.1): keys are dot-separated field
// paths, a bare scalar is a one-element array, OR within a key, AND across keys, and a path into an
// array matches when any element matches. Compiled to SQL over `entries` aliased `e`; values and
// JSON paths are always bound parameters, never SQL text.
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import { InvalidArgumentError } from '../errors';
import { isIriKey } from './query-context';

export type QueryFilter = Record<string, string | string[]>;
export type NormalisedFilter = Array<{ path: string; values: string[] }>;

/** Standard fields backed by a column. */
const COLUMN_FIELDS: Record<string, { column: string; array: boolean; lower?: boolean }> = {
  identifier: { column: 'identifier', array: false },
  type: { column: 'type', array: false },
  displayName: { column: 'display_name', array: false },
  description: { column: 'description', array: false },
  version: { column: 'version', array: false },
  publisher: { column: 'publisher', array: false, lower: true },
  tags: { column: 'tags', array: true },
  capabilities: { column: 'capabilities', array: true },
};

/** Fields read from the stored entry (or its manifest's host) as JSON paths. */
const JSON_ROOTS = ['metadata', 'trustManifest', 'host', 'data', 'representativeQueries', 'url', 'updatedAt'];

/**
 * Registry extension fields: what this registry computed about an entry, not terms of the entry. JSON-LD
 * reserves `@`-names for keywords, so no entry term is spelled this way (docs/api.md "Registry extensions").
 * `@verification` is the trust check's state (ARD v0.91 §4.5.2, src/trust/); an entry not checked since
 * it last changed is 'unverified'. `@liveness` is whether what the entry lists answers (src/liveness/,
 * docs/liveness.md); an entry not probed since it last changed is 'unknown'.
 */
export const VERIFICATION_FIELD = '@verification';
export const LIVENESS_FIELD = '@liveness';
interface ExtensionField {
  /** The side table, keyed by identifier, with the content_hash its row was computed on. */
  table: 'entry_verification' | 'entry_liveness';
  column: string;
  /** The value of an entry without a current row; null for the nested fields (no value). */
  fallback: string | null;
}
const EXTENSION_FIELDS: Record<string, ExtensionField> = {
  '@verification': { table: 'entry_verification', column: 'state', fallback: 'unverified' },
  '@verification.reason': { table: 'entry_verification', column: 'reason', fallback: null },
  '@verification.method': { table: 'entry_verification', column: 'method', fallback: null },
  '@liveness': { table: 'entry_liveness', column: 'state', fallback: 'unknown' },
  '@liveness.reason': { table: 'entry_liveness', column: 'reason', fallback: null },
};
/** The values a state field accepts (src/trust/verification-outcome.ts, src/liveness/liveness-state.ts). */
const EXTENSION_STATE_VALUES: Record<string, readonly string[]> = {
  '@verification': ['verified', 'unverified', 'failed'],
  '@liveness': ['live', 'unreachable', 'dead', 'no-remote-endpoint', 'unknown'],
};

/** True when the filter names an entry state (`@verification`, `@liveness` or one of their fields): it reads their tables. */
export function filtersOnEntryStates(filter: NormalisedFilter): boolean {
  return filter.some((f) => Object.hasOwn(EXTENSION_FIELDS, f.path));
}

/** True when the filter names `@liveness` or one of its fields: it then sees entries search leaves out by default. */
export function filtersOnLiveness(filter: NormalisedFilter): boolean {
  return filter.some((f) => f.path === LIVENESS_FIELD || f.path.startsWith(`${LIVENESS_FIELD}.`));
}

export const FILTERABLE_FIELDS = [
  ...Object.keys(COLUMN_FIELDS),
  ...JSON_ROOTS.map((r) => (isLeafRoot(r) ? r : `${r}.*`)),
  ...Object.keys(EXTENSION_FIELDS),
];

const SEGMENT = /^[A-Za-z_@$][A-Za-z0-9_@$-]*$/;
const MAX_KEYS = 32;
const MAX_VALUES = 100;
const MAX_VALUE_LENGTH = 1000;

function isLeafRoot(root: string): boolean {
  return root === 'representativeQueries' || root === 'url' || root === 'updatedAt';
}

/** Validates and normalises: sorted keys, de-duplicated values. Throws INVALID_ARGUMENT naming the key. */
export function normaliseFilter(filter: QueryFilter | undefined): NormalisedFilter {
  if (!filter) return [];
  const keys = Object.keys(filter).sort();
  if (keys.length > MAX_KEYS) throw new InvalidArgumentError(`query.filter has ${keys.length} keys; at most ${MAX_KEYS} are allowed`);
  return keys.map((path) => {
    checkFieldPath(path);
    const raw = filter[path];
    const values = [...new Set(Array.isArray(raw) ? raw : [raw])];
    if (values.length === 0) throw new InvalidArgumentError(`query.filter['${path}'] is an empty array; give at least one value`);
    if (values.length > MAX_VALUES)
      throw new InvalidArgumentError(`query.filter['${path}'] has ${values.length} values; at most ${MAX_VALUES} are allowed`);
    for (const value of values) {
      if (typeof value !== 'string') throw new InvalidArgumentError(`query.filter['${path}'] values must be strings`);
      if (value.length > MAX_VALUE_LENGTH)
        throw new InvalidArgumentError(`a value of query.filter['${path}'] is longer than ${MAX_VALUE_LENGTH} characters`);
      const states = Object.hasOwn(EXTENSION_STATE_VALUES, path) ? EXTENSION_STATE_VALUES[path] : null;
      if (states && !states.includes(value)) {
        throw new InvalidArgumentError(`query.filter['${path}'] values must be ${states.join(', ')}; got '${value.slice(0, 100)}'`);
      }
    }
    return { path, values };
  });
}

/**
 * Throws INVALID_ARGUMENT unless `path` is a supported field path; `what` names it in the message
 * (a filter key, a facet field).
 */
export function checkFieldPath(path: string, what = 'query.filter key'): void {
  // A namespaced term resolved to its IRI (query-context.ts): read through each entry's @context.
  if (isIriKey(path)) {
    if (path.length > MAX_VALUE_LENGTH || /[\s"<>{}|\\^`]/.test(path))
      throw new InvalidArgumentError(`${what} '${path.slice(0, 200)}' is not an IRI`);
    return;
  }
  const segments = path.split('.');
  const root = segments[0];
  const supported = `supported fields: ${FILTERABLE_FIELDS.join(', ')}`;
  if (segments.some((s) => !SEGMENT.test(s))) {
    throw new InvalidArgumentError(`${what} '${path}' is not a dot-separated field path; ${supported}`);
  }
  if (Object.hasOwn(EXTENSION_STATE_VALUES, root)) {
    if (!Object.hasOwn(EXTENSION_FIELDS, path)) {
      const nested = Object.keys(EXTENSION_FIELDS)
        .filter((f) => f.startsWith(`${root}.`))
        .map((f) => f.slice(root.length + 1));
      throw new InvalidArgumentError(`${what} '${path}': '${root}' has only the nested fields ${nested.join(' and ')}`);
    }
    return;
  }
  if (columnField(root)) {
    if (segments.length > 1) throw new InvalidArgumentError(`${what} '${path}': '${root}' has no nested fields`);
    return;
  }
  if (!JSON_ROOTS.includes(root)) {
    throw new InvalidArgumentError(`${what} '${path}' is not a supported field path; ${supported}`);
  }
  if (isLeafRoot(root) && segments.length > 1) throw new InvalidArgumentError(`${what} '${path}': '${root}' has no nested fields`);
  if (!isLeafRoot(root) && segments.length < 2) {
    throw new InvalidArgumentError(
      `${what} '${path}' needs a nested field, for example '${root}.${root === 'trustManifest' ? 'attestations.type' : 'name'}'`,
    );
  }
}

/** Own keys only: 'constructor' or 'toString' are not columns (they reached SQL as e.undefined). */
function columnField(root: string): { column: string; array: boolean; lower?: boolean } | undefined {
  return Object.hasOwn(COLUMN_FIELDS, root) ? COLUMN_FIELDS[root] : undefined;
}

/** SQL condition over alias `e` for a normalised filter; TRUE when there is none. */
export function filterToSql(filter: NormalisedFilter): RawBuilder<SqlBool> {
  if (filter.length === 0) return sql<SqlBool>`TRUE`;
  const parts = filter.map(({ path, values }) => conditionFor(path, values));
  return sql<SqlBool>`(${sql.join(parts, sql` AND `)})`;
}

/**
 * A registry extension field of entry `e`'s current content: the trust check (db/migrations/0015) or the
 * liveness (db/migrations/0016), read from the row computed on the entry's current content_hash.
 */
function extensionSql(path: string): RawBuilder<string | null> {
  const field = EXTENSION_FIELDS[path];
  const stored = sql<string | null>`(SELECT ${sql.ref(`x.${field.column}`)} FROM ${sql.table(field.table)} x
    WHERE x.identifier = e.identifier AND x.content_hash = e.content_hash)`;
  return field.fallback === null ? stored : sql<string>`coalesce(${stored}, ${field.fallback}::text)`;
}

/**
 * The values entry `e` has for the term IRI `iri`, one jsonb per key that carries it: the IRI itself used as
 * a key, or a key `p:local` (or a term `t`) that the entry's own `@context` (an object, or objects in an
 * array) binds so that it expands to `iri` (ARD v0.91 §4.1, §5.3.1). A column `v`; NULL where a key is absent.
 */
function namespacedTermValuesSql(iri: string): RawBuilder<unknown> {
  return sql`SELECT e.entry -> ${iri}::text AS v
    UNION ALL
    SELECT k.v
    FROM jsonb_array_elements(CASE jsonb_typeof(e.entry -> '@context') WHEN 'array' THEN e.entry -> '@context'
                                WHEN 'object' THEN jsonb_build_array(e.entry -> '@context') ELSE '[]'::jsonb END) AS c(ctx)
    CROSS JOIN LATERAL jsonb_each(CASE jsonb_typeof(c.ctx) WHEN 'object' THEN c.ctx ELSE '{}'::jsonb END) AS b(term, bound)
    CROSS JOIN LATERAL (VALUES (e.entry -> (b.term || ':' || substr(${iri}::text, length(b.bound #>> '{}') + 1))),
                               (CASE WHEN b.bound #>> '{}' = ${iri}::text THEN e.entry -> b.term END)) AS k(v)
    WHERE jsonb_typeof(b.bound) = 'string' AND starts_with(${iri}::text, b.bound #>> '{}')`;
}

/** An entry matches when any value of the term (any element of an array value) is one of `values`. */
function namespacedTermCondition(iri: string, values: string[]): RawBuilder<SqlBool> {
  const vals = JSON.stringify({ vals: jsonCandidates(values) });
  return sql<SqlBool>`EXISTS (SELECT 1 FROM (${namespacedTermValuesSql(iri)}) AS t(v)
    WHERE coalesce(jsonb_path_exists(t.v, '$ ? (@ == $vals[*])'::jsonpath, ${vals}::jsonb), false))`;
}

function conditionFor(path: string, values: string[]): RawBuilder<SqlBool> {
  if (isIriKey(path)) return namespacedTermCondition(path, values);
  if (Object.hasOwn(EXTENSION_FIELDS, path)) return sql<SqlBool>`coalesce(${extensionSql(path)} = ANY(${values}::text[]), false)`;
  const segments = path.split('.');
  const column = columnField(segments[0]);
  if (column) {
    const ref = sql.ref(`e.${column.column}`);
    const vals = column.lower ? values.map((v) => v.toLowerCase()) : values;
    return column.array ? sql<SqlBool>`${ref} && ${vals}::text[]` : sql<SqlBool>`${ref} = ANY(${vals}::text[])`;
  }
  const [root, ...rest] = segments;
  if (root === 'metadata' && rest.length === 1) {
    // metadata is flat scalars (the catalog schema): ->> gives their text form, numbers and booleans included.
    return sql<SqlBool>`(e.entry -> 'metadata' ->> ${rest[0]}) = ANY(${values}::text[])`;
  }
  const document = root === 'host' ? sql.ref('e.host') : sql.ref('e.entry');
  const jsonPath = root === 'host' ? rest : segments;
  return sql<SqlBool>`jsonb_path_exists(${document}, ${toJsonPath(jsonPath)}::jsonpath, ${JSON.stringify({ vals: jsonCandidates(values) })}::jsonb)`;
}

/** True when an entry can have several values at the path (arrays, JSON paths that may cross one). */
export function isMultiValuedField(path: string): boolean {
  if (isIriKey(path)) return true;
  if (Object.hasOwn(EXTENSION_FIELDS, path)) return false;
  const root = path.split('.')[0];
  const column = columnField(root);
  if (column) return column.array;
  return root !== 'metadata';
}

/**
 * A text[] expression over entry `e` with the values it has at a field path already checked by
 * checkFieldPath: what POST /explore buckets. Read the way conditionFor matches, so filtering on a
 * bucket's value selects exactly the entries it counted. Missing values give no element; JSON
 * paths give their scalars only (strings, numbers, booleans in text form). Elements may repeat
 * (tags need not be unique): the caller counts each distinct element once per entry.
 * Columns and metadata need no subquery per row, which is what most of the cost would be.
 */
export function fieldValuesArraySql(path: string): RawBuilder<string[]> {
  if (isIriKey(path)) {
    return sql`ARRAY(SELECT j.item #>> '{}' FROM (${namespacedTermValuesSql(path)}) AS t(v)
      CROSS JOIN LATERAL jsonb_path_query(t.v, 'lax $[*]'::jsonpath) AS j(item)
      WHERE jsonb_typeof(j.item) IN ('string', 'number', 'boolean'))`;
  }
  if (Object.hasOwn(EXTENSION_FIELDS, path)) return sql`array_remove(ARRAY[${extensionSql(path)}]::text[], NULL)`;
  const segments = path.split('.');
  const column = columnField(segments[0]);
  if (column) {
    const ref = sql.ref(`e.${column.column}`);
    return column.array ? sql`${ref}` : sql`array_remove(ARRAY[${ref}]::text[], NULL)`;
  }
  const [root, ...rest] = segments;
  if (root === 'metadata' && rest.length === 1) return sql`array_remove(ARRAY[e.entry -> 'metadata' ->> ${rest[0]}]::text[], NULL)`;
  const document = root === 'host' ? sql.ref('e.host') : sql.ref('e.entry');
  const jsonPath = `$${(root === 'host' ? rest : segments).map((s) => `."${s}"`).join('')}[*]`;
  return sql`ARRAY(SELECT j.item #>> '{}' FROM jsonb_path_query(${document}, ${jsonPath}::jsonpath) AS j(item)
      WHERE jsonb_typeof(j.item) IN ('string', 'number', 'boolean'))`;
}

/** Facet fields whose JSON path the facet table holds beside the `metadata.<key>` and `host.<key>` scalars. */
const FACET_TABLE_PATHS = new Set(['type', 'publisher', 'version', 'tags', 'capabilities', 'trustManifest.attestations.type']);

/**
 * True when `entry_facet_values` (db/migrations/0005_facets.sql) holds the values of a field path
 * already checked by checkFieldPath, under that path as its `field`: exactly the values
 * fieldValuesArraySql reads, one row per live entry and distinct value. The other paths (identifier,
 * displayName, description, deeper JSON paths) are read from `entries` by fieldValuesArraySql.
 */
export function isFacetTableField(path: string): boolean {
  if (FACET_TABLE_PATHS.has(path)) return true;
  const segments = path.split('.');
  return segments.length === 2 && (segments[0] === 'metadata' || segments[0] === 'host');
}

/** `$."a"."b" ? (@ == $vals[*])`: lax mode unwraps arrays at every step, so any element matches. */
function toJsonPath(segments: string[]): string {
  return `$${segments.map((s) => `."${s}"`).join('')} ? (@ == $vals[*])`;
}

/** A filter value "42" also matches the JSON number 42, and "true" the boolean. */
function jsonCandidates(values: string[]): Array<string | number | boolean> {
  const out: Array<string | number | boolean> = [];
  for (const v of values) {
    out.push(v);
    if (v === 'true' || v === 'false') out.push(v === 'true');
    else if (v.trim() !== '' && Number.isFinite(Number(v))) out.push(Number(v));
  }
  return out;
}
