import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, sql } from 'kysely';
import { InvalidArgumentError } from '../../src/errors';
import { FILTERABLE_FIELDS, filterToSql, normaliseFilter, type QueryFilter } from '../../src/search/query-filter';

const db = new Kysely<Record<string, never>>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (k) => new PostgresIntrospector(k),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

function compile(filter: QueryFilter) {
  return sql`SELECT 1 FROM entries e WHERE ${filterToSql(normaliseFilter(filter))}`.compile(db);
}

function rejection(filter: unknown): string {
  try {
    normaliseFilter(filter as QueryFilter);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidArgumentError);
    return (error as Error).message;
  }
  throw new Error('expected a rejection');
}

describe('normaliseFilter (ARD §7.1)', () => {
  it('sorts keys, wraps a bare scalar into a one-element array and drops repeated values', () => {
    expect(normaliseFilter({ type: 'a', tags: ['x', 'y', 'x'] })).toEqual([
      { path: 'tags', values: ['x', 'y'] },
      { path: 'type', values: ['a'] },
    ]);
    expect(normaliseFilter(undefined)).toEqual([]);
  });

  it('accepts the standard fields, trustManifest.*, host.* and metadata.*', () => {
    const filter = normaliseFilter({
      publisher: 'acme.com',
      capabilities: 'WeatherTool',
      version: '1.0.0',
      'trustManifest.attestations.type': 'SOC2-Type2',
      'host.identifier': 'did:web:acme.com',
      'metadata.category': 'devops',
    });
    expect(filter.map((f) => f.path)).toEqual([
      'capabilities',
      'host.identifier',
      'metadata.category',
      'publisher',
      'trustManifest.attestations.type',
      'version',
    ]);
    expect(FILTERABLE_FIELDS).toEqual(expect.arrayContaining(['type', 'tags', 'publisher', 'metadata.*', 'trustManifest.*', 'host.*']));
  });

  it('rejects an unsupported path, naming it and the supported fields', () => {
    const message = rejection({ colour: 'blue' });
    expect(message).toMatch(/^query.filter key 'colour' is not a supported field path; supported fields: identifier, type/);
  });

  it('rejects paths that are not dot-separated field names', () => {
    expect(rejection({ 'metadata..x': 'a' })).toMatch(/'metadata..x' is not a dot-separated field path/);
    expect(rejection({ "metadata.x'); DROP TABLE entries;--": 'a' })).toMatch(/is not a dot-separated field path/);
  });

  it('rejects nested paths under scalar fields and bare object roots', () => {
    expect(rejection({ 'tags.name': 'a' })).toBe("query.filter key 'tags.name': 'tags' has no nested fields");
    expect(rejection({ 'url.host': 'a' })).toBe("query.filter key 'url.host': 'url' has no nested fields");
    expect(rejection({ trustManifest: 'a' })).toBe(
      "query.filter key 'trustManifest' needs a nested field, for example 'trustManifest.attestations.type'",
    );
    expect(rejection({ metadata: 'a' })).toBe("query.filter key 'metadata' needs a nested field, for example 'metadata.name'");
  });

  it('rejects empty, oversized and non-string values, naming the key', () => {
    expect(rejection({ tags: [] })).toBe("query.filter['tags'] is an empty array; give at least one value");
    expect(rejection({ tags: Array.from({ length: 101 }, (_, i) => `t${i}`) })).toBe(
      "query.filter['tags'] has 101 values; at most 100 are allowed",
    );
    expect(rejection({ tags: [5] })).toBe("query.filter['tags'] values must be strings");
    expect(rejection({ tags: 'x'.repeat(1001) })).toBe("a value of query.filter['tags'] is longer than 1000 characters");
    const many = Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`metadata.k${i}`, 'v']));
    expect(rejection(many)).toBe('query.filter has 33 keys; at most 32 are allowed');
  });
});

describe('filterToSql', () => {
  it('is TRUE without a filter', () => {
    expect(compile({}).sql).toBe('SELECT 1 FROM entries e WHERE TRUE');
  });

  it('compiles columns: array overlap for tags, = ANY for scalars, lower-cased publisher, AND across keys', () => {
    const { sql: text, parameters } = compile({ tags: ['postgres', 'mysql'], publisher: 'Acme.COM' });
    expect(text).toBe('SELECT 1 FROM entries e WHERE ("e"."publisher" = ANY($1::text[]) AND "e"."tags" && $2::text[])');
    expect(parameters).toEqual([['acme.com'], ['postgres', 'mysql']]);
  });

  it('compiles metadata.<key> to a ->> comparison with the key bound as a parameter', () => {
    const { sql: text, parameters } = compile({ 'metadata.stars': '42' });
    expect(text).toBe(`SELECT 1 FROM entries e WHERE ((e.entry -> 'metadata' ->> $1) = ANY($2::text[]))`);
    expect(parameters).toEqual(['stars', ['42']]);
  });

  it('compiles nested paths to jsonb_path_exists with the path and the values (numbers and booleans too) as parameters', () => {
    const { sql: text, parameters } = compile({ 'trustManifest.attestations.type': 'SOC2-Type2', 'host.identifier': ['true', '7'] });
    expect(text).toBe(
      'SELECT 1 FROM entries e WHERE (jsonb_path_exists("e"."host", $1::jsonpath, $2::jsonb) AND jsonb_path_exists("e"."entry", $3::jsonpath, $4::jsonb))',
    );
    expect(parameters).toEqual([
      '$."identifier" ? (@ == $vals[*])',
      JSON.stringify({ vals: ['true', true, '7', 7] }),
      '$."trustManifest"."attestations"."type" ? (@ == $vals[*])',
      JSON.stringify({ vals: ['SOC2-Type2'] }),
    ]);
  });

  it('never puts a value into the SQL text', () => {
    const hostile = "x' OR 1=1; DROP TABLE entries; --";
    const { sql: text, parameters } = compile({ tags: hostile, 'metadata.k': hostile, 'trustManifest.identity': hostile, type: hostile });
    expect(text).not.toContain('DROP');
    expect(text).not.toContain('OR 1=1');
    expect(JSON.stringify(parameters)).toContain('DROP TABLE');
  });
});
