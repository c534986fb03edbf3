import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, type CompiledQuery } from 'kysely';
import type { Database } from '../../src/db/schema';
import { parseListFilter, type FilterExpr } from '../../src/listing/list-filter';
import { compileListFilter } from '../../src/listing/list-filter-sql';

const MCP = 'application/mcp-server-card+json';
const A2A = 'application/a2a-agent-card+json';
const SKILL = 'application/ai-skill';

// Compiles without a connection: DummyDriver never executes, the Postgres compiler renders $n placeholders.
const db = new Kysely<Database>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (kysely) => new PostgresIntrospector(kysely),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

function compileWhere(filter: string): CompiledQuery {
  return db
    .selectFrom('entries')
    .selectAll()
    .where(compileListFilter(parseListFilter(filter)))
    .compile();
}

function whereClause(filter: string): { where: string; parameters: readonly unknown[] } {
  const { sql, parameters } = compileWhere(filter);
  const prefix = 'select * from "entries" where ';
  expect(sql.startsWith(prefix)).toBe(true);
  return { where: sql.slice(prefix.length), parameters };
}

describe('compileListFilter: SQL text and parameters', () => {
  it.each<[string, string, unknown[]]>([
    ['', 'true', []],
    [`type = ${MCP}`, '("entries"."type" = $1)', [MCP]],
    [`type = '${MCP},${A2A}'`, '("entries"."type" in ($1, $2))', [MCP, A2A]],
    ['type != a/b,c/d', '(not ("entries"."type" in ($1, $2)))', ['a/b', 'c/d']],
    ['publisher = acme.com', '("entries"."publisher" = $1)', ['acme.com']],
    ['identifier >= urn:air:b', '("entries"."identifier" >= $1)', ['urn:air:b']],
    ['identifier != urn:air:b', '("entries"."identifier" <> $1)', ['urn:air:b']],
    ['identifier:acme', '(lower("entries"."identifier") like lower($1))', ['%acme%']],
    ['displayName = Weather', '(lower("entries"."display_name") = lower($1))', ['Weather']],
    ['displayName = Weath*er*', '(lower("entries"."display_name") like lower($1))', ['Weath%er%']],
    ['displayName != x', '(not (lower("entries"."display_name") = lower($1)))', ['x']],
    ["displayName:'100%_\\\\'", '(lower("entries"."display_name") like lower($1))', ['%100\\%\\_\\\\%']],
    ['description:pdf', 'coalesce((lower("entries"."description") like lower($1)), false)', ['%pdf%']],
    ['version = 1.0', 'coalesce(("entries"."version" = $1), false)', ['1.0']],
    ['version != 1.0', '(not coalesce(("entries"."version" = $1), false))', ['1.0']],
    ['tags:finance', '("entries"."tags" @> array[$1::text])', ['finance']],
    ['tags = finance', '("entries"."tags" @> array[$1::text])', ['finance']],
    ['capabilities != tools', '(not ("entries"."capabilities" @> array[$1::text]))', ['tools']],
    ['createdAfter > 2026-01-01', '("entries"."created_at" > $1::timestamptz)', ['2026-01-01T00:00:00+00:00']],
    ['createdAfter = 2026-01-01', '("entries"."created_at" > $1::timestamptz)', ['2026-01-01T00:00:00+00:00']],
    ['updatedAfter >= 2026-01-01T10:00:00+02:00', '("entries"."updated_at" >= $1::timestamptz)', ['2026-01-01T10:00:00+02:00']],
    ["createdAt <= '2026-01-01 10:00'", '("entries"."created_at" <= $1::timestamptz)', ['2026-01-01T10:00:00+00:00']],
    ['updatedAt != 2026-01-01', '("entries"."updated_at" <> $1::timestamptz)', ['2026-01-01T00:00:00+00:00']],
    ['metadata.region = eu', `coalesce((("entries"."entry"->'metadata'->>$1::text) = $2), false)`, ['region', 'eu']],
    ['metadata.tier:gol', `coalesce((lower(("entries"."entry"->'metadata'->>$1::text)) like lower($2)), false)`, ['tier', '%gol%']],
    ['host.displayName:acme', `coalesce((lower(("entries"."host"->>'displayName')) like lower($1)), false)`, ['%acme%']],
    [
      'trustManifest.attestations.type = SOC2',
      `coalesce(("entries"."entry"->'trustManifest'->'attestations') @> jsonb_build_array(jsonb_build_object('type', $1::text)), false)`,
      ['SOC2'],
    ],
  ])('%s', (filter, where, parameters) => {
    expect(whereClause(filter)).toEqual({ where, parameters });
  });

  it('nests AND, OR and NOT with explicit parentheses', () => {
    expect(whereClause('tags:a OR NOT tags:b AND (tags:c OR tags:d)')).toEqual({
      where:
        '(("entries"."tags" @> array[$1::text]) or ((not ("entries"."tags" @> array[$2::text])) and (("entries"."tags" @> array[$3::text]) or ("entries"."tags" @> array[$4::text]))))',
      parameters: ['a', 'b', 'c', 'd'],
    });
  });

  it('qualifies columns with the table alias the caller passes', () => {
    const { sql } = db
      .selectFrom('entries as e')
      .selectAll()
      .where(compileListFilter(parseListFilter('tags:a'), { table: 'e' }))
      .compile();
    expect(sql).toBe('select * from "entries" as "e" where ("e"."tags" @> array[$1::text])');
  });

  it('binds injection attempts as parameters, never as SQL', () => {
    const attack = "'; DROP TABLE entries; --";
    for (const filter of [
      `displayName = "${attack}"`,
      `tags:"${attack}"`,
      `type = "x/${attack}"`,
      `metadata.k = "${attack}"`,
      `description:"${attack}"`,
      `trustManifest.attestations.type = "${attack}"`,
    ]) {
      const { sql, parameters } = compileWhere(filter);
      expect(sql).not.toContain('DROP');
      expect(sql).not.toContain(';');
      expect(parameters.some((parameter) => String(parameter).includes('DROP TABLE entries'))).toBe(true);
    }
  });

  it('never puts value text in the SQL, for any value', () => {
    const fields = [
      'displayName =',
      'displayName:',
      'identifier =',
      'tags:',
      'version =',
      'metadata.k >',
      'host.displayName:',
      'publisher =',
    ];
    fc.assert(
      fc.property(
        fc.constantFrom(...fields),
        fc.string({ minLength: 1, maxLength: 30 }).filter((text) => !text.includes('\u0000') && !text.includes(',')),
        (field, value) => {
          const marker = `Zq${value}`;
          const quoted = `'${marker.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
          const { sql, parameters } = compileWhere(`${field} ${quoted}`);
          expect(sql).not.toContain('Zq');
          expect(parameters.some((parameter) => String(parameter).includes('Zq'))).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('refuses a hand-built metadata key that the grammar would reject', () => {
    const expr: FilterExpr = { kind: 'comparison', field: 'metadata', key: "x' or 1=1 --", operator: '=', values: ['v'] };
    expect(() => compileListFilter(expr)).toThrow('invalid metadata key');
  });
});

// The same filters run against the real schema on an embedded Postgres (PGlite), so the semantics,
// not only the text, are pinned: case folding, LIKE escaping, NULL handling, arrays, jsonb, time.
describe('compileListFilter: results on Postgres', () => {
  // The slice of PGlite this suite uses (its CJS and ESM typings are distinct classes).
  let pglite: {
    query<T>(query: string, params?: unknown[]): Promise<{ rows: T[] }>;
    exec(query: string): Promise<unknown>;
    close(): Promise<void>;
  };

  beforeAll(async () => {
    // Imported dynamically, as src/db/connect.ts does: the pg_trgm contrib build is ESM-only.
    const { PGlite: PGliteClass } = await import('@electric-sql/pglite');
    const { vector } = await import('@electric-sql/pglite-pgvector');
    const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
    pglite = await PGliteClass.create({ extensions: { vector, pg_trgm } });
    await pglite.exec(readFileSync(join(__dirname, '..', '..', 'db', 'migrations', '0001_entries.sql'), 'utf8'));
    const rows: Array<{
      id: string;
      publisher: string;
      type: string;
      name: string;
      description: string | null;
      version: string | null;
      tags: string[];
      capabilities: string[];
      entry: unknown;
      host: unknown;
      created: string;
      updated: string;
    }> = [
      {
        id: 'urn:air:acme.com:mcp:weather',
        publisher: 'acme.com',
        type: MCP,
        name: 'Weather Forecast',
        description: 'Forecasts for any city',
        version: '1.2.0',
        tags: ['weather', 'forecast'],
        capabilities: ['tools'],
        entry: {
          metadata: { region: 'eu', tier: 'gold', score: 7 },
          trustManifest: {
            identity: 'spiffe://acme.com/w',
            attestations: [{ type: 'SOC2-Type2', uri: 'https://acme.com/soc2', mediaType: 'application/pdf' }],
          },
        },
        host: { displayName: 'Acme Corp' },
        created: '2025-12-01T00:00:00Z',
        updated: '2026-02-01T00:00:00Z',
      },
      {
        id: 'urn:air:acme.com:a2a:travel',
        publisher: 'acme.com',
        type: A2A,
        name: 'Travel Booker',
        description: null,
        version: null,
        tags: ['travel'],
        capabilities: [],
        entry: { metadata: { region: 'us' } },
        host: null,
        created: '2026-01-15T12:00:00Z',
        updated: '2026-01-20T00:00:00Z',
      },
      {
        id: 'urn:air:example.org:skill:pdf',
        publisher: 'example.org',
        type: SKILL,
        name: '100% Café_Tools',
        description: 'Reads PDF files',
        version: '2.0.0',
        tags: ['pdf', 'finance'],
        capabilities: ['read'],
        entry: {},
        host: { displayName: 'Example Org' },
        created: '2026-03-01T00:00:00Z',
        updated: '2026-03-02T00:00:00Z',
      },
      {
        id: 'urn:air:evil.example:mcp:x',
        publisher: 'evil.example',
        type: MCP,
        name: "Robert'); DROP TABLE entries;--",
        description: 'x',
        version: '1.2.0',
        tags: ["'; DROP TABLE entries; --"],
        capabilities: [],
        entry: { metadata: { region: null } },
        host: { displayName: 'Evil' },
        created: '2025-06-01T00:00:00Z',
        updated: '2025-06-01T00:00:00Z',
      },
    ];
    for (const row of rows) {
      await pglite.query(
        `insert into entries (identifier, publisher, type, display_name, description, version, tags, capabilities, entry, host,
           content_hash, origin, fetched_at, created_at, updated_at, search_text)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 'h', 'test', now(), $11, $12, $4)`,
        [
          row.id,
          row.publisher,
          row.type,
          row.name,
          row.description,
          row.version,
          row.tags,
          row.capabilities,
          JSON.stringify(row.entry),
          row.host === null ? null : JSON.stringify(row.host),
          row.created,
          row.updated,
        ],
      );
    }
    // PGlite compiles PostgreSQL (WebAssembly) at start: over a minute when the 2 cores are shared.
  }, 300_000);

  afterAll(async () => {
    await pglite?.close();
  });

  async function matching(filter: string): Promise<string[]> {
    const { sql, parameters } = db
      .selectFrom('entries')
      .select('identifier')
      .where(compileListFilter(parseListFilter(filter)))
      .orderBy('identifier')
      .compile();
    const result = await pglite.query<{ identifier: string }>(sql, [...parameters]);
    return result.rows.map((row) => row.identifier.split(':').pop() as string);
  }

  it.each<[string, string[]]>([
    ['', ['travel', 'weather', 'pdf', 'x']],
    [`type = ${MCP}`, ['weather', 'x']],
    [`type = '${MCP}, ${A2A}'`, ['travel', 'weather', 'x']],
    [`type != ${A2A}`, ['weather', 'pdf', 'x']],
    ['publisher = acme.com', ['travel', 'weather']],
    ['publisherId = acme.com,example.org', ['travel', 'weather', 'pdf']],
    ["displayName = 'weather FORECAST'", ['weather']],
    ['displayName = weather*', ['weather']],
    ['displayName = *book*', ['travel']],
    ["displayName:'100%'", ['pdf']],
    ["displayName:'0% c'", ['pdf']],
    ['displayName:_', ['pdf']],
    ['displayName:%', ['pdf']],
    ['identifier:ACME', ['travel', 'weather']],
    ['description:pdf', ['pdf']],
    ['NOT description:pdf', ['travel', 'weather', 'x']],
    ['version = 1.2.0', ['weather', 'x']],
    ['version != 1.2.0', ['travel', 'pdf']],
    ['tags:finance', ['pdf']],
    ['tags = forecast', ['weather']],
    ['tags != finance', ['travel', 'weather', 'x']],
    ['capabilities:tools', ['weather']],
    ['createdAfter > 2026-01-01', ['travel', 'pdf']],
    ['createdAfter = 2026-01-15T12:00:00Z', ['pdf']],
    ['createdAfter >= 2026-01-15T12:00:00Z', ['travel', 'pdf']],
    ['createdAfter > 2026-01-15T13:00:00+02:00', ['travel', 'pdf']],
    ['updatedAfter = 2026-01-25', ['weather', 'pdf']],
    ['updatedAt < 2026-01-31', ['travel', 'x']],
    ['createdAt = 2026-03-01', ['pdf']],
    ['metadata.region = eu', ['weather']],
    ['metadata.region != eu', ['travel', 'pdf', 'x']],
    ['metadata.tier:GOL', ['weather']],
    ['metadata.score = 7', ['weather']],
    ['host.displayName:acme', ['weather']],
    ['NOT host.displayName:acme', ['travel', 'pdf', 'x']],
    ["host.displayName = 'example org'", ['pdf']],
    ['trustManifest.attestations.type = SOC2-Type2', ['weather']],
    ['trustManifest.attestations.type != SOC2-Type2', ['travel', 'pdf', 'x']],
    [`(type = ${A2A} OR tags:pdf) AND NOT publisher = example.org`, ['travel']],
    ['tags:travel OR tags:pdf AND version = 2.0.0', ['travel', 'pdf']],
    ['displayName = "Robert\'); DROP TABLE entries;--"', ['x']],
    ['tags:"\'; DROP TABLE entries; --"', ['x']],
  ])('%s', async (filter, expected) => {
    expect((await matching(filter)).sort()).toEqual([...expected].sort());
  });

  it('makes NOT the exact complement of every comparison', async () => {
    const all = await matching('');
    for (const filter of [
      'description:pdf',
      'version = 1.2.0',
      'metadata.region = eu',
      'host.displayName:acme',
      'trustManifest.attestations.type:SOC2-Type2',
      'tags:pdf',
    ]) {
      const yes = await matching(filter);
      const no = await matching(`NOT ${filter}`);
      expect([...yes, ...no].sort()).toEqual([...all].sort());
    }
  });

  it('still has its table after the injection attempts', async () => {
    const result = await pglite.query<{ count: number }>('select count(*)::int as count from entries');
    expect(result.rows[0].count).toBe(4);
  });
});
