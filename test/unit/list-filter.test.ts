import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { editDistance } from '../../src/edit-distance';
import { InvalidArgumentError } from '../../src/errors';
import {
  FilterFieldError,
  FilterLimitError,
  FilterSyntaxError,
  FilterValueError,
  LIST_FILTER_FIELDS,
  LIST_FILTER_LIMITS,
  ListFilterError,
  formatListFilter,
  parseFilterTimestamp,
  parseListFilter,
  suggestField,
  type FilterComparison,
  type FilterExpr,
  type FilterFieldSpec,
} from '../../src/listing/list-filter';
import { GENERATED_PATH, GRAMMAR_PATH, generateFilterParserSource } from '../../scripts/generate-filter-parser';

const MCP = 'application/mcp-server-card+json';
const A2A = 'application/a2a-agent-card+json';

function cmp(field: FilterComparison['field'], operator: FilterComparison['operator'], ...values: string[]): FilterComparison {
  return { kind: 'comparison', field, operator, values };
}
const tag = (value: string): FilterComparison => cmp('tags', ':', value);
const and = (...operands: FilterExpr[]): FilterExpr => ({ kind: 'and', operands });
const or = (...operands: FilterExpr[]): FilterExpr => ({ kind: 'or', operands });
const not = (operand: FilterExpr): FilterExpr => ({ kind: 'not', operand });

/** The error parseListFilter throws for `text`; fails the test when it throws nothing. */
function errorOf(text: string): ListFilterError {
  try {
    parseListFilter(text);
  } catch (error) {
    if (error instanceof ListFilterError) return error;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(text)} to be rejected`);
}

describe('generated parser', () => {
  it('is up to date with filter-grammar.peggy (run npx tsx scripts/generate-filter-parser.ts)', () => {
    const expected = generateFilterParserSource(readFileSync(GRAMMAR_PATH, 'utf8'));
    expect(readFileSync(GENERATED_PATH, 'utf8')).toBe(expected);
  });
});

describe('parseListFilter: the spec examples', () => {
  it('parses the OpenAPI example', () => {
    expect(parseListFilter("type = 'application/mcp-server-card+json' AND createdAfter > '2026-01-01'")).toEqual(
      and(cmp('type', '=', MCP), cmp('createdAfter', '>', '2026-01-01')),
    );
  });

  it('reads comma-separated type and publisherId values as alternatives (Appendix A)', () => {
    expect(parseListFilter(`type = '${MCP},${A2A}'`)).toEqual(cmp('type', '=', MCP, A2A));
    expect(parseListFilter("publisherId = 'acme.com, example.org'")).toEqual(cmp('publisherId', '=', 'acme.com', 'example.org'));
    expect(parseListFilter(`type = ${MCP},${A2A}`)).toEqual(cmp('type', '=', MCP, A2A));
    expect(parseListFilter('type != a/b,c/d')).toEqual(cmp('type', '!=', 'a/b', 'c/d'));
  });

  it('accepts the bare createdAfter = date form', () => {
    expect(parseListFilter("createdAfter = '2026-01-01'")).toEqual(cmp('createdAfter', '=', '2026-01-01'));
    expect(parseListFilter('updatedAfter >= 2026-01-01T10:00:00Z')).toEqual(cmp('updatedAfter', '>=', '2026-01-01T10:00:00Z'));
  });

  it('returns null for an empty or whitespace-only filter', () => {
    expect(parseListFilter('')).toBeNull();
    expect(parseListFilter('   \t\n ')).toBeNull();
    expect(parseListFilter('\u3000\u00a0')).toBeNull();
  });
});

describe('parseListFilter: boolean structure', () => {
  it('binds AND tighter than OR', () => {
    expect(parseListFilter('tags:a OR tags:b AND tags:c')).toEqual(or(tag('a'), and(tag('b'), tag('c'))));
    expect(parseListFilter('tags:a AND tags:b OR tags:c')).toEqual(or(and(tag('a'), tag('b')), tag('c')));
  });

  it('binds NOT tighter than AND', () => {
    expect(parseListFilter('NOT tags:a AND tags:b')).toEqual(and(not(tag('a')), tag('b')));
    expect(parseListFilter('tags:a OR NOT tags:b AND tags:c')).toEqual(or(tag('a'), and(not(tag('b')), tag('c'))));
  });

  it('lets parentheses override precedence and negate groups', () => {
    expect(parseListFilter('(tags:a OR tags:b) AND tags:c')).toEqual(and(or(tag('a'), tag('b')), tag('c')));
    expect(parseListFilter('NOT (tags:a OR tags:b)')).toEqual(not(or(tag('a'), tag('b'))));
    expect(parseListFilter('NOT(tags:a)')).toEqual(not(tag('a')));
    expect(parseListFilter('((tags:a))')).toEqual(tag('a'));
  });

  it('keeps a parenthesised AND inside an AND nested, and chains flat', () => {
    expect(parseListFilter('tags:a AND tags:b AND tags:c')).toEqual(and(tag('a'), tag('b'), tag('c')));
    expect(parseListFilter('tags:a AND (tags:b AND tags:c)')).toEqual(and(tag('a'), and(tag('b'), tag('c'))));
  });

  it('reads keywords case-insensitively', () => {
    expect(parseListFilter('tags:a and tags:b Or not tags:c')).toEqual(or(and(tag('a'), tag('b')), not(tag('c'))));
  });

  it('reads a leading - as NOT, and repeated NOTs as nested', () => {
    expect(parseListFilter('-tags:a')).toEqual(not(tag('a')));
    expect(parseListFilter('-(tags:a OR tags:b)')).toEqual(not(or(tag('a'), tag('b'))));
    expect(parseListFilter('NOT NOT tags:a')).toEqual(not(not(tag('a'))));
    expect(parseListFilter('--tags:a')).toEqual(not(not(tag('a'))));
  });

  it('ANDs terms separated only by whitespace (implicit AND, as AIP-160)', () => {
    expect(parseListFilter('tags:a tags:b')).toEqual(and(tag('a'), tag('b')));
    expect(parseListFilter('tags:a tags:b OR tags:c')).toEqual(or(and(tag('a'), tag('b')), tag('c')));
    expect(parseListFilter('tags:a -tags:b')).toEqual(and(tag('a'), not(tag('b'))));
    expect(parseListFilter('tags:a\n\ttags:b')).toEqual(and(tag('a'), tag('b')));
  });

  it('does not read keywords that are only a prefix of a word', () => {
    expect(parseListFilter('displayName = ORACLE')).toEqual(cmp('displayName', '=', 'ORACLE'));
    expect(parseListFilter('tags:android')).toEqual(tag('android'));
    expect(parseListFilter('tags:NOTE')).toEqual(tag('NOTE'));
  });
});

describe('parseListFilter: values', () => {
  it('unquotes single- and double-quoted strings with \\\' \\" \\\\ escapes', () => {
    expect(parseListFilter("displayName = 'it\\'s'")).toEqual(cmp('displayName', '=', "it's"));
    expect(parseListFilter('displayName = "say \\"hi\\""')).toEqual(cmp('displayName', '=', 'say "hi"'));
    expect(parseListFilter("displayName = 'back\\\\slash'")).toEqual(cmp('displayName', '=', 'back\\slash'));
    expect(parseListFilter('displayName = "it\'s"')).toEqual(cmp('displayName', '=', "it's"));
    expect(parseListFilter('displayName = \'say "hi"\'')).toEqual(cmp('displayName', '=', 'say "hi"'));
    expect(parseListFilter("displayName = ''")).toEqual(cmp('displayName', '=', ''));
  });

  it('keeps spaces, parentheses, operators and keywords inside quotes', () => {
    expect(parseListFilter("displayName = 'Weather Bot (beta) AND = < OR'")).toEqual(
      cmp('displayName', '=', 'Weather Bot (beta) AND = < OR'),
    );
    expect(parseListFilter("tags:'NOT'")).toEqual(tag('NOT'));
  });

  it('accepts Unicode in values and Unicode whitespace between tokens', () => {
    expect(parseListFilter("displayName = 'Café Ωmega 🚀'")).toEqual(cmp('displayName', '=', 'Café Ωmega 🚀'));
    expect(parseListFilter('tags:日本語')).toEqual(tag('日本語'));
    expect(parseListFilter('tags:a\u3000AND\u00a0tags:ü')).toEqual(and(tag('a'), tag('ü')));
  });

  it('accepts media types, URNs, versions and wildcards as bare values', () => {
    expect(parseListFilter(`type = ${MCP}`)).toEqual(cmp('type', '=', MCP));
    expect(parseListFilter('identifier = urn:air:acme.com:agent:x_1')).toEqual(cmp('identifier', '=', 'urn:air:acme.com:agent:x_1'));
    expect(parseListFilter('version = 1.2.3-beta+build.5')).toEqual(cmp('version', '=', '1.2.3-beta+build.5'));
    expect(parseListFilter('displayName = Weather*')).toEqual(cmp('displayName', '=', 'Weather*'));
    expect(parseListFilter('publisher = ops@acme.com')).toEqual(cmp('publisherId', '=', 'ops@acme.com'));
    expect(parseListFilter('metadata.score > -5')).toEqual({ ...cmp('metadata', '>', '-5'), key: 'score' });
  });

  it('allows whitespace around operators, none, or only on one side', () => {
    for (const text of ['tags:a', 'tags : a', 'tags :a', 'tags= a', 'tags =a']) {
      expect(parseListFilter(text)).toEqual(cmp('tags', text.includes(':') ? ':' : '=', 'a'));
    }
  });
});

describe('parseListFilter: fields', () => {
  const cases: Array<[string, FilterExpr]> = [
    ['identifier = urn:air:acme.com:agent:x', cmp('identifier', '=', 'urn:air:acme.com:agent:x')],
    ['identifier:acme', cmp('identifier', ':', 'acme')],
    ['identifier >= urn:air:b', cmp('identifier', '>=', 'urn:air:b')],
    ['displayName = weather', cmp('displayName', '=', 'weather')],
    ['displayName:weath', cmp('displayName', ':', 'weath')],
    ['displayName != x', cmp('displayName', '!=', 'x')],
    ['name = x', cmp('displayName', '=', 'x')],
    ['description:forecast', cmp('description', ':', 'forecast')],
    [`type = ${A2A}`, cmp('type', '=', A2A)],
    ['publisherId = acme.com', cmp('publisherId', '=', 'acme.com')],
    ['publisher != acme.com', cmp('publisherId', '!=', 'acme.com')],
    ['version != 2.0.0', cmp('version', '!=', '2.0.0')],
    ['tags:finance', cmp('tags', ':', 'finance')],
    ['tags = finance', cmp('tags', '=', 'finance')],
    ['tags != finance', cmp('tags', '!=', 'finance')],
    ['capabilities:streaming', cmp('capabilities', ':', 'streaming')],
    ['createdAfter > 2026-01-01', cmp('createdAfter', '>', '2026-01-01')],
    ['updatedAfter = 2026-01-01T00:00:00+02:00', cmp('updatedAfter', '=', '2026-01-01T00:00:00+02:00')],
    ['createdAt < 2026-01-01', cmp('createdAt', '<', '2026-01-01')],
    ['createdAt != 2026-01-01', cmp('createdAt', '!=', '2026-01-01')],
    ['updatedAt <= 2026-06-30T23:59:59.999Z', cmp('updatedAt', '<=', '2026-06-30T23:59:59.999Z')],
    ['metadata.region = eu', { ...cmp('metadata', '=', 'eu'), key: 'region' }],
    ['metadata.a.b-c_d:x', { ...cmp('metadata', ':', 'x'), key: 'a.b-c_d' }],
    ['host.displayName:Acme', cmp('host.displayName', ':', 'Acme')],
    ['trustManifest.attestations.type = SOC2-Type2', cmp('trustManifest.attestations.type', '=', 'SOC2-Type2')],
    ['@verification = verified,failed', cmp('@verification', '=', 'verified', 'failed')],
    ['@liveness != dead,unreachable', cmp('@liveness', '!=', 'dead', 'unreachable')],
  ];
  it.each(cases)('%s', (text, expected) => {
    expect(parseListFilter(text)).toEqual(expected);
  });

  it('has a case for every catalogued field', () => {
    const covered = new Set(cases.map(([, expr]) => (expr as FilterComparison).field));
    expect(LIST_FILTER_FIELDS.map((spec) => spec.name).filter((name) => !covered.has(name))).toEqual([]);
  });
});

describe('parseListFilter: errors', () => {
  it('rejects unknown fields at their position, suggesting the closest known field', () => {
    const error = errorOf("tpye = 'x/y'");
    expect(error).toBeInstanceOf(FilterFieldError);
    expect(error.reason).toBe('UNKNOWN_FIELD');
    expect(error.position).toBe(0);
    expect(error.message).toBe("Unknown field 'tpye' at position 0. Did you mean 'type'?");
    expect(error.suggestion).toBe('type');

    const later = errorOf('tags:a AND dispalyName = x');
    expect([later.position, later.suggestion]).toEqual([11, 'displayName']);
    expect(errorOf('created_at < 2026-01-01').suggestion).toBe('createdAt');
    expect(errorOf('DisplayName = x').suggestion).toBe('displayName');
    expect(errorOf('tag:x').suggestion).toBe('tags');
  });

  it('suggests createdAt < for createdBefore', () => {
    const error = errorOf('createdBefore = 2026-01-01');
    expect(error.message).toBe("Unknown field 'createdBefore' at position 0. Did you mean 'createdAt < 2026-01-01'?");
  });

  it('lists the known fields when nothing is close', () => {
    const error = errorOf('zzzzzz = 1');
    expect(error.suggestion).toBeUndefined();
    expect(error.message).toContain('Known fields: identifier, displayName,');
    expect(error.message).toContain('metadata.<key>');
  });

  it('asks for a key on bare metadata', () => {
    const error = errorOf('tags:a metadata = x');
    expect([error.reason, error.position]).toEqual(['UNKNOWN_FIELD', 7]);
    expect(error.message).toContain('metadata.<key>');
  });

  it('rejects an overlong metadata key', () => {
    const error = errorOf(`metadata.${'k'.repeat(129)} = x`);
    expect([error.constructor, error.reason, error.position]).toEqual([FilterFieldError, 'INVALID_METADATA_KEY', 0]);
  });

  it('rejects operators a field does not support, at the operator', () => {
    const error = errorOf('tags < 5');
    expect(error).toBeInstanceOf(FilterFieldError);
    expect([error.reason, error.position]).toEqual(['OPERATOR_NOT_ALLOWED', 5]);
    expect(error.message).toBe("Operator '<' is not allowed for field 'tags' in 'tags < 5' at position 5; 'tags' supports : = !=.");

    const after = errorOf('createdAfter < 2026-01-01');
    expect(after.position).toBe(13);
    expect(after.suggestion).toBe('createdAt < 2026-01-01');

    const description = errorOf('description = foo');
    expect(description.suggestion).toBe('description:foo');
    expect(errorOf('description != foo').suggestion).toBe('NOT description:foo');
    expect(errorOf('type:a/b').suggestion).toBe('type = a/b');
    expect(errorOf('version > 1').reason).toBe('OPERATOR_NOT_ALLOWED');
    expect(errorOf('displayName < b').reason).toBe('OPERATOR_NOT_ALLOWED');
  });

  it('rejects type values that are not media types, suggesting the media type', () => {
    const error = errorOf('type = MCP');
    expect(error).toBeInstanceOf(FilterValueError);
    expect([error.reason, error.position]).toEqual(['INVALID_MEDIA_TYPE', 7]);
    expect(error.message).toBe(
      "The filter expression syntax 'type = MCP' is invalid: 'MCP' at position 7 is not a media type. Did you mean 'type = application/mcp-server-card+json'?",
    );
    expect(error.suggestion).toBe('type = application/mcp-server-card+json');

    const expectations: Array<[string, string]> = [
      ['type = a2a', `type = ${A2A}`],
      ['type=skill', 'type=application/ai-skill'],
      ['type = Registry', 'type = application/ai-registry+json'],
      ['type = catalog', 'type = application/ai-catalog+json'],
      ['type = mpc', `type = ${MCP}`],
      [`type = 'mcp, ${A2A}'`, `type = '${MCP},${A2A}'`],
      ['type != "a2a"', `type != "${A2A}"`],
    ];
    for (const [text, suggestion] of expectations) expect(errorOf(text).suggestion).toBe(suggestion);
  });

  it('names real media types when the value is no known alias', () => {
    const error = errorOf('tags:x AND type = banana');
    expect([error.reason, error.position, error.suggestion]).toEqual(['INVALID_MEDIA_TYPE', 18, undefined]);
    expect(error.message).toContain('Use a media type such as application/mcp-server-card+json');
  });

  it('rejects empty alternatives in a comma list', () => {
    const error = errorOf("type = 'a/b,,c/d'");
    expect([error.reason, error.position]).toEqual(['EMPTY_VALUE', 7]);
    expect(errorOf('publisherId = acme.com,').reason).toBe('EMPTY_VALUE');
  });

  it.each([
    ['createdAfter > yesterday', 15],
    ['createdAfter > 2026-13-01', 15],
    ['createdAfter > 2026-02-29', 15],
    ['createdAt < 2026-01-01T24:00:00Z', 12],
    ['createdAt < 2026-01-01T10:00:00+15:00', 12],
    ["updatedAt >= ''", 13],
    ['updatedAfter = 0000-01-01', 15],
    ['updatedAfter = 2026-1-1', 15],
  ])('rejects the invalid timestamp in %s at %d', (text, position) => {
    const error = errorOf(text);
    expect(error).toBeInstanceOf(FilterValueError);
    expect([error.reason, error.position]).toEqual(['INVALID_TIMESTAMP', position]);
    expect(error.message).toContain('expected an ISO 8601 date (2026-01-01) or timestamp (2026-01-01T12:00:00Z)');
  });

  it.each<[string, number, string[], string | null]>([
    ['tags:a AND', 10, ['a field name', "'('", 'NOT'], null],
    ['tags', 4, ['an operator (=, !=, <, <=, >, >=, :)'], null],
    ['tags:', 5, ['a value'], null],
    ['tags:a)', 6, ['AND', 'OR', 'the end of the filter'], ')'],
    ['(tags:a', 7, ['AND', 'OR', "')'"], null],
    ['tags:a OR OR tags:b', 10, ['a field name', "'('", 'NOT'], 'OR'],
    ['= x', 0, ['a field name', "'('", 'NOT', 'the end of the filter'], '='],
    ['tags:(a)', 5, ['a value'], '('],
    ['AND tags:a', 0, ['a field name', "'('", 'NOT', 'the end of the filter'], 'AND'],
    ['tags:a"b"', 6, ['AND', 'OR', 'the end of the filter'], '"'],
    ['()', 1, ['a field name', "'('", 'NOT'], ')'],
  ])('rejects %j at position %d', (text, position, expected, found) => {
    const error = errorOf(text);
    expect(error).toBeInstanceOf(FilterSyntaxError);
    const syntax = error as FilterSyntaxError;
    expect(syntax.position).toBe(position);
    expect(syntax.expected).toEqual(expected);
    expect(syntax.found).toBe(found);
    expect(syntax.message).toContain(`The filter expression syntax '${text}' is invalid: expected`);
    expect(syntax.message).toContain(`at position ${position} but found ${found === null ? 'the end of the filter' : `'${found}'`}`);
  });

  it('points at the opening quote of an unterminated string', () => {
    const error = errorOf("tags:a AND displayName = 'Weather");
    expect([error.constructor, error.position]).toEqual([FilterSyntaxError, 25]);
    expect(error.message).toBe("Unterminated string: the ' at position 25 is never closed. Add a closing '.");
  });

  it('rejects unknown escapes and NUL inside quotes', () => {
    const escape = errorOf("displayName = 'a\\x'");
    expect([escape.position, (escape as FilterSyntaxError).found]).toEqual([16, '\\x']);
    expect(escape.message).toContain("Invalid escape '\\x' at position 16");
    expect(errorOf("displayName = 'a\\").position).toBe(16);
    expect(errorOf("displayName = 'a\u0000b'").position).toBe(16);
    expect(errorOf('tags:a\u0000').position).toBe(6);
  });

  it('hints at the usual mistakes', () => {
    expect(errorOf('tags:a && tags:b').suggestion).toBe('AND');
    expect(errorOf('tags:a || tags:b').suggestion).toBe('OR');
    expect(errorOf('tags == a').suggestion).toBe('=');
    expect(errorOf('createdAt => 2026-01-01').suggestion).toBe('>=');
    const spaces = errorOf('displayName = Weather Bot');
    expect(spaces.position).toBe(25);
    expect(spaces.message).toContain("A value that contains spaces must be quoted: 'Weather Bot'.");
    expect(spaces.suggestion).toBe("'Weather Bot'");
  });

  it('reports 1-based line and column with the 0-based position', () => {
    const error = errorOf('tags:a\nAND\n  tpye = x');
    expect([error.position, error.line, error.column]).toEqual([13, 3, 3]);
    const syntax = errorOf('tags:a AND\n(tags:b');
    expect([syntax.position, syntax.line, syntax.column]).toEqual([18, 2, 8]);
    expect(syntax.message).toContain('at position 18 (line 2, column 8)');
  });

  it('rejects with HTTP 400 INVALID_ARGUMENT errors', () => {
    const error = errorOf('tpye = x');
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect([error.status, error.errorCode, error.name]).toEqual([400, 'INVALID_ARGUMENT', 'FilterFieldError']);
  });
});

describe('parseListFilter: limits', () => {
  const nest = (depth: number, inner = 'tags:a'): string => `${'('.repeat(depth)}${inner}${')'.repeat(depth)}`;

  it(`accepts ${LIST_FILTER_LIMITS.maxLength} characters and rejects one more at that position`, () => {
    const padded = (length: number): string => `displayName = '${'x'.repeat(length - 16)}'`;
    expect(parseListFilter(padded(2000))).toEqual(cmp('displayName', '=', 'x'.repeat(1984)));
    const error = errorOf(padded(2001));
    expect(error).toBeInstanceOf(FilterLimitError);
    expect([error.reason, error.position, (error as FilterLimitError).limit]).toEqual(['TOO_LONG', 2000, 2000]);
    expect(error.message).toBe('The filter is 2001 characters long; the limit is 2000.');
  });

  it('accepts 32 nested groups and rejects the 33rd "(" at its position', () => {
    expect(parseListFilter(nest(32))).toEqual(tag('a'));
    const error = errorOf(nest(33));
    expect([error.constructor, error.reason, error.position]).toEqual([FilterLimitError, 'TOO_DEEP', 32]);
    expect(error.message).toBe('The filter nests parentheses and NOT more than 32 deep (at position 32).');
  });

  it('counts NOT towards the depth', () => {
    expect(parseListFilter(`${'NOT '.repeat(32)}tags:a`)).not.toBeNull();
    expect(errorOf(`${'NOT '.repeat(33)}tags:a`).position).toBe(128);
    expect(errorOf(`${'-'.repeat(20)}${nest(13)}`).position).toBe(32);
    expect(parseListFilter(`${'-'.repeat(16)}${nest(16)}`)).not.toBeNull();
  });

  it('fails fast with a limit error, not a stack overflow, on pathological nesting', () => {
    for (const text of ['('.repeat(2000), nest(997), '-'.repeat(1990) + 'tags:a', 'NOT '.repeat(495) + 'tags:a']) {
      const started = Date.now();
      const error = errorOf(text);
      expect([error.reason, error.position]).toEqual(['TOO_DEEP', text.startsWith('N') ? 128 : 32]);
      expect(Date.now() - started).toBeLessThan(500);
    }
  });

  it('accepts 100 comparisons and rejects the 101st at its position', () => {
    const terms = (count: number): string => Array.from({ length: count }, (_, i) => `tags:t${i}`).join(' OR ');
    const accepted = parseListFilter(terms(100));
    expect(accepted?.kind === 'or' && accepted.operands.length).toBe(100);
    const text = terms(101);
    const error = errorOf(text);
    expect([error.constructor, error.reason, error.position]).toEqual([FilterLimitError, 'TOO_MANY_TERMS', text.lastIndexOf('tags:t100')]);
  });
});

describe('parseFilterTimestamp', () => {
  it.each([
    ['2026-01-01', '2026-01-01T00:00:00+00:00'],
    ['2024-02-29', '2024-02-29T00:00:00+00:00'],
    ['2026-01-01T10:20', '2026-01-01T10:20:00+00:00'],
    ['2026-01-01T10:20:30Z', '2026-01-01T10:20:30+00:00'],
    ['2026-01-01 10:20:30.123456-05:30', '2026-01-01T10:20:30.123456-05:30'],
    ['2026-01-01T10:20:30+0200', '2026-01-01T10:20:30+02:00'],
    ['2026-01-01T10:20:30+02', '2026-01-01T10:20:30+02:00'],
  ])('normalises %s to %s', (text, expected) => {
    expect(parseFilterTimestamp(text)).toBe(expected);
  });

  it.each(['2026', '2026-01', '2026-01-01Z', '2026-04-31', '1900-02-29', '2026-01-01T10:60', '2026-01-01T10:00:00+02:60', ' 2026-01-01'])(
    'rejects %j',
    (text) => {
      expect(parseFilterTimestamp(text)).toBeNull();
    },
  );
});

describe('field suggestions', () => {
  it('measures transpositions as one edit', () => {
    expect(editDistance('tpye', 'type')).toBe(1);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
  });

  it('suggests nothing for unrelated names', () => {
    expect(suggestField('colour')).toBeUndefined();
    expect(suggestField('updatedAfer')).toEqual({ field: 'updatedAfter' });
    expect(suggestField('publisher_id')).toEqual({ field: 'publisherId' });
  });
});

describe('formatListFilter', () => {
  it('prints canonical field names, bare values where possible and minimal parentheses', () => {
    const parsed = parseListFilter("publisher = 'acme.com' AND (tags:'a b' OR NOT (type = \"x/y\" tags:\"it's\"))");
    expect(formatListFilter(parsed)).toBe("publisherId = acme.com AND (tags:'a b' OR NOT (type = x/y AND tags:'it\\'s'))");
    expect(formatListFilter(null)).toBe('');
    expect(formatListFilter(cmp('tags', ':', 'OR'))).toBe("tags:'OR'");
    expect(formatListFilter(cmp('tags', ':', ''))).toBe("tags:''");
    expect(formatListFilter(cmp('tags', ':', 'a\\b'))).toBe("tags:'a\\\\b'");
    expect(formatListFilter(and(tag('a'), and(tag('b'), tag('c'))))).toBe('tags:a AND (tags:b AND tags:c)');
    expect(formatListFilter(or(or(tag('a'), tag('b')), and(tag('c'), tag('d'))))).toBe('(tags:a OR tags:b) OR tags:c AND tags:d');
    expect(formatListFilter(not(not(tag('a'))))).toBe('NOT NOT tags:a');
  });
});

// ---------------------------------------------------------------------------------------------
// Properties

const TOKENS = [
  'AND',
  'OR',
  'NOT',
  'and',
  'not',
  '-',
  '(',
  ')',
  '((',
  '))',
  '=',
  '!=',
  '<',
  '<=',
  '>',
  '>=',
  ':',
  '==',
  '&&',
  '||',
  "'",
  '"',
  '\\',
  "\\'",
  ',',
  ' ',
  '\t',
  '\n',
  '\u3000',
  'type',
  'tags',
  'displayName',
  'metadata.',
  'metadata.k',
  'createdAfter',
  'createdAt',
  'publisher',
  'trustManifest.attestations.type',
  'host.displayName',
  'tpye',
  'mcp',
  MCP,
  '2026-01-01',
  '2026-13-45',
  '*',
  'x',
  '日本',
  '\u0000',
  '🚀',
  "'a b'",
  '"q\\"x"',
];

function isAcceptedOrListFilterError(text: string): boolean {
  const started = Date.now();
  try {
    const parsed = parseListFilter(text);
    // Whatever parses prints back to a filter with the same meaning.
    expect(parseListFilter(formatListFilter(parsed))).toEqual(parsed);
  } catch (error) {
    if (!(error instanceof ListFilterError)) throw error;
    expect(error.position).toBeGreaterThanOrEqual(0);
    expect(error.position).toBeLessThanOrEqual(text.length);
    expect(error.message.length).toBeGreaterThan(0);
  }
  expect(Date.now() - started).toBeLessThan(1000);
  return true;
}

describe('properties', () => {
  it('throws only ListFilterErrors, promptly, on random strings', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 300 }), isAcceptedOrListFilterError), { numRuns: 1500 });
  });

  it('throws only ListFilterErrors, promptly, on token soup', () => {
    const soup = fc
      .array(fc.constantFrom(...TOKENS), { maxLength: 60 })
      .chain((tokens) => fc.constantFrom(tokens.join(' '), tokens.join('')));
    fc.assert(fc.property(soup, isAcceptedOrListFilterError), { numRuns: 3000 });
  });

  it('throws only ListFilterErrors on long random soup near the limits', () => {
    const soup = fc.array(fc.constantFrom('(', ')', 'NOT ', '-', 'tags:a ', ' OR ', ' AND ', "'", 'x'), { minLength: 200, maxLength: 900 });
    fc.assert(
      fc.property(
        soup.map((tokens) => tokens.join('')),
        isAcceptedOrListFilterError,
      ),
      { numRuns: 200 },
    );
  });

  it('round-trips every valid expression through formatListFilter and parseListFilter', () => {
    fc.assert(
      fc.property(filterExprArbitrary, (expr) => {
        const text = formatListFilter(expr);
        fc.pre(text.length <= LIST_FILTER_LIMITS.maxLength && countTerms(expr) <= LIST_FILTER_LIMITS.maxTerms);
        expect(parseListFilter(text)).toEqual(expr);
      }),
      { numRuns: 1500 },
    );
  });
});

function countTerms(expr: FilterExpr): number {
  switch (expr.kind) {
    case 'comparison':
      return 1;
    case 'not':
      return countTerms(expr.operand);
    case 'and':
    case 'or':
      return expr.operands.reduce((sum, operand) => sum + countTerms(operand), 0);
  }
}

const anyText = fc.string({ unit: 'grapheme', maxLength: 12 }).filter((text) => !text.includes('\u0000'));
const tricky = fc.constantFrom('AND', 'or', 'NOT', "it's", 'say "hi"', 'a\\b', ' padded ', '', '*', 'x,y', '-1', 'a:b', '(x)');
const textValue = fc.oneof(anyText, tricky);
const listItem = textValue.map((text) => text.replace(/,/g, '').trim()).filter((text) => text !== '');
const mediaType = fc.oneof(
  fc.constantFrom(MCP, A2A, 'application/ai-skill', 'text/html'),
  fc
    .tuple(listItem, listItem)
    .map(([a, b]) => `${a}/${b}`.trim())
    .filter((text) => !text.startsWith('/') || text.length > 1),
);
const timestamp = fc.oneof(
  fc
    .date({ min: new Date('0100-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true })
    .map((date) => date.toISOString()),
  fc
    .date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true })
    .map((date) => date.toISOString().slice(0, 10)),
  fc.constantFrom('2026-01-01T10:20:30+05:30', '2026-01-01 10:20', '2026-06-30T23:59:59.123456789-08:00'),
);
const metadataKey = fc
  .array(fc.stringMatching(/^[A-Za-z0-9_-]{1,6}$/), { minLength: 1, maxLength: 3 })
  .map((segments) => segments.join('.'));

function comparisonArbitrary(spec: FilterFieldSpec): fc.Arbitrary<FilterComparison> {
  const operator = fc.constantFrom(...spec.operators);
  let values: fc.Arbitrary<string[]>;
  if (spec.valueKind === 'mediaType') {
    values = fc.array(
      mediaType.filter((text) => text.includes('/') && text === text.trim() && !text.includes(',')),
      { minLength: 1, maxLength: 3 },
    );
  } else if (spec.valueKind === 'verificationState') {
    values = fc.uniqueArray(fc.constantFrom('verified', 'unverified', 'failed'), { minLength: 1, maxLength: 3 });
  } else if (spec.valueKind === 'livenessState') {
    values = fc.uniqueArray(fc.constantFrom('live', 'unreachable', 'dead', 'no-remote-endpoint', 'unknown'), {
      minLength: 1,
      maxLength: 3,
    });
  } else if (spec.commaMeansOr) {
    values = fc.array(listItem, { minLength: 1, maxLength: 3 });
  } else if (spec.valueKind === 'timestamp') {
    values = timestamp.map((value) => [value]);
  } else {
    values = textValue.map((value) => [value]);
  }
  if (spec.keyed) {
    return fc.record({ operator, values, key: metadataKey }).map(({ operator: op, values: vs, key }) => ({
      kind: 'comparison' as const,
      field: spec.name,
      key,
      operator: op,
      values: vs,
    }));
  }
  return fc
    .record({ operator, values })
    .map(({ operator: op, values: vs }) => ({ kind: 'comparison' as const, field: spec.name, operator: op, values: vs }));
}

const filterExprArbitrary: fc.Arbitrary<FilterExpr> = fc.letrec<{ expr: FilterExpr }>((tie) => ({
  expr: fc.oneof(
    { maxDepth: 5, depthIdentifier: 'filter' },
    fc.oneof(...LIST_FILTER_FIELDS.map(comparisonArbitrary)),
    fc.array(tie('expr'), { minLength: 2, maxLength: 4 }).map((operands): FilterExpr => ({ kind: 'and', operands })),
    fc.array(tie('expr'), { minLength: 2, maxLength: 4 }).map((operands): FilterExpr => ({ kind: 'or', operands })),
    tie('expr').map((operand): FilterExpr => ({ kind: 'not', operand })),
  ),
})).expr;
