import fc from 'fast-check';
import pg from 'pg';
import { startTestRegistry, type TestRegistry } from '../helpers/registry';
import { loadCorpusEntries } from '../helpers/corpus';
import { createOpenApiBackend } from '../../src/http/openapi';
import type { CatalogEntry } from '../../src/catalog/catalog-entry';
import { SORTABLE_FIELDS } from '../../src/listing/order-by';

let registry: TestRegistry;
let client: pg.Client;
const api = createOpenApiBackend();
const corpus = loadCorpusEntries().map((c) => c.entry);
const MCP = 'application/mcp-server-card+json';
const A2A = 'application/a2a-agent-card+json';

beforeAll(async () => {
  registry = await startTestRegistry();
  await api.init();
  client = new pg.Client({ connectionString: registry.database.url });
  await client.connect();
});
afterAll(async () => {
  await client.end();
  await registry.close();
});

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const byName = (a: CatalogEntry, b: CatalogEntry) =>
  cmp(a.displayName.toLowerCase(), b.displayName.toLowerCase()) || cmp(a.identifier, b.identifier);

function query(params: Record<string, string | number | undefined>): string {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) qs.set(k, String(v));
  return `/agents?${qs.toString()}`;
}

async function list(params: Record<string, string | number | undefined>, headers?: Record<string, string>) {
  const res = await registry.get(query(params), headers);
  if (res.status === 200) expect(api.validateResponse(res.body, 'listAgents', 200).errors ?? []).toEqual([]);
  return res;
}

async function listAll(params: Record<string, string | number | undefined>): Promise<string[]> {
  const ids: string[] = [];
  let token: string | undefined;
  do {
    const res = await list({ ...params, pageToken: token });
    expect(res.status).toBe(200);
    ids.push(...res.body.items.map((e: CatalogEntry) => e.identifier));
    token = res.body.pageToken;
  } while (token);
  return ids;
}

async function insertEntry(identifier: string, displayName: string, type = MCP): Promise<void> {
  const entry = { identifier, displayName, type, url: 'https://example.com/x' };
  await client.query(
    `INSERT INTO entries (identifier, publisher, type, display_name, entry, content_hash, origin, fetched_at, search_text)
     VALUES ($1, $2, $3, $4, $5, md5($1), 'test', now(), $4)`,
    [identifier, identifier.split(':')[2], type, displayName, JSON.stringify(entry)],
  );
}

describe('GET /agents (ARD §7.4)', () => {
  it('lists full entries by displayName (case-insensitive), then identifier, 20 a page by default, with total', async () => {
    const res = await list({});
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(corpus.length);
    expect(res.body.items).toEqual([...corpus].sort(byName).slice(0, 20));
    expect(typeof res.body.pageToken).toBe('string');
  });

  it('pages walk the whole ordered list with no duplicates or gaps, for each sortable field and direction', async () => {
    const expectations: Array<[string, (a: CatalogEntry, b: CatalogEntry) => number]> = [
      ['identifier DESC', (a, b) => cmp(b.identifier, a.identifier)],
      [
        'type, displayName DESC',
        (a, b) => cmp(a.type, b.type) || -cmp(a.displayName.toLowerCase(), b.displayName.toLowerCase()) || cmp(a.identifier, b.identifier),
      ],
      [
        'publisher DESC, version',
        (a, b) =>
          -cmp(a.identifier.split(':')[2].toLowerCase(), b.identifier.split(':')[2].toLowerCase()) ||
          cmp(a.version ?? '', b.version ?? '') ||
          cmp(a.identifier, b.identifier),
      ],
      ['version desc', (a, b) => -cmp(a.version ?? '', b.version ?? '') || cmp(a.identifier, b.identifier)],
    ];
    for (const [orderBy, compare] of expectations) {
      const ids = await listAll({ orderBy, pageSize: 37 });
      expect({ orderBy, ids }).toEqual({ orderBy, ids: [...corpus].sort(compare).map((e) => e.identifier) });
    }
    for (const orderBy of ['updatedAt DESC', 'createdAt, updatedAt DESC']) {
      const sqlOrder = orderBy === 'updatedAt DESC' ? 'updated_at DESC, identifier' : 'created_at, updated_at DESC, identifier';
      const expected = (await client.query(`SELECT identifier FROM entries WHERE deleted_at IS NULL ORDER BY ${sqlOrder}`)).rows.map(
        (r) => r.identifier,
      );
      expect(await listAll({ orderBy, pageSize: 50 })).toEqual(expected);
    }
  });

  it('keyset pages: entries added between pages cause neither duplicates nor gaps', async () => {
    const params = { orderBy: 'identifier', pageSize: 5, filter: 'publisherId = a2aregistry.org,huggingface.co' };
    const before = (
      await client.query(
        `SELECT identifier FROM entries WHERE deleted_at IS NULL AND publisher IN ('a2aregistry.org', 'huggingface.co') ORDER BY identifier`,
      )
    ).rows.map((r) => r.identifier);
    expect(before.length).toBeGreaterThan(10);
    const first = await list(params);
    expect(first.status).toBe(200);
    const cursor = first.body.items[first.body.items.length - 1].identifier as string;
    // one sorts before the cursor (already passed), one after it (still ahead)
    const early = 'urn:air:a2aregistry.org:0early';
    const late = 'urn:air:huggingface.co:zzz-late';
    expect(cmp(early, cursor)).toBeLessThan(0);
    await insertEntry(early, 'Early');
    await insertEntry(late, 'Late');
    const seen: string[] = first.body.items.map((e: CatalogEntry) => e.identifier);
    let token: string | undefined = first.body.pageToken;
    while (token) {
      const page = await list({ ...params, pageToken: token });
      expect(page.status).toBe(200);
      seen.push(...page.body.items.map((e: CatalogEntry) => e.identifier));
      token = page.body.pageToken;
    }
    expect(seen).toEqual([...before, late]);
    await client.query(`DELETE FROM entries WHERE identifier IN ($1, $2)`, [early, late]);
  });

  it('filter: the spec example and Appendix A fields narrow the list, and total counts the matches (ARD Appendix A)', async () => {
    const a2a = await list({ filter: `type = '${A2A}'`, pageSize: 100 });
    expect(a2a.status).toBe(200);
    const expected = corpus.filter((e) => e.type === A2A);
    expect(a2a.body.total).toBe(expected.length);
    expect(a2a.body.items).toEqual(expected.sort(byName));

    const example = await list({ filter: `type = '${MCP}' AND createdAfter > '2026-01-01'`, pageSize: 1 });
    expect(example.status).toBe(200);
    const created = await client.query(
      `SELECT count(*)::int AS n FROM entries WHERE deleted_at IS NULL AND type = $1 AND created_at > '2026-01-01'`,
      [MCP],
    );
    expect(example.body.total).toBe(created.rows[0].n);

    const both = await list({ filter: `type = '${A2A},application/ai-skill' AND (tags:finance OR displayName = 'a*')`, pageSize: 100 });
    expect(both.status).toBe(200);
    const expectedBoth = corpus.filter(
      (e) =>
        (e.type === A2A || e.type === 'application/ai-skill') &&
        ((e.tags ?? []).includes('finance') || e.displayName.toLowerCase().startsWith('a')),
    );
    expect(both.body.items.map((e: CatalogEntry) => e.identifier).sort()).toEqual(expectedBoth.map((e) => e.identifier).sort());
    expect(both.body.total).toBe(expectedBoth.length);
  });

  it('a filter error is 400 INVALID_ARGUMENT that points at the position and suggests the fix', async () => {
    const res = await list({ filter: 'type = MCP' });
    expect(res.status).toBe(400);
    expect(res.body.errorCode).toBe('INVALID_ARGUMENT');
    expect(res.body.message).toContain(MCP);
    const typo = await list({ filter: 'tpye = application/ai-skill' });
    expect(typo.status).toBe(400);
    expect(typo.body.message).toMatch(/type/);
    const syntax = await list({ filter: "displayName = 'open" });
    expect(syntax.status).toBe(400);
    expect(syntax.body.message).toMatch(/position 14/);
  });

  it('orderBy is validated with 400 naming the field; aliases and directions in any case are accepted', async () => {
    for (const [orderBy, message] of [
      ['colour', /'colour'/],
      ['displayName sideways', /ASC or DESC/],
      ['displayName, displayName DESC', /twice/],
      ['displayname', /Did you mean 'displayName'/],
      ['displayName,', /empty term/],
      ['score DESC', /'score'/],
    ] as Array<[string, RegExp]>) {
      const res = await list({ orderBy });
      expect({ orderBy, status: res.status, errorCode: res.body.errorCode }).toEqual({
        orderBy,
        status: 400,
        errorCode: 'INVALID_ARGUMENT',
      });
      expect(res.body.message).toMatch(message);
    }
    const alias = await list({ orderBy: 'name, created_at desc', pageSize: 5 });
    expect(alias.status).toBe(200);
    expect(alias.body.items).toEqual([...corpus].sort(byName).slice(0, 5));
  });

  it('pageSize defaults to 20, may be 1 to 100, and anything else is 400 (ARD §7.4)', async () => {
    expect((await list({ pageSize: 100 })).body.items).toHaveLength(100);
    expect((await list({ pageSize: 1 })).body.items).toHaveLength(1);
    for (const pageSize of ['101', '0', '-3', 'ten', '2.5']) {
      const res = await list({ pageSize });
      expect({ pageSize, status: res.status, errorCode: res.body.errorCode }).toEqual({
        pageSize,
        status: 400,
        errorCode: 'INVALID_ARGUMENT',
      });
    }
  });

  it('a page token is tied to its filter, orderBy and pageSize, and a tampered one is rejected', async () => {
    const first = await list({ filter: 'tags:database', orderBy: 'type', pageSize: 3 });
    const token: string = first.body.pageToken;
    expect(token).toBeTruthy();
    // the same request written differently is the same listing
    expect((await list({ filter: ' tags : database ', orderBy: 'type ASC, identifier', pageSize: 3, pageToken: token })).status).toBe(200);
    for (const params of [
      { filter: 'tags:search', orderBy: 'type', pageSize: 3 },
      { filter: 'tags:database', orderBy: 'type DESC', pageSize: 3 },
      { filter: 'tags:database', orderBy: 'type', pageSize: 4 },
    ]) {
      const res = await list({ ...params, pageToken: token });
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(/pageToken/);
    }
    const tampered = token.slice(0, 4) + (token[4] === 'A' ? 'B' : 'A') + token.slice(5);
    expect((await list({ filter: 'tags:database', orderBy: 'type', pageSize: 3, pageToken: tampered })).status).toBe(400);
  });

  it('is cacheable: strong ETag and Cache-Control, If-None-Match gives 304 until the listing changes', async () => {
    const params = { filter: `type = '${A2A}'`, pageSize: 5 };
    const first = await list(params);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(first.headers.get('cache-control')).toContain('max-age=');
    const cached = await list(params, { 'if-none-match': etag });
    expect(cached.status).toBe(304);
    expect(cached.headers.get('etag')).toBe(etag);
    await insertEntry('urn:air:example.net:agent:new', 'AAA new agent', A2A);
    const changed = await list(params, { 'if-none-match': etag });
    expect(changed.status).toBe(200);
    expect(changed.body.items[0].identifier).toBe('urn:air:example.net:agent:new');
    expect(changed.headers.get('etag')).not.toBe(etag);
    await client.query(`UPDATE entries SET deleted_at = now() WHERE identifier = 'urn:air:example.net:agent:new'`);
    const tombstoned = await list(params, { 'if-none-match': etag });
    expect(tombstoned.status).toBe(304);
  });

  it('property: random filter strings never give a 500', async () => {
    const vocabulary = [
      'type',
      'displayName',
      'name',
      'publisherId',
      'publisher',
      'tags',
      'capabilities',
      'createdAfter',
      'updatedAfter',
      'createdAt',
      'updatedAt',
      'version',
      'metadata.category',
      'metadata.a.b',
      'host.displayName',
      'trustManifest.attestations.type',
      'identifier',
      'description',
      'colour',
      '=',
      '!=',
      '<',
      '<=',
      '>',
      '>=',
      ':',
      'AND',
      'OR',
      'NOT',
      '-',
      '(',
      ')',
      "'",
      '"',
      '\\',
      ',',
      '*',
      '%',
      '_',
      MCP,
      'mcp',
      "'2026-01-01'",
      '2026-02-30',
      "'a b'",
      '"x\\"y"',
      'urn:air:acme.com:x',
      '日本',
      '\u0000',
      '\n',
    ];
    const tokens = fc.array(fc.constantFrom(...vocabulary), { maxLength: 12 }).map((parts) => parts.join(' '));
    const glued = fc.array(fc.constantFrom(...vocabulary), { maxLength: 8 }).map((parts) => parts.join(''));
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(tokens, glued, fc.string({ maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 20 })),
        async (filter) => {
          const res = await list({ filter, pageSize: 2 });
          expect([200, 400]).toContain(res.status);
          if (res.status === 400) expect(res.body.errorCode).toBe('INVALID_ARGUMENT');
        },
      ),
      { numRuns: 150 },
    );
  });

  it('property: random orderBy values never give a 500', async () => {
    const words = [...SORTABLE_FIELDS, 'name', 'created_at', 'score', 'ASC', 'desc', 'Desc', ',', ' ', ';', "'", '--', 'DROP'];
    const orderBy = fc.oneof(
      fc.array(fc.constantFrom(...words), { maxLength: 8 }).map((w) => w.join(' ')),
      fc.string({ maxLength: 30 }),
    );
    await fc.assert(
      fc.asyncProperty(orderBy, fc.option(fc.integer({ min: -5, max: 120 }), { nil: undefined }), async (order, pageSize) => {
        const res = await list({ orderBy: order, pageSize });
        expect([200, 400]).toContain(res.status);
        if (res.status === 200) expect(res.body.items.length).toBeLessThanOrEqual(pageSize ?? 20);
      }),
      { numRuns: 120 },
    );
  });
});
