// The filter language of GET /agents (ARD §7.4, Appendix A): parse, validate, print.
// docs/filter-grammar.md is the user-facing description; keep the two in step.
//
// Parsing is done by the peggy parser generated from filter-grammar.peggy; this module checks the
// tree it returns against the field catalogue below (known field, allowed operator, well-formed
// value) and returns a FilterExpr that list-filter-sql.ts compiles. Every rejection is a
// ListFilterError subclass (an InvalidArgumentError, so HTTP 400 INVALID_ARGUMENT) carrying the
// 0-based offset of the offending text; nothing else is thrown for any input string.
import { editDistance } from '../edit-distance';
import { assertNever, InvalidArgumentError } from '../errors';
import * as generatedParser from './filter-parser.generated';

// ---------------------------------------------------------------------------------------------
// AST

export type FilterOperator = '=' | '!=' | '<' | '<=' | '>' | '>=' | ':';

export const FILTER_OPERATORS: readonly FilterOperator[] = ['=', '!=', '<', '<=', '>', '>=', ':'];

export type FilterFieldName =
  | 'identifier'
  | 'displayName'
  | 'description'
  | 'type'
  | 'publisherId'
  | 'version'
  | 'tags'
  | 'capabilities'
  | 'createdAfter'
  | 'updatedAfter'
  | 'createdAt'
  | 'updatedAt'
  | 'metadata'
  | 'host.displayName'
  | 'trustManifest.attestations.type'
  | '@verification'
  | '@liveness';

/** One restriction, `field op value`. */
export interface FilterComparison {
  readonly kind: 'comparison';
  /** Canonical catalogue name (aliases such as `publisher` are resolved). */
  readonly field: FilterFieldName;
  /** The key of `metadata.<key>`; present only when field is 'metadata'. */
  readonly key?: string;
  readonly operator: FilterOperator;
  /**
   * The value after unquoting. Fields whose catalogue entry has `commaMeansOr` (type, publisherId)
   * hold the trimmed comma-separated alternatives; every other field holds exactly one value.
   */
  readonly values: readonly string[];
}

export interface FilterAnd {
  readonly kind: 'and';
  /** Two or more operands, in source order. A parenthesised AND inside an AND stays nested. */
  readonly operands: readonly FilterExpr[];
}

export interface FilterOr {
  readonly kind: 'or';
  readonly operands: readonly FilterExpr[];
}

export interface FilterNot {
  readonly kind: 'not';
  readonly operand: FilterExpr;
}

export type FilterExpr = FilterComparison | FilterAnd | FilterOr | FilterNot;

// ---------------------------------------------------------------------------------------------
// Field catalogue: the only field names a filter can name. list-filter-sql.ts maps each to SQL.

/** How a field's values are checked. */
export type FilterValueKind = 'text' | 'mediaType' | 'timestamp' | 'verificationState' | 'livenessState';

export interface FilterFieldSpec {
  readonly name: FilterFieldName;
  /** Other accepted spellings, resolved to `name`. */
  readonly aliases: readonly string[];
  readonly operators: readonly FilterOperator[];
  readonly valueKind: FilterValueKind;
  /** `type = 'a,b'` means type a OR type b (ARD Appendix A). */
  readonly commaMeansOr: boolean;
  /** Written as `metadata.<key>`. */
  readonly keyed: boolean;
  readonly summary: string;
}

const ORDERED: readonly FilterOperator[] = ['=', '!=', '<', '<=', '>', '>='];

export const LIST_FILTER_FIELDS: readonly FilterFieldSpec[] = [
  field('identifier', ORDERED.concat(':'), 'text', 'Entry URN; ":" is a case-insensitive substring match.'),
  field('displayName', ['=', '!=', ':'], 'text', 'Case-insensitive; "=" allows * wildcards, ":" is substring.', { aliases: ['name'] }),
  field('description', [':'], 'text', 'Case-insensitive substring match.'),
  field('type', ['=', '!='], 'mediaType', 'Media type; comma-separated values are ORed.', { commaMeansOr: true }),
  field('publisherId', ['=', '!='], 'text', 'Publisher domain of the URN; comma-separated values are ORed.', {
    aliases: ['publisher'],
    commaMeansOr: true,
  }),
  field('version', ['=', '!='], 'text', 'Exact version string.'),
  field('tags', [':', '=', '!='], 'text', '":" and "=" mean the array contains the value; "!=" that it does not.'),
  field('capabilities', [':', '=', '!='], 'text', 'Like tags.'),
  field('createdAfter', ['=', '>', '>='], 'timestamp', 'First indexed after the instant; "=" and ">" both mean after.'),
  field('updatedAfter', ['=', '>', '>='], 'timestamp', 'Last changed after the instant; "=" and ">" both mean after.'),
  field('createdAt', ORDERED, 'timestamp', 'When first indexed here.'),
  field('updatedAt', ORDERED, 'timestamp', 'entry.updatedAt, else the last content change.'),
  field('metadata', ORDERED.concat(':'), 'text', 'metadata.<key>: the entry metadata value as text.', { keyed: true }),
  field('host.displayName', ['=', '!=', ':'], 'text', 'Like displayName, on the catalog host.'),
  field('trustManifest.attestations.type', [':', '=', '!='], 'text', 'The entry has (or lacks) an attestation of this type.'),
  field(
    '@verification',
    ['=', '!='],
    'verificationState',
    "Registry extension: the trust check's state (verified, unverified, failed); comma-separated values are ORed.",
    {
      commaMeansOr: true,
    },
  ),
  field(
    '@liveness',
    ['=', '!='],
    'livenessState',
    'Registry extension: whether what the entry lists answers (live, unreachable, dead, no-remote-endpoint, unknown); comma-separated values are ORed.',
    { commaMeansOr: true },
  ),
];

/**
 * The values of the registry extensions' states (src/trust/verification-outcome.ts,
 * src/liveness/liveness-state.ts), with the reason a filter naming another value is rejected with.
 */
const EXTENSION_STATES = {
  verificationState: { values: ['verified', 'unverified', 'failed'], reason: 'INVALID_VERIFICATION_STATE' },
  livenessState: { values: ['live', 'unreachable', 'dead', 'no-remote-endpoint', 'unknown'], reason: 'INVALID_LIVENESS_STATE' },
} as const;

function field(
  name: FilterFieldName,
  operators: readonly FilterOperator[],
  valueKind: FilterValueKind,
  summary: string,
  extra: { aliases?: string[]; commaMeansOr?: boolean; keyed?: boolean } = {},
): FilterFieldSpec {
  return {
    name,
    aliases: extra.aliases ?? [],
    operators,
    valueKind,
    commaMeansOr: extra.commaMeansOr ?? false,
    keyed: extra.keyed ?? false,
    summary,
  };
}

const FIELD_BY_SPELLING: ReadonlyMap<string, FilterFieldSpec> = new Map(
  LIST_FILTER_FIELDS.flatMap((spec) => [spec.name, ...spec.aliases].map((spelling) => [spelling, spec] as const)),
);

export function filterFieldSpec(name: FilterFieldName): FilterFieldSpec {
  const spec = FIELD_BY_SPELLING.get(name);
  if (spec === undefined || spec.name !== name) throw new Error(`no catalogue entry for ${name}`);
  return spec;
}

/** Short names people write for `type`, and the media type each stands for. */
export const MEDIA_TYPE_ALIASES: Readonly<Record<string, string>> = {
  mcp: 'application/mcp-server-card+json',
  'mcp-server': 'application/mcp-server-card+json',
  a2a: 'application/a2a-agent-card+json',
  'a2a-agent': 'application/a2a-agent-card+json',
  skill: 'application/ai-skill',
  'ai-skill': 'application/ai-skill',
  registry: 'application/ai-registry+json',
  'ai-registry': 'application/ai-registry+json',
  catalog: 'application/ai-catalog+json',
  'ai-catalog': 'application/ai-catalog+json',
};

/** A metadata key: dot-separated segments of letters, digits, "_" and "-" (a flat key, not a path). */
export const METADATA_KEY_PATTERN = /^[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*$/;
const METADATA_KEY_MAX_LENGTH = 128;

export const LIST_FILTER_LIMITS = {
  /** UTF-16 code units, as JavaScript counts string length. */
  maxLength: 2000,
  /** Enclosing parentheses plus NOT operators above any comparison. */
  maxDepth: 32,
  /** Comparisons in the whole filter. */
  maxTerms: 100,
} as const;

// ---------------------------------------------------------------------------------------------
// Errors

export type ListFilterErrorReason =
  | 'SYNTAX'
  | 'TOO_LONG'
  | 'TOO_DEEP'
  | 'TOO_MANY_TERMS'
  | 'UNKNOWN_FIELD'
  | 'OPERATOR_NOT_ALLOWED'
  | 'INVALID_METADATA_KEY'
  | 'INVALID_TIMESTAMP'
  | 'INVALID_MEDIA_TYPE'
  | 'INVALID_VERIFICATION_STATE'
  | 'INVALID_LIVENESS_STATE'
  | 'EMPTY_VALUE';

/** Any rejected filter. `position` is a 0-based UTF-16 offset; `line` and `column` are 1-based. */
export abstract class ListFilterError extends InvalidArgumentError {
  abstract readonly reason: ListFilterErrorReason;
  readonly line: number;
  readonly column: number;
  constructor(
    message: string,
    readonly position: number,
    source: string,
    /** Replacement text that would fix the error, when one is known (a field name or a whole term). */
    readonly suggestion?: string,
  ) {
    super(message);
    const { line, column } = lineAndColumn(source, position);
    this.line = line;
    this.column = column;
  }
}

/** The text does not match the grammar. */
export class FilterSyntaxError extends ListFilterError {
  readonly reason = 'SYNTAX' as const;
  constructor(
    message: string,
    position: number,
    source: string,
    /** Human descriptions of what would have been accepted at `position`, e.g. "a value". */
    readonly expected: readonly string[],
    /** The offending text at `position`, or null at the end of the filter. */
    readonly found: string | null,
    suggestion?: string,
  ) {
    super(message, position, source, suggestion);
  }
}

/** A size limit is exceeded. */
export class FilterLimitError extends ListFilterError {
  constructor(
    readonly reason: 'TOO_LONG' | 'TOO_DEEP' | 'TOO_MANY_TERMS',
    readonly limit: number,
    message: string,
    position: number,
    source: string,
  ) {
    super(message, position, source);
  }
}

/** A field name that is unknown, or an operator the field does not support. */
export class FilterFieldError extends ListFilterError {
  constructor(
    readonly reason: 'UNKNOWN_FIELD' | 'OPERATOR_NOT_ALLOWED' | 'INVALID_METADATA_KEY',
    readonly field: string,
    message: string,
    position: number,
    source: string,
    suggestion?: string,
  ) {
    super(message, position, source, suggestion);
  }
}

/** A value the field cannot take. */
export class FilterValueError extends ListFilterError {
  constructor(
    readonly reason: 'INVALID_TIMESTAMP' | 'INVALID_MEDIA_TYPE' | 'INVALID_VERIFICATION_STATE' | 'INVALID_LIVENESS_STATE' | 'EMPTY_VALUE',
    readonly field: string,
    readonly value: string,
    message: string,
    position: number,
    source: string,
    suggestion?: string,
  ) {
    super(message, position, source, suggestion);
  }
}

function lineAndColumn(source: string, position: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(position, source.length);
  for (let i = 0; i < end; i++) {
    if (source.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: position - lineStart + 1 };
}

// ---------------------------------------------------------------------------------------------
// Parsing

interface RawToken {
  readonly text: string;
  readonly start: number;
  readonly end: number;
}

interface RawValue extends RawToken {
  readonly quote: "'" | '"' | null;
}

type RawNode =
  | { readonly type: 'or' | 'and'; readonly operands: readonly RawNode[] }
  | { readonly type: 'not'; readonly start: number; readonly operand: RawNode }
  | { readonly type: 'group'; readonly start: number; readonly expr: RawNode }
  | {
      readonly type: 'comparison';
      readonly start: number;
      readonly end: number;
      readonly field: RawToken;
      readonly op: RawToken;
      readonly value: RawValue;
    };

interface GeneratedParserOptions {
  grammarSource: string;
  maxDepth: number;
  onTooDeep(offset: number): never;
  onBadEscape(offset: number, text: string): never;
  onNul(offset: number): never;
  onUnterminated(offset: number, quote: string): never;
}

interface PeggyExpectation {
  type: 'literal' | 'class' | 'any' | 'end' | 'other';
  text?: string;
  description?: string;
}

const runGeneratedParser = generatedParser.parse as (input: string, options: GeneratedParserOptions) => RawNode | null;
const GeneratedSyntaxError = generatedParser.SyntaxError as unknown as new (...args: never[]) => Error & {
  expected: PeggyExpectation[] | null;
  location: { start: { offset: number } };
};

/**
 * Parses and validates a GET /agents filter. Returns null for an empty or whitespace-only filter,
 * which constrains nothing. Throws a ListFilterError subclass, and nothing else, for any input.
 */
export function parseListFilter(text: string): FilterExpr | null {
  if (text.length > LIST_FILTER_LIMITS.maxLength) {
    throw new FilterLimitError(
      'TOO_LONG',
      LIST_FILTER_LIMITS.maxLength,
      `The filter is ${text.length} characters long; the limit is ${LIST_FILTER_LIMITS.maxLength}.`,
      LIST_FILTER_LIMITS.maxLength,
      text,
    );
  }
  let raw: RawNode | null;
  try {
    raw = runGeneratedParser(text, parserOptions(text));
  } catch (error) {
    if (error instanceof GeneratedSyntaxError) throw syntaxErrorFromPeggy(text, error);
    throw error;
  }
  if (raw === null) return null;
  return new RawTreeConverter(text).convert(raw, 0);
}

function parserOptions(source: string): GeneratedParserOptions {
  return {
    grammarSource: 'filter',
    maxDepth: LIST_FILTER_LIMITS.maxDepth,
    onTooDeep(offset) {
      throw tooDeep(source, offset);
    },
    onBadEscape(offset, escape) {
      const shown = escape.length > 1 ? escape : '\\ at the end of the filter';
      throw new FilterSyntaxError(
        `Invalid escape ${quoteForMessage(shown)} at position ${offset}: inside quotes only \\', \\" and \\\\ are escapes (write \\\\ for a backslash).`,
        offset,
        source,
        ["\\'", '\\"', '\\\\'],
        escape,
      );
    },
    onNul(offset) {
      throw new FilterSyntaxError(
        `The filter contains a NUL character (U+0000) inside a quoted value at position ${offset}; it is not allowed.`,
        offset,
        source,
        [],
        '\u0000',
      );
    },
    onUnterminated(offset, quote) {
      throw new FilterSyntaxError(
        `Unterminated string: the ${quote} at position ${offset} is never closed. Add a closing ${quote}.`,
        offset,
        source,
        [quote],
        null,
      );
    },
  };
}

function tooDeep(source: string, position: number): FilterLimitError {
  return new FilterLimitError(
    'TOO_DEEP',
    LIST_FILTER_LIMITS.maxDepth,
    `The filter nests parentheses and NOT more than ${LIST_FILTER_LIMITS.maxDepth} deep (at position ${position}).`,
    position,
    source,
  );
}

class RawTreeConverter {
  private terms = 0;

  constructor(private readonly source: string) {}

  /** `depth` counts the groups and NOTs enclosing `node`. */
  convert(node: RawNode, depth: number): FilterExpr {
    switch (node.type) {
      case 'or':
      case 'and':
        return { kind: node.type, operands: node.operands.map((operand) => this.convert(operand, depth)) };
      case 'not':
        if (depth + 1 > LIST_FILTER_LIMITS.maxDepth) throw tooDeep(this.source, node.start);
        return { kind: 'not', operand: this.convert(node.operand, depth + 1) };
      case 'group':
        if (depth + 1 > LIST_FILTER_LIMITS.maxDepth) throw tooDeep(this.source, node.start);
        return this.convert(node.expr, depth + 1);
      case 'comparison':
        this.terms++;
        if (this.terms > LIST_FILTER_LIMITS.maxTerms) {
          throw new FilterLimitError(
            'TOO_MANY_TERMS',
            LIST_FILTER_LIMITS.maxTerms,
            `The filter has more than ${LIST_FILTER_LIMITS.maxTerms} comparisons; comparison ${this.terms} starts at position ${node.start}.`,
            node.start,
            this.source,
          );
        }
        return this.comparison(node);
      default:
        return assertNever(node);
    }
  }

  private comparison(node: Extract<RawNode, { type: 'comparison' }>): FilterComparison {
    const { spec, key } = this.resolveField(node.field, node);
    const operator = node.op.text as FilterOperator;
    if (!spec.operators.includes(operator)) throw this.operatorNotAllowed(spec, node);

    let values: string[];
    if (spec.commaMeansOr) {
      values = node.value.text.split(',').map((item) => item.trim());
      if (values.some((item) => item === '')) {
        throw new FilterValueError(
          'EMPTY_VALUE',
          spec.name,
          node.value.text,
          `Empty value in ${quoteForMessage(this.termText(node))} at position ${node.value.start}: separate ${spec.name} values with single commas.`,
          node.value.start,
          this.source,
        );
      }
    } else {
      values = [node.value.text];
    }

    switch (spec.valueKind) {
      case 'text':
        break;
      case 'mediaType':
        this.checkMediaTypes(node, values);
        break;
      case 'timestamp':
        if (parseFilterTimestamp(values[0]) === null) {
          throw new FilterValueError(
            'INVALID_TIMESTAMP',
            spec.name,
            node.value.text,
            `Invalid timestamp ${quoteForMessage(node.value.text)} for ${spec.name} at position ${node.value.start}: expected an ISO 8601 date (2026-01-01) or timestamp (2026-01-01T12:00:00Z).`,
            node.value.start,
            this.source,
          );
        }
        break;
      case 'verificationState':
      case 'livenessState': {
        const states: { values: readonly string[]; reason: (typeof EXTENSION_STATES)[keyof typeof EXTENSION_STATES]['reason'] } =
          EXTENSION_STATES[spec.valueKind];
        const bad = values.find((value) => !states.values.includes(value));
        if (bad !== undefined) {
          throw new FilterValueError(
            states.reason,
            spec.name,
            node.value.text,
            `Invalid value ${quoteForMessage(bad)} for ${spec.name} at position ${node.value.start}: expected ${states.values.join(', ')}.`,
            node.value.start,
            this.source,
          );
        }
        break;
      }
      default:
        assertNever(spec.valueKind);
    }
    return key === undefined
      ? { kind: 'comparison', field: spec.name, operator, values }
      : { kind: 'comparison', field: spec.name, key, operator, values };
  }

  private resolveField(name: RawToken, node: Extract<RawNode, { type: 'comparison' }>): { spec: FilterFieldSpec; key?: string } {
    const known = FIELD_BY_SPELLING.get(name.text);
    if (known !== undefined && !known.keyed) return { spec: known };
    const metadata = filterFieldSpec('metadata');
    if (name.text.startsWith('metadata.')) {
      const key = name.text.slice('metadata.'.length);
      if (key.length > METADATA_KEY_MAX_LENGTH || !METADATA_KEY_PATTERN.test(key)) {
        throw new FilterFieldError(
          'INVALID_METADATA_KEY',
          name.text,
          `Invalid metadata key ${quoteForMessage(key)} at position ${name.start}: keys are at most ${METADATA_KEY_MAX_LENGTH} letters, digits, '_', '-' and '.'.`,
          name.start,
          this.source,
        );
      }
      return { spec: metadata, key };
    }
    if (name.text === 'metadata') {
      throw new FilterFieldError(
        'UNKNOWN_FIELD',
        name.text,
        `Field 'metadata' at position ${name.start} needs a key: write metadata.<key>, e.g. metadata.region = eu.`,
        name.start,
        this.source,
      );
    }
    const suggestion = suggestField(name.text);
    let message = `Unknown field ${quoteForMessage(name.text)} at position ${name.start}.`;
    if (suggestion === undefined) {
      message += ` Known fields: ${knownFieldList()}.`;
    } else if (suggestion.operator === undefined) {
      message += ` Did you mean ${quoteForMessage(suggestion.field)}?`;
    } else {
      const valueText = this.source.slice(node.value.start, node.value.end);
      message += ` Did you mean ${quoteForMessage(`${suggestion.field} ${suggestion.operator} ${valueText}`)}?`;
    }
    throw new FilterFieldError('UNKNOWN_FIELD', name.text, message, name.start, this.source, suggestion?.field);
  }

  private operatorNotAllowed(spec: FilterFieldSpec, node: Extract<RawNode, { type: 'comparison' }>): FilterFieldError {
    const op = node.op.text;
    const allowed = spec.operators.join(' ');
    let suggestion: string | undefined;
    const valueText = this.source.slice(node.value.start, node.value.end);
    if ((spec.name === 'createdAfter' || spec.name === 'updatedAfter') && op !== ':') {
      suggestion = `${spec.name === 'createdAfter' ? 'createdAt' : 'updatedAt'} ${op} ${valueText}`;
    } else if (spec.operators.includes(':') && (op === '=' || op === '!=')) {
      suggestion = `${op === '!=' ? 'NOT ' : ''}${node.field.text}:${valueText}`;
    } else if (op === ':' && spec.operators.includes('=')) {
      suggestion = `${node.field.text} = ${valueText}`;
    }
    let message = `Operator '${op}' is not allowed for field '${spec.name}' in ${quoteForMessage(this.termText(node))} at position ${node.op.start}; '${spec.name}' supports ${allowed}.`;
    if (suggestion !== undefined) message += ` Did you mean ${quoteForMessage(suggestion)}?`;
    return new FilterFieldError('OPERATOR_NOT_ALLOWED', node.field.text, message, node.op.start, this.source, suggestion);
  }

  private checkMediaTypes(node: Extract<RawNode, { type: 'comparison' }>, values: readonly string[]): void {
    if (values.every((value) => value.includes('/'))) return;
    const bad = values.find((value) => !value.includes('/')) as string;
    const replaced = values.map((value) => (value.includes('/') ? value : (mediaTypeFor(value) ?? value)));
    const fixable = replaced.every((value) => value.includes('/'));
    const term = this.termText(node);
    let message = `The filter expression syntax ${quoteForMessage(term)} is invalid: ${quoteForMessage(bad)} at position ${node.value.start} is not a media type.`;
    let suggestion: string | undefined;
    if (fixable) {
      const fixedValue = renderValue(replaced.join(','), node.value.quote);
      suggestion = `${this.source.slice(node.start, node.value.start)}${fixedValue}`;
      message += ` Did you mean ${quoteForMessage(suggestion)}?`;
    } else {
      message += ` Use a media type such as ${Array.from(new Set(Object.values(MEDIA_TYPE_ALIASES))).join(', ')}.`;
    }
    throw new FilterValueError('INVALID_MEDIA_TYPE', 'type', node.value.text, message, node.value.start, this.source, suggestion);
  }

  private termText(node: { start: number; end: number }): string {
    return this.source.slice(node.start, node.end);
  }
}

function mediaTypeFor(alias: string): string | undefined {
  const lower = alias.toLowerCase();
  if (Object.hasOwn(MEDIA_TYPE_ALIASES, lower)) return MEDIA_TYPE_ALIASES[lower];
  let best: { alias: string; distance: number } | undefined;
  for (const candidate of Object.keys(MEDIA_TYPE_ALIASES)) {
    const distance = editDistance(lower, candidate);
    if (distance <= suggestionThreshold(candidate) && (best === undefined || distance < best.distance)) {
      best = { alias: candidate, distance };
    }
  }
  return best === undefined ? undefined : MEDIA_TYPE_ALIASES[best.alias];
}

// Fields people reach for that have a different spelling here.
const FIELD_HINTS: Readonly<Record<string, { field: string; operator?: string }>> = {
  createdbefore: { field: 'createdAt', operator: '<' },
  updatedbefore: { field: 'updatedAt', operator: '<' },
  mediatype: { field: 'type' },
  tag: { field: 'tags' },
  capability: { field: 'capabilities' },
  attestation: { field: 'trustManifest.attestations.type' },
};

/** The catalogue spelling closest to `name`, when one is close enough to be a likely typo. */
export function suggestField(name: string): { field: string; operator?: string } | undefined {
  const normalized = normalizeFieldName(name);
  if (Object.hasOwn(FIELD_HINTS, normalized)) return FIELD_HINTS[normalized];
  const spellings = Array.from(FIELD_BY_SPELLING.keys()).filter((spelling) => spelling !== 'metadata');
  const exact = spellings.find((spelling) => normalizeFieldName(spelling) === normalized);
  if (exact !== undefined) return { field: exact };
  let best: { field: string; distance: number } | undefined;
  for (const spelling of spellings) {
    const distance = editDistance(name.toLowerCase(), spelling.toLowerCase());
    if (distance <= suggestionThreshold(spelling) && (best === undefined || distance < best.distance)) {
      best = { field: spelling, distance };
    }
  }
  if (best !== undefined) return { field: best.field };
  return undefined;
}

function normalizeFieldName(name: string): string {
  return name.toLowerCase().replace(/[_-]/g, '');
}

function suggestionThreshold(candidate: string): number {
  return Math.max(1, Math.min(3, Math.floor(candidate.length / 3)));
}

function knownFieldList(): string {
  return LIST_FILTER_FIELDS.map((spec) => (spec.keyed ? `${spec.name}.<key>` : spec.name)).join(', ');
}

// ---------------------------------------------------------------------------------------------
// Syntax errors from the generated parser

const EXPECTATION_LABELS: Readonly<Record<string, string>> = {
  'field name': 'a field name',
  operator: 'an operator (=, !=, <, <=, >, >=, :)',
  value: 'a value',
  'end of filter': 'the end of the filter',
  '(': "'('",
  AND: 'AND',
  OR: 'OR',
  NOT: 'NOT',
};

function syntaxErrorFromPeggy(source: string, error: InstanceType<typeof GeneratedSyntaxError>): FilterSyntaxError {
  const position = error.location.start.offset;
  const expected: string[] = [];
  for (const expectation of error.expected ?? []) {
    let label: string | undefined;
    switch (expectation.type) {
      case 'other':
        label =
          expectation.description === 'whitespace'
            ? undefined
            : (EXPECTATION_LABELS[expectation.description ?? ''] ?? expectation.description);
        break;
      case 'literal':
        label = expectation.text === '-' ? undefined : `'${expectation.text ?? ''}'`;
        break;
      case 'end':
        label = EXPECTATION_LABELS['end of filter'];
        break;
      case 'class':
      case 'any':
        label = undefined;
        break;
    }
    if (label !== undefined && !expected.includes(label)) expected.push(label);
  }
  expected.sort((a, b) => expectationRank(a) - expectationRank(b));
  const found = tokenAt(source, position);
  const foundText = found === null ? 'the end of the filter' : quoteForMessage(found);
  const expectedText = expected.length === 0 ? 'something else' : joinAlternatives(expected);
  const where = `at position ${position}${source.includes('\n') ? ` (line ${lineAndColumn(source, position).line}, column ${lineAndColumn(source, position).column})` : ''}`;
  const head =
    source.length <= 120
      ? `The filter expression syntax ${quoteForMessage(source)} is invalid:`
      : 'The filter expression syntax is invalid:';
  const { hint, suggestion } = syntaxHint(source, position, found, expected);
  const message = `${head} expected ${expectedText} ${where} but found ${foundText}.${hint === undefined ? '' : ` ${hint}`}`;
  return new FilterSyntaxError(message, position, source, expected, found, suggestion);
}

const EXPECTATION_ORDER: readonly string[] = [
  EXPECTATION_LABELS['field name'],
  EXPECTATION_LABELS.operator,
  EXPECTATION_LABELS.value,
  EXPECTATION_LABELS['('],
  'NOT',
  'AND',
  'OR',
  "')'",
  EXPECTATION_LABELS['end of filter'],
];

function expectationRank(label: string): number {
  const rank = EXPECTATION_ORDER.indexOf(label);
  return rank === -1 ? EXPECTATION_ORDER.length : rank;
}

function syntaxHint(
  source: string,
  position: number,
  found: string | null,
  expected: readonly string[],
): { hint?: string; suggestion?: string } {
  if (found === '&&' || found === '&') return { hint: 'Use AND to combine terms.', suggestion: 'AND' };
  if (found === '||' || found === '|') return { hint: 'Use OR for alternatives.', suggestion: 'OR' };
  if (found === '!') return { hint: 'Use NOT (or a leading -) to negate a term.', suggestion: 'NOT' };
  if (expected.includes(EXPECTATION_LABELS.value) && found !== null) {
    if (found.startsWith('=') && source.slice(0, position).trimEnd().endsWith('=')) {
      return { hint: "Compare with a single '='.", suggestion: '=' };
    }
    if ((found.startsWith('>') || found.startsWith('<')) && source.slice(0, position).trimEnd().endsWith('=')) {
      return { hint: `Write the operator as '${found[0]}='.`, suggestion: `${found[0]}=` };
    }
  }
  if (expected.includes(EXPECTATION_LABELS.operator)) {
    // `displayName = Weather Bot` reads "Bot" as the next field (implicit AND): quote the value.
    let wordStart = position;
    while (wordStart > 0 && isFieldChar(source[wordStart - 1])) wordStart--;
    let previousEnd = wordStart;
    while (previousEnd > 0 && isWhitespace(source[previousEnd - 1])) previousEnd--;
    let previousStart = previousEnd;
    while (previousStart > 0 && !isWhitespace(source[previousStart - 1]) && !'()=<>!:'.includes(source[previousStart - 1])) previousStart--;
    const previous = source.slice(previousStart, previousEnd);
    const word = source.slice(wordStart, position);
    if (previousEnd < wordStart && previous !== '' && !/^(and|or|not)$/i.test(previous) && !/['"]/.test(previous) && word !== '') {
      const joined = `${previous} ${word}`;
      return { hint: `A value that contains spaces must be quoted: '${joined}'.`, suggestion: `'${joined}'` };
    }
  }
  return {};
}

function isFieldChar(char: string): boolean {
  return /[A-Za-z0-9_.-]/.test(char);
}

function isWhitespace(char: string): boolean {
  return /\s/.test(char);
}

/** The token starting at `position`: a run of non-delimiters, a run of operator characters, or one character. */
function tokenAt(source: string, position: number): string | null {
  if (position >= source.length) return null;
  const first = source[position];
  const operatorChars = '=<>!&|';
  const delimiters = `()'"\\`;
  let end = position + 1;
  if (operatorChars.includes(first)) {
    while (end < source.length && operatorChars.includes(source[end]) && end - position < 3) end++;
  } else if (!delimiters.includes(first) && !isWhitespace(first)) {
    while (end < source.length && end - position < 40) {
      const char = source[end];
      if (isWhitespace(char) || delimiters.includes(char) || operatorChars.includes(char) || char === ':') break;
      end++;
    }
  }
  return source.slice(position, end);
}

function joinAlternatives(items: readonly string[]): string {
  if (items.length === 1) return items[0];
  return `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`;
}

/** Quotes text for an error message, shortening what would drown the message. */
function quoteForMessage(text: string): string {
  const shown = text.length > 80 ? `${text.slice(0, 77)}...` : text;
  // "type = 'mcp'" reads better than 'type = 'mcp''.
  return shown.includes("'") && !shown.includes('"') ? `"${shown}"` : `'${shown}'`;
}

// ---------------------------------------------------------------------------------------------
// Timestamps

const TIMESTAMP_PATTERN = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?([Zz]|[+-]\d{2}(?::?\d{2})?)?)?$/;

/**
 * Parses an ISO 8601 / RFC 3339 date or timestamp and returns it with an explicit UTC offset, ready
 * for `::timestamptz`; null when the text is not one. A date means its midnight UTC, and a time
 * without an offset is UTC, so results never depend on the database session's time zone.
 */
export function parseFilterTimestamp(text: string): string | null {
  const match = TIMESTAMP_PATTERN.exec(text);
  if (match === null) return null;
  const [, yearText, monthText, dayText, hourText = '00', minuteText = '00', secondText = '00', fraction = '', zone = 'Z'] = match;
  const year = Number(yearText);
  const month = Number(monthText);
  const day = Number(dayText);
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  if (Number(hourText) > 23 || Number(minuteText) > 59 || Number(secondText) > 59) return null;
  let offset = '+00:00';
  if (zone !== 'Z' && zone !== 'z') {
    const sign = zone[0];
    const digits = zone.slice(1).replace(':', '');
    const offsetHours = Number(digits.slice(0, 2));
    const offsetMinutes = digits.length > 2 ? Number(digits.slice(2)) : 0;
    if (offsetHours > 14 || offsetMinutes > 59) return null;
    offset = `${sign}${digits.slice(0, 2)}:${String(offsetMinutes).padStart(2, '0')}`;
  }
  return `${yearText}-${monthText}-${dayText}T${hourText}:${minuteText}:${secondText}${fraction}${offset}`;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

// ---------------------------------------------------------------------------------------------
// Printing

/**
 * Prints a filter that parseListFilter reads back as the same FilterExpr ('' for null). Values are
 * written bare when the grammar allows it, otherwise single-quoted with \' and \\ escapes.
 */
export function formatListFilter(expr: FilterExpr | null): string {
  return expr === null ? '' : formatExpr(expr);
}

function formatExpr(expr: FilterExpr): string {
  switch (expr.kind) {
    case 'comparison': {
      const name = expr.field === 'metadata' ? `metadata.${expr.key ?? ''}` : expr.field;
      const value = renderValue(expr.values.join(','), null);
      return expr.operator === ':' ? `${name}:${value}` : `${name} ${expr.operator} ${value}`;
    }
    case 'and':
      // An AND directly inside an AND keeps its parentheses, or it would come back flattened.
      return expr.operands
        .map((operand) => (operand.kind === 'and' || operand.kind === 'or' ? `(${formatExpr(operand)})` : formatExpr(operand)))
        .join(' AND ');
    case 'or':
      return expr.operands.map((operand) => (operand.kind === 'or' ? `(${formatExpr(operand)})` : formatExpr(operand))).join(' OR ');
    case 'not':
      return expr.operand.kind === 'and' || expr.operand.kind === 'or'
        ? `NOT (${formatExpr(expr.operand)})`
        : `NOT ${formatExpr(expr.operand)}`;
    default:
      return assertNever(expr);
  }
}

const BARE_VALUE_PATTERN = /^[\p{L}\p{N}_.:/+@*,#~%&|?$^-]+$/u;

/** Writes a value as the grammar reads it; `quote` null means bare when possible. */
function renderValue(value: string, quote: "'" | '"' | null): string {
  if (quote === null && BARE_VALUE_PATTERN.test(value) && !/^(and|or|not)$/i.test(value)) return value;
  const q = quote ?? "'";
  return `${q}${value.replace(/\\/g, '\\\\').replace(q === "'" ? /'/g : /"/g, `\\${q}`)}${q}`;
}
