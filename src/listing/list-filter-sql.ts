// Compiles a parsed GET /agents filter (list-filter.ts) to a Kysely boolean expression over the
// `entries` table (db/migrations/0001_entries.sql).
//
// Safety invariant: the SQL text produced here is assembled only from constants in this file and
// column references chosen by an exhaustive switch over the field catalogue. Every value, and every
// metadata key, is a bound parameter. The caller adds `deleted_at IS NULL` itself.
//
// Null semantics: comparisons on nullable data (description, version, metadata, host, attestations)
// are wrapped in coalesce(..., false), so a comparison is never NULL, `NOT x` is the exact
// complement of `x`, and `f != v` is the same as `NOT f = v` (entries without the field match it).
import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';
import { assertNever } from '../errors';
import {
  FilterValueError,
  METADATA_KEY_PATTERN,
  parseFilterTimestamp,
  type FilterComparison,
  type FilterExpr,
  type FilterOperator,
} from './list-filter';

export interface CompileListFilterOptions {
  /** Name or alias of the entries table in the query the expression goes into. Default 'entries'. */
  readonly table?: string;
}

/**
 * The filter as a WHERE expression: `db.selectFrom('entries').where(compileListFilter(expr))`.
 * A null filter (empty text) compiles to TRUE.
 */
export function compileListFilter(expr: FilterExpr | null, options: CompileListFilterOptions = {}): Expression<SqlBool> {
  if (expr === null) return sql<SqlBool>`true`;
  return new FilterCompiler(options.table ?? 'entries').compile(expr);
}

type Condition = RawBuilder<SqlBool>;

class FilterCompiler {
  constructor(private readonly table: string) {}

  compile(expr: FilterExpr): Condition {
    switch (expr.kind) {
      case 'and':
        return sql<SqlBool>`(${sql.join(
          expr.operands.map((operand) => this.compile(operand)),
          sql` and `,
        )})`;
      case 'or':
        return sql<SqlBool>`(${sql.join(
          expr.operands.map((operand) => this.compile(operand)),
          sql` or `,
        )})`;
      case 'not':
        return not(this.compile(expr.operand));
      case 'comparison':
        return this.comparison(expr);
      default:
        return assertNever(expr);
    }
  }

  private column(name: string): RawBuilder<unknown> {
    return sql.ref(`${this.table}.${name}`);
  }

  private comparison(c: FilterComparison): Condition {
    if (c.values.length === 0) return sql<SqlBool>`false`;
    const value = c.values[0];
    switch (c.field) {
      case 'identifier':
        return textComparison(this.column('identifier'), c.operator, value);
      case 'displayName':
        return nameComparison(this.column('display_name'), c.operator, value);
      case 'host.displayName':
        return nullSafe(c.operator, (op) => nameComparison(sql`(${this.column('host')}->>'displayName')`, op, value));
      case 'description':
        return nullSafe(c.operator, (op) => textComparison(this.column('description'), op, value));
      case 'version':
        return nullSafe(c.operator, (op) => textComparison(this.column('version'), op, value));
      case 'type':
        return oneOf(this.column('type'), c.operator, c.values);
      case 'publisherId':
        return oneOf(this.column('publisher'), c.operator, c.values);
      case 'tags':
        return arrayContains(this.column('tags'), c.operator, value);
      case 'capabilities':
        return arrayContains(this.column('capabilities'), c.operator, value);
      case 'createdAfter':
        return after(this.column('created_at'), c.operator, value);
      case 'updatedAfter':
        return after(this.column('updated_at'), c.operator, value);
      case 'createdAt':
        return timestampComparison(this.column('created_at'), c.operator, value);
      case 'updatedAt':
        return timestampComparison(this.column('updated_at'), c.operator, value);
      case 'metadata': {
        const key = c.key ?? '';
        if (!METADATA_KEY_PATTERN.test(key)) throw new Error(`invalid metadata key in FilterExpr: ${JSON.stringify(key)}`);
        const metadataValue = sql`(${this.column('entry')}->'metadata'->>${key}::text)`;
        return nullSafe(c.operator, (op) => textComparison(metadataValue, op, value));
      }
      case 'trustManifest.attestations.type': {
        const attestations = sql`(${this.column('entry')}->'trustManifest'->'attestations')`;
        const has = sql<SqlBool>`coalesce(${attestations} @> jsonb_build_array(jsonb_build_object('type', ${value}::text)), false)`;
        return c.operator === '!=' ? not(has) : has;
      }
      case '@verification': {
        // The trust check of the entry's current content (db/migrations/0015); none yet is 'unverified'.
        const state = sql`coalesce((SELECT ev.state FROM entry_verification ev
          WHERE ev.identifier = ${this.column('identifier')} AND ev.content_hash = ${this.column('content_hash')}), 'unverified')`;
        return oneOf(state, c.operator, c.values);
      }
      case '@liveness': {
        // The probe of the entry's current content (db/migrations/0016); none yet is 'unknown'.
        const state = sql`coalesce((SELECT el.state FROM entry_liveness el
          WHERE el.identifier = ${this.column('identifier')} AND el.content_hash = ${this.column('content_hash')}), 'unknown')`;
        return oneOf(state, c.operator, c.values);
      }
      default:
        return assertNever(c.field);
    }
  }
}

/** Compiles `!=` as NOT of the null-safe `=`; other operators get the null-safe wrapper directly. */
function nullSafe(op: FilterOperator, compare: (op: FilterOperator) => Condition): Condition {
  if (op === '!=') return not(sql<SqlBool>`coalesce(${compare('=')}, false)`);
  return sql<SqlBool>`coalesce(${compare(op)}, false)`;
}

function textComparison(column: RawBuilder<unknown>, op: FilterOperator, value: string): Condition {
  if (op === ':') return sql<SqlBool>`(lower(${column}) like lower(${containsPattern(value)}))`;
  return sql<SqlBool>`(${column} ${sqlOperator(op)} ${value})`;
}

/** Case-insensitive; `*` in an `=` value is a wildcard. lower(...) matches the trigram index on lower(display_name). */
function nameComparison(column: RawBuilder<unknown>, op: FilterOperator, value: string): Condition {
  switch (op) {
    case ':':
      return sql<SqlBool>`(lower(${column}) like lower(${containsPattern(value)}))`;
    case '=':
      return value.includes('*')
        ? sql<SqlBool>`(lower(${column}) like lower(${wildcardPattern(value)}))`
        : sql<SqlBool>`(lower(${column}) = lower(${value}))`;
    case '!=':
      return not(nameComparison(column, '=', value));
    default:
      throw new Error(`operator ${op} is not supported for names`);
  }
}

function oneOf(column: RawBuilder<unknown>, op: FilterOperator, values: readonly string[]): Condition {
  const matches =
    values.length === 1
      ? sql<SqlBool>`(${column} = ${values[0]})`
      : sql<SqlBool>`(${column} in (${sql.join(values.map((value) => sql`${value}`))}))`;
  switch (op) {
    case '=':
      return matches;
    case '!=':
      return not(matches);
    default:
      throw new Error(`operator ${op} is not supported for value lists`);
  }
}

/** `@>` rather than `= ANY(...)` so the GIN indexes on tags and capabilities apply. */
function arrayContains(column: RawBuilder<unknown>, op: FilterOperator, value: string): Condition {
  const contains = sql<SqlBool>`(${column} @> array[${value}::text])`;
  return op === '!=' ? not(contains) : contains;
}

function after(column: RawBuilder<unknown>, op: FilterOperator, value: string): Condition {
  // Appendix A writes `createdAfter > '2026-01-01'`; the bare `createdAfter = '2026-01-01'` means the same.
  return timestampComparison(column, op === '>=' ? '>=' : '>', value);
}

function timestampComparison(column: RawBuilder<unknown>, op: FilterOperator, value: string): Condition {
  const instant = parseFilterTimestamp(value);
  if (instant === null) {
    throw new FilterValueError('INVALID_TIMESTAMP', 'timestamp', value, `Invalid timestamp '${value}'.`, 0, '');
  }
  return sql<SqlBool>`(${column} ${sqlOperator(op)} ${instant}::timestamptz)`;
}

function sqlOperator(op: FilterOperator): RawBuilder<unknown> {
  switch (op) {
    case '=':
      return sql.raw('=');
    case '!=':
      return sql.raw('<>');
    case '<':
      return sql.raw('<');
    case '<=':
      return sql.raw('<=');
    case '>':
      return sql.raw('>');
    case '>=':
      return sql.raw('>=');
    case ':':
      throw new Error("':' has no single SQL operator");
    default:
      return assertNever(op);
  }
}

function not(condition: Condition): Condition {
  return sql<SqlBool>`(not ${condition})`;
}

/** Escapes LIKE metacharacters (backslash is Postgres's default LIKE escape). */
function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (char) => `\\${char}`);
}

function containsPattern(value: string): string {
  return `%${escapeLike(value)}%`;
}

function wildcardPattern(value: string): string {
  return escapeLike(value).replace(/\*/g, '%');
}
