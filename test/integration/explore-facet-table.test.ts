// The facet tables of db/migrations/0005_facets.sql (entry_facet_values, facet_value_counts) stay exact
// through every kind of write, and POST /explore's fast path (those tables) answers exactly what its
// generic path (per-entry arrays over `entries`) answers.
import fc from 'fast-check';
import pg from 'pg';
import { startTestRegistry, type TestRegistry } from '../helpers/registry';
import { loadCorpusEntries, type CorpusEntry } from '../helpers/corpus';
import { exploreRegistry, type ExploreInput } from '../../src/search/explore-service';
import type { NormalisedFilter } from '../../src/search/query-filter';
import { matchText } from '../../src/search/relevance';
import { ingestManifest } from '../../src/ingest/ingest-manifest';

const MCP = 'application/mcp-server-card+json';
const ID = 'urn:air:facets.example.com:agent:probe';

let registry: TestRegistry;
let client: pg.Client;
let corpus: CorpusEntry[];

beforeAll(async () => {
  registry = await startTestRegistry();
  client = new pg.Client({ connectionString: registry.database.url });
  await client.connect();
  corpus = loadCorpusEntries();
});
afterAll(async () => {
  await client.end();
  await registry.close();
});

/** Rows of the two tables that differ from what the definition (ard_facet_values over live entries) gives. */
async function drift(): Promise<{ values: unknown[]; counts: unknown[] }> {
  const values = await client.query(`
    (SELECT 'missing' AS kind, e.identifier, f.field, f.value
       FROM entries e, ard_facet_values(e.type, e.publisher, e.version, e.tags, e.capabilities, e.entry, e.host) f
      WHERE e.deleted_at IS NULL
     EXCEPT SELECT 'missing', e.identifier, v.field, v.value FROM entry_facet_values v JOIN entries e ON e.facet_key = v.entry_key)
    UNION ALL
    (SELECT 'extra', coalesce(e.identifier, v.entry_key::text), v.field, v.value
       FROM entry_facet_values v LEFT JOIN entries e ON e.facet_key = v.entry_key
      WHERE e.identifier IS NULL OR e.deleted_at IS NOT NULL
         OR NOT EXISTS (SELECT 1 FROM ard_facet_values(e.type, e.publisher, e.version, e.tags, e.capabilities, e.entry, e.host) f
                         WHERE f.field = v.field AND f.value = v.value))`);
  const counts = await client.query(`
    SELECT coalesce(c.field, x.field) AS field, coalesce(c.value, x.value) AS value, c.entries, x.n
    FROM (SELECT * FROM facet_value_counts WHERE entries <> 0) c
    FULL JOIN (SELECT field, value, count(*)::int AS n FROM entry_facet_values GROUP BY field, value) x
      ON x.field = c.field AND x.value = c.value
    WHERE c.entries IS DISTINCT FROM x.n`);
  return { values: values.rows, counts: counts.rows };
}

async function probeRows(): Promise<string[]> {
  const { rows } = await client.query(
    `SELECT v.field || '=' || v.value AS row FROM entry_facet_values v JOIN entries e ON e.facet_key = v.entry_key
      WHERE e.identifier = $1 ORDER BY 1`,
    [ID],
  );
  return rows.map((r) => r.row as string);
}

async function tagCount(tag: string): Promise<number | undefined> {
  const res = await registry.post('/explore', { resultType: { facets: [{ field: 'tags', limit: 1000 }] } });
  expect(res.status).toBe(200);
  return res.body.facets.tags.buckets.find((b: { value: string }) => b.value === tag)?.count;
}

describe('facet tables (db/migrations/0005_facets.sql)', () => {
  it('hold exactly the values of the live demo corpus', async () => {
    expect(await drift()).toEqual({ values: [], counts: [] });
    const { rows } = await client.query(`SELECT count(DISTINCT entry_key)::int AS n FROM entry_facet_values WHERE field = 'type'`);
    expect(rows[0].n).toBe(corpus.length);
  });

  it('stay exact through insert, update, tombstone, revival and delete (ARD §7.3)', async () => {
    const manifest = {
      specVersion: '1.0',
      host: { displayName: 'Facet Host' },
      entries: [
        {
          identifier: ID,
          displayName: 'Facet probe',
          type: MCP,
          url: 'https://facets.example.com/probe',
          version: '1.0.0',
          tags: ['zz-probe-a', 'zz-probe-b', 'zz-probe-a'],
          metadata: { colour: 'teal', weight: 3, nothing: null },
        },
      ],
    };
    const report = await ingestManifest({ db: registry.ctx.db, embedder: registry.ctx.embedder }, manifest, { origin: 'test:facets' });
    expect(report.rejected).toEqual([]);
    const inserted = [
      'host.displayName=Facet Host',
      'metadata.colour=teal',
      'metadata.weight=3',
      'publisher=facets.example.com',
      'tags=zz-probe-a',
      'tags=zz-probe-b',
      `type=${MCP}`,
      'version=1.0.0',
    ];
    expect(await probeRows()).toEqual(inserted);
    expect(await tagCount('zz-probe-a')).toBe(1);
    expect(await drift()).toEqual({ values: [], counts: [] });

    // update through ingestion (an upsert): tags changed (one kept, one gone, one new), version removed
    const { version: _dropped, ...changed } = { ...manifest.entries[0], tags: ['zz-probe-b', 'zz-probe-c'] };
    const update = await ingestManifest(
      { db: registry.ctx.db, embedder: registry.ctx.embedder },
      { ...manifest, entries: [changed] },
      { origin: 'test:facets' },
    );
    expect(update.rejected).toEqual([]);
    const updated = inserted
      .filter((r) => r !== 'tags=zz-probe-a' && r !== 'version=1.0.0')
      .concat('tags=zz-probe-c')
      .sort();
    expect(await probeRows()).toEqual(updated);
    expect(await tagCount('zz-probe-a')).toBeUndefined();
    expect(await tagCount('zz-probe-c')).toBe(1);
    expect(await drift()).toEqual({ values: [], counts: [] });

    // an update that changes no facet value writes nothing and changes nothing
    await client.query(`UPDATE entries SET fetched_at = now() WHERE identifier = $1`, [ID]);
    expect(await probeRows()).toEqual(updated);

    // tombstone
    await client.query(`UPDATE entries SET deleted_at = now() WHERE identifier = $1`, [ID]);
    expect(await probeRows()).toEqual([]);
    expect(await tagCount('zz-probe-c')).toBeUndefined();
    expect(await drift()).toEqual({ values: [], counts: [] });

    // revival: the tombstone lifted brings the values back
    await client.query(`UPDATE entries SET deleted_at = NULL WHERE identifier = $1`, [ID]);
    expect(await probeRows()).toEqual(updated);
    expect(await tagCount('zz-probe-c')).toBe(1);
    expect(await drift()).toEqual({ values: [], counts: [] });

    // delete
    await client.query(`DELETE FROM entries WHERE identifier = $1`, [ID]);
    expect(await probeRows()).toEqual([]);
    expect(await tagCount('zz-probe-b')).toBeUndefined();
    expect(await drift()).toEqual({ values: [], counts: [] });
  });

  it('a failed write leaves them as they were (the triggers run in the writer transaction)', async () => {
    const before = await client.query(`SELECT count(*)::int AS n FROM entry_facet_values`);
    await client.query('BEGIN');
    await client.query(`UPDATE entries SET tags = tags || 'zz-rolled-back'::text WHERE deleted_at IS NULL`);
    await client.query('ROLLBACK');
    const after = await client.query(`SELECT count(*)::int AS n FROM entry_facet_values`);
    expect(after.rows[0].n).toBe(before.rows[0].n);
    expect(await tagCount('zz-rolled-back')).toBeUndefined();
    expect(await drift()).toEqual({ values: [], counts: [] });
  });
});

describe('POST /explore fast path = generic path (property)', () => {
  const FAST_FIELDS = [
    'type',
    'publisher',
    'version',
    'tags',
    'capabilities',
    'metadata.category',
    'metadata.stars',
    'host.displayName',
    'trustManifest.attestations.type',
  ];

  it('random filters, facets, limits and minCounts give the same facets either way', async () => {
    const values = (pick: (c: CorpusEntry) => unknown[]) =>
      [
        ...new Set(
          corpus.flatMap((c) =>
            pick(c)
              .filter((v) => v !== undefined && v !== null)
              .map(String),
          ),
        ),
      ].sort();
    const filterValues: Record<string, string[]> = {
      type: values((c) => [c.entry.type]),
      tags: values((c) => c.entry.tags ?? []).slice(0, 40),
      publisher: values((c) => [c.entry.identifier.split(':')[2]]).slice(0, 40),
      capabilities: values((c) => c.entry.capabilities ?? []).slice(0, 40),
      'metadata.category': values((c) => [c.entry.metadata?.category]),
    };
    const filterArb = fc.dictionary(fc.constantFrom(...Object.keys(filterValues)), fc.constant(null), { maxKeys: 1 }).chain((keys) => {
      const entries = Object.keys(keys).map((k) =>
        fc.subarray(filterValues[k], { minLength: 1, maxLength: 3 }).map((v) => [k, v] as const),
      );
      return fc.tuple(...entries).map((pairs) => Object.fromEntries(pairs) as Record<string, string[]>);
    });
    const facetsArb = fc.uniqueArray(
      fc.record({
        field: fc.constantFrom(...FAST_FIELDS, 'identifier', 'data.name'),
        limit: fc.integer({ min: 1, max: 30 }),
        minCount: fc.integer({ min: 1, max: 3 }),
      }),
      { minLength: 1, maxLength: 4, selector: (f) => f.field },
    );
    const textArb = fc.option(fc.constantFrom('kubernetes cluster management', 'send messages to a chat channel', 'database queries'), {
      freq: 4,
    });
    const deps = {
      db: registry.ctx.db,
      matches: (text: string, filter: NormalisedFilter) =>
        matchText({ db: registry.ctx.db, embedder: registry.ctx.embedder }, text, filter),
    };
    let nonEmpty = 0;
    // runs through each source of the fast path: facet_value_counts (no text, no filter), entry_facet_values (text)
    const kinds = { wholeRegistry: 0, text: 0 };
    await fc.assert(
      fc.asyncProperty(filterArb, facetsArb, textArb, async (filter, facets, text) => {
        const input: ExploreInput = { facets, ...(Object.keys(filter).length > 0 ? { filter } : {}), ...(text === null ? {} : { text }) };
        const fast = await exploreRegistry(deps, input);
        const generic = await exploreRegistry({ ...deps, useFacetTable: false }, input);
        expect(fast).toEqual(generic);
        if (Object.values(fast.facets).some((f) => f.buckets.length > 0)) nonEmpty++;
        if (text !== null) kinds.text++;
        else if (input.filter === undefined) kinds.wholeRegistry++;
      }),
      { numRuns: 40, seed: 5005 },
    );
    // the property was not vacuous: most runs counted something
    expect(nonEmpty).toBeGreaterThan(20);
    expect(kinds.wholeRegistry).toBeGreaterThan(3);
    expect(kinds.text).toBeGreaterThan(10);
  });
});
