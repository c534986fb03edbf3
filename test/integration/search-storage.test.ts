import { sql } from 'kysely';
import { vacuumSearchStatistics } from '../../src/db/maintenance';
import { UseLiteEmbedder } from '../../src/embedding/use-lite-embedder';
import { toVectorLiteral } from '../../src/db/vector-literal';
import { withQueryCache } from '../../src/embedding/embedder';
import { HNSW_INDEX_OPTIONS } from '../../src/embedding/model-switch';
import { normaliseFilter, type QueryFilter } from '../../src/search/query-filter';
import { ALEXANDRIA_MEDIA_TYPE } from '../../src/alexandria/mapping';
import {
  lexicalSignal,
  matchText,
  prepareQuery,
  PREFIX_WEIGHT,
  confidentScores,
  toScore,
  urlKeySql,
  PRODUCTION_STAGES,
  type Match,
  type QueryEmbedder,
  type RankingStages,
} from '../../src/search/relevance';
import { urlKey } from '../../src/search/query-text';
import { entriesOfPage } from '../../src/search/search-service';
import { useDemoCorpusDatabase } from '../helpers/demo-database';

// Migration 0007 changed how the ranking reads its data (inline vectors, precomputed BM25 term
// frequencies) and search now runs the lexical retrieval while the query is embedded (matchText).
// None of it may change a single relevance: these tests pin that against independent computations.
const demo = useDemoCorpusDatabase();
const model = new UseLiteEmbedder();
const embedder: QueryEmbedder = withQueryCache(model);

afterAll(async () => {
  await model.close();
});

/** The term frequencies of one entry recomputed from its rank_doc, the way 0003 defined them. */
async function termFrequencies(identifier: string): Promise<{ tfs: Map<string, { name: number; other: number }>; length: number }> {
  const rows = await sql<{ lexeme: string; weights: string[]; rank_length: number }>`
    SELECT u.lexeme, u.weights, e.rank_length FROM entries e, unnest(e.rank_doc) AS u WHERE e.identifier = ${identifier}`.execute(demo.db);
  const value: Record<string, number> = { A: 3, B: 2, C: 1, D: 0.5 };
  const tfs = new Map<string, { name: number; other: number }>();
  for (const r of rows.rows) {
    const name = r.weights.filter((w) => w === 'A').length * value.A;
    const other = r.weights.filter((w) => w !== 'A').reduce((sum, w) => sum + value[w], 0);
    tfs.set(r.lexeme, { name, other });
  }
  return { tfs, length: Number(rows.rows[0]?.rank_length ?? 0) };
}

describe('search storage (migration 0007)', () => {
  it('every entry holds term-frequency arrays aligned with its rank_doc', async () => {
    const mismatches = await sql<{ n: string }>`
      SELECT count(*) AS n FROM entries e
      WHERE e.rank_lexemes IS DISTINCT FROM (SELECT coalesce(array_agg(u.lexeme ORDER BY u.lexeme), '{}') FROM unnest(e.rank_doc) u)
         OR cardinality(e.rank_tf_name) <> cardinality(e.rank_lexemes)
         OR cardinality(e.rank_tf_other) <> cardinality(e.rank_lexemes)`.execute(demo.db);
    expect(Number(mismatches.rows[0].n)).toBe(0);
    const total = await sql<{ n: string }>`SELECT count(*) AS n FROM entries WHERE cardinality(rank_lexemes) > 0`.execute(demo.db);
    expect(Number(total.rows[0].n)).toBeGreaterThan(500);
  });

  it('the arrays follow an entry whose text changes (trigger)', async () => {
    const id = 'urn:air:github.com:PagerDuty:pagerduty-mcp-server';
    await sql`UPDATE entries SET description = 'zebracorn zebracorn escalation' WHERE identifier = ${id}`.execute(demo.db);
    const row = await sql<{ i: number | null; other: number | null }>`
      SELECT array_position(rank_lexemes, 'zebracorn') AS i, rank_tf_other[array_position(rank_lexemes, 'zebracorn')] AS other
      FROM entries WHERE identifier = ${id}`.execute(demo.db);
    expect(row.rows[0].i).not.toBeNull();
    expect(Number(row.rows[0].other)).toBe(2); // twice in the description (weight C = 1)
  });

  it('a word the tool descriptions repeat counts once, and the postings BM25 reads agree (migration 0024)', async () => {
    const id = 'urn:air:github.com:PagerDuty:pagerduty-mcp-server';
    const tools = (mentions: number) =>
      JSON.stringify(Array.from({ length: mentions }, (_, i) => ({ name: `tool_${i}`, description: 'Draw a quokkagram quokkagram.' })));
    const tf = async () => {
      const row = await sql<{ other: number | null; posting: number | null }>`
        SELECT e.rank_tf_other[array_position(e.rank_lexemes, 'quokkagram')] AS other,
               (SELECT p.tf_other FROM lexeme_postings p WHERE p.lexeme = 'quokkagram' AND p.entry_key = e.facet_key) AS posting
        FROM entries e WHERE e.identifier = ${id}`.execute(demo.db);
      return { other: Number(row.rows[0].other), posting: Number(row.rows[0].posting) };
    };
    await sql`UPDATE entries SET description = 'quokkagram escalation', tools = ${tools(1)}::jsonb WHERE identifier = ${id}`.execute(
      demo.db,
    );
    // Once in the description (C = 1) and in one tool's description, twice (D = 0.5, once whatever the count).
    expect(await tf()).toEqual({ other: 1.5, posting: 1.5 });
    // Twelve tools saying it twice each add no more than one did (counted per mention, they added 12).
    await sql`UPDATE entries SET tools = ${tools(12)}::jsonb WHERE identifier = ${id}`.execute(demo.db);
    expect(await tf()).toEqual({ other: 1.5, posting: 1.5 });
    await sql`UPDATE entries SET description = 'escalation' WHERE identifier = ${id}`.execute(demo.db);
    expect(await tf()).toEqual({ other: 0.5, posting: 0.5 });
  });

  it.each([
    ['entry_vectors', '0007'],
    ['tag_vectors', '0012'],
  ])('vectors are stored inline: MAIN storage and nothing in the TOAST table of %s (migration %s)', async (table) => {
    const storage = await sql<{ attstorage: string; toast: string; rows: string }>`
      SELECT a.attstorage, pg_relation_size(c.reltoastrelid) AS toast, (SELECT count(*) FROM ${sql.table(table)}) AS rows
      FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
      WHERE c.relname = ${table} AND a.attname = 'embedding'`.execute(demo.db);
    expect(storage.rows[0].attstorage).toBe('m');
    expect(Number(storage.rows[0].toast)).toBe(0);
    expect(Number(storage.rows[0].rows)).toBeGreaterThan(100);
  });

  it("an entry's own word that it is retired is kept beside it and found from a partial index (migration 0025)", async () => {
    const retired = async () =>
      (await sql<{ identifier: string }>`SELECT identifier FROM entries WHERE retired ORDER BY identifier`.execute(demo.db)).rows.map(
        (r) => r.identifier,
      );
    const before = await retired();
    expect(before).toContain('urn:air:github.com:modelcontextprotocol:servers:SQLite'); // "SQLite (Archived)"
    // The catalog's own words, read as the ranking read them before the column: the same entries.
    const inline = await sql<{ identifier: string }>`
      SELECT identifier FROM entries WHERE display_name ~* '\\m(archived|deprecated)\\M' OR description ~* '^\\W*(archived|deprecated)\\M'
        OR lower(entry #>> '{metadata,archived}') = 'true' OR lower(entry #>> '{metadata,deprecated}') = 'true'
      ORDER BY identifier`.execute(demo.db);
    expect(before).toEqual(inline.rows.map((r) => r.identifier));
    const id = 'urn:air:github.com:PagerDuty:pagerduty-mcp-server';
    const { rows } = await sql<{
      description: string;
      entry: unknown;
    }>`SELECT description, entry FROM entries WHERE identifier = ${id}`.execute(demo.db);
    const cases: Array<[string, ReturnType<typeof sql>, boolean]> = [
      ['the description opens with the word', sql`description = '** Deprecated: use the new server'`, true],
      ['the word later in the description', sql`description = 'Replaces the archived incident server'`, false],
      ['metadata.archived true', sql`entry = jsonb_set(entry, '{metadata,archived}', 'true')`, true],
      ['metadata.deprecated "TRUE"', sql`entry = jsonb_set(entry, '{metadata,deprecated}', '"TRUE"')`, true],
      ['metadata.archived false', sql`entry = jsonb_set(entry, '{metadata,archived}', 'false')`, false],
    ];
    const restore = () =>
      sql`UPDATE entries SET description = ${rows[0].description}, entry = ${JSON.stringify(rows[0].entry)}::jsonb WHERE identifier = ${id}`.execute(
        demo.db,
      );
    try {
      for (const [what, change, expected] of cases) {
        await restore();
        await sql`UPDATE entries SET ${change} WHERE identifier = ${id}`.execute(demo.db);
        expect([what, (await retired()).includes(id)]).toEqual([what, expected]);
      }
    } finally {
      await restore();
    }
    expect(await retired()).toEqual(before);
    const index = await sql<{ indexdef: string }>`SELECT indexdef FROM pg_indexes WHERE indexname = 'entries_retired_idx'`.execute(demo.db);
    expect(index.rows[0]?.indexdef).toMatch(/\(identifier\) WHERE retired/);
  });

  it('the live tags that topic labels compare with are read from their partial index (migration 0012)', async () => {
    const index = await sql<{
      indexdef: string;
    }>`SELECT indexdef FROM pg_indexes WHERE indexname = 'facet_value_counts_live_tags_idx'`.execute(demo.db);
    expect(index.rows[0]?.indexdef).toMatch(/\(value\) WHERE \(\(field = 'tags'::text\) AND \(entries > 0\)\)/);
  });

  it('the retrieval field has its HNSW index, with the measured graph options (migration 0008, HNSW_INDEX_OPTIONS); the description has none (migration 0020)', async () => {
    const rows = await sql<{ relname: string; reloptions: string[] }>`
      SELECT relname, reloptions FROM pg_class WHERE relname IN ('entry_vectors_use_lite_doc_hnsw', 'entry_vectors_use_lite_description_hnsw')
      ORDER BY relname`.execute(demo.db);
    const expected = HNSW_INDEX_OPTIONS.split(',').map((o) => o.replace(/\s+/g, ''));
    expect(rows.rows.map((r) => [r.relname, [...r.reloptions].sort()])).toEqual([
      ['entry_vectors_use_lite_doc_hnsw', [...expected].sort()],
    ]);
  });

  it('the lexical signal computed from the arrays equals lexicalSignal() over rank_doc', async () => {
    const q = await prepareQuery(demo.db, embedder, 'send a message to a slack channel');
    const matches = await matchText({ db: demo.db, embedder }, q.text, normaliseFilter(undefined));
    const checked = matches.filter((m) => m.lexical > 0).slice(0, 15);
    expect(checked.length).toBeGreaterThan(5);
    for (const m of checked) {
      const { tfs, length } = await termFrequencies(m.identifier);
      expect({ id: m.identifier, lexical: Number(m.lexical.toFixed(9)) }).toEqual({
        id: m.identifier,
        lexical: Number(lexicalSignal(q, tfs, length).toFixed(9)),
      });
    }
  });
});

describe('matchText (lexical retrieval while the query is embedded)', () => {
  const cases: Array<[string, QueryFilter | undefined]> = [
    ['send a message to a slack channel', undefined],
    ['kubernets deploymnt helm charts', undefined],
    ['who is on call right now for the payments service', undefined],
    ['postgres database', { tags: 'postgres' }],
    ['memory for agents', { type: 'application/vnd.alexandria.resource+json' }],
    ['xqzvbl frobnicate wug', undefined],
    ['what does urn:air:github.com:PagerDuty:pagerduty-mcp-server do? urn:air:mcp.morningstar.com:mcp:morningstar-mcp-server', undefined],
    ['neo4j graph servers urn:air:github.com:neo4j-contrib', undefined],
    ['is https://github.com/microsoft/playwright-mcp better than github.com/executeautomation/mcp-playwright', undefined],
  ];
  // With the query vector cached (prepareQuery computed it) the HNSW scan starts before the lexical retrieval is
  // done; a slow embedder has the lexical candidates found first and the HNSW scan after them. Both orders must rank
  // alike.
  const slow: QueryEmbedder = {
    ...embedder,
    embedOne: async (t) => {
      await new Promise((r) => setTimeout(r, 150));
      return embedder.embedOne(t);
    },
  };
  it.each(cases)('ranks alike whether the embedding or the lexical retrieval is ready first: %s %j', async (text, filter) => {
    const normalised = normaliseFilter(filter);
    await prepareQuery(demo.db, embedder, text);
    const embeddingFirst = await matchText({ db: demo.db, embedder }, text, normalised);
    const lexicalFirst = await matchText({ db: demo.db, embedder: slow }, text, normalised);
    expect(embeddingFirst.length).toBeGreaterThan(0);
    expect(lexicalFirst.map((m) => [m.identifier, m.relevance.toFixed(12)])).toEqual(
      embeddingFirst.map((m) => [m.identifier, m.relevance.toFixed(12)]),
    );
  });

  it('scores every candidate by its best cosine over doc and description, though only doc retrieves (VECTOR_RETRIEVAL_FIELDS)', async () => {
    const text = 'keep notes and remember facts between conversations';
    const { vector } = await prepareQuery(demo.db, embedder, text);
    const matches = await matchText({ db: demo.db, embedder }, text, normaliseFilter(undefined));
    expect(matches.length).toBeGreaterThan(10);
    const exact = await sql<{ identifier: string; doc: number; description: number | null }>`
      SELECT v.identifier, max(1 - (v.embedding::vector(512) <=> ${toVectorLiteral(vector)}::vector(512))) FILTER (WHERE v.field = 'doc') AS doc,
             max(1 - (v.embedding::vector(512) <=> ${toVectorLiteral(vector)}::vector(512))) FILTER (WHERE v.field = 'description') AS description
      FROM entry_vectors v WHERE v.model = ${model.id} AND v.identifier = ANY(${matches.map((m) => m.identifier)}::text[]) GROUP BY v.identifier`.execute(
      demo.db,
    );
    const best = new Map(
      exact.rows.map((r) => [r.identifier, Math.max(Number(r.doc), r.description === null ? -1 : Number(r.description))]),
    );
    for (const m of matches) expect(m.cosine).toBeCloseTo(best.get(m.identifier) as number, 5);
    // Some entries owe their cosine to the description vector: the scoring field is in use.
    expect(exact.rows.some((r) => r.description !== null && Number(r.description) > Number(r.doc))).toBe(true);
  });

  it('starts the HNSW scan beside the lexical retrieval and scores only the nearest entries it did not find (decision 0045)', async () => {
    const text = 'send a message to a slack channel';
    const expected = await matchText({ db: demo.db, embedder }, text, normaliseFilter(undefined));
    let scanStarted!: () => void;
    const scanning = new Promise<void>((resolve) => (scanStarted = resolve));
    let lexicalFound: string[] = [];
    let scored: readonly string[] = [];
    const stages: RankingStages = {
      ...PRODUCTION_STAGES,
      // The lexical rows are held back until the scan has started: a pipeline that waited for them first never ends.
      lexicalRetrieval: async (...args) => {
        const rows = await PRODUCTION_STAGES.lexicalRetrieval(...args);
        await scanning;
        lexicalFound = rows.map((r) => r.identifier);
        return rows;
      },
      nearestEntries: (...args) => {
        scanStarted();
        return PRODUCTION_STAGES.nearestEntries(...args);
      },
      vectorSignals: (db, q, identifiers) => {
        scored = identifiers;
        return PRODUCTION_STAGES.vectorSignals(db, q, identifiers);
      },
    };
    let timer: NodeJS.Timeout | undefined;
    const waitedForLexical = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error('the HNSW scan waited for the lexical retrieval')), 10_000);
    });
    try {
      const matches = await Promise.race([
        matchText({ db: demo.db, embedder }, text, normaliseFilter(undefined), stages),
        waitedForLexical,
      ]);
      expect(matches.map((m) => [m.identifier, m.relevance.toFixed(12)])).toEqual(
        expected.map((m) => [m.identifier, m.relevance.toFixed(12)]),
      );
    } finally {
      clearTimeout(timer);
    }
    expect(lexicalFound.length).toBeGreaterThan(10);
    expect(scored.length).toBeGreaterThan(0);
    expect(scored.filter((id) => lexicalFound.includes(id))).toEqual([]);
  });

  it('reports the embedding and the SQL time to its observer', async () => {
    const seen: string[] = [];
    const timings = {
      observe: (stage: string, seconds: number) => {
        expect(seconds).toBeGreaterThan(0);
        seen.push(stage);
      },
    };
    await matchText({ db: demo.db, embedder, timings }, 'weather forecast for tomorrow', normaliseFilter(undefined));
    expect(seen.sort()).toEqual(['embedding', 'sql']);
  });
});

describe('entriesOfPage', () => {
  it("reads one page of a ranked list and keeps each entry's rank when one was deleted since the match", async () => {
    const matches = await matchText({ db: demo.db, embedder }, 'kubernetes cluster', normaliseFilter(undefined));
    expect(matches.length).toBeGreaterThan(6);
    const gone = matches[3].identifier;
    await sql`UPDATE entries SET deleted_at = now() WHERE identifier = ${gone}`.execute(demo.db);
    try {
      const page = await entriesOfPage(demo.db, matches, 2, 4);
      expect(page.map((p) => [p.entry.identifier, p.rank, p.score])).toEqual(
        [2, 4, 5].map((i) => [matches[i].identifier, i, matches[i].score]),
      );
    } finally {
      await sql`UPDATE entries SET deleted_at = NULL WHERE identifier = ${gone}`.execute(demo.db);
    }
  });
});

describe('a query naming an entry by its identifier', () => {
  const pagerduty = 'urn:air:github.com:PagerDuty:pagerduty-mcp-server';

  it('ranks the named entry first with relevance 1 (score 100) and its real cosine', async () => {
    const text = `is ${pagerduty} the right one for escalations?`;
    const plain = await matchText({ db: demo.db, embedder }, 'is the right one for escalations?', normaliseFilter(undefined));
    const named = await matchText({ db: demo.db, embedder }, text, normaliseFilter(undefined));
    expect(named[0]).toMatchObject({ identifier: pagerduty, relevance: 1, score: 100, lexical: 1 });
    expect(plain.find((m) => m.identifier === pagerduty)?.relevance ?? 0).toBeLessThan(0.9);
    const { vector } = await prepareQuery(demo.db, embedder, text);
    const exact = await sql<{ c: number }>`
      SELECT max(1 - (v.embedding::vector(512) <=> ${toVectorLiteral(vector)}::vector(512))) AS c
      FROM entry_vectors v WHERE v.model = ${model.id} AND v.identifier = ${pagerduty}`.execute(demo.db);
    expect(named[0].cosine).toBeCloseTo(Number(exact.rows[0].c), 6);
  });

  it('an identifier prefix ending at a segment names every entry under it, at the name-completion weight', async () => {
    const prefix = 'urn:air:github.com:neo4j-contrib';
    const under = await sql<{
      identifier: string;
    }>`SELECT identifier FROM entries WHERE identifier LIKE ${`${prefix}:%`} AND deleted_at IS NULL`.execute(demo.db);
    expect(under.rows.length).toBeGreaterThan(2);
    const named = await matchText({ db: demo.db, embedder }, `servers of ${prefix}`, normaliseFilter(undefined));
    const plain = await matchText({ db: demo.db, embedder }, 'servers of', normaliseFilter(undefined));
    const byId = new Map(named.map((m) => [m.identifier, m]));
    for (const { identifier } of under.rows) expect(byId.get(identifier)?.lexical).toBeGreaterThanOrEqual(PREFIX_WEIGHT);
    expect(
      named
        .slice(0, under.rows.length)
        .map((m) => m.identifier)
        .sort(),
    ).toEqual(under.rows.map((r) => r.identifier).sort());
    expect(Math.max(...under.rows.map((r) => plain.find((m) => m.identifier === r.identifier)?.relevance ?? 0))).toBeLessThan(0.5);
    // Not at a segment boundary: not a name.
    const partial = await matchText({ db: demo.db, embedder }, 'urn:air:github.com:neo4j-con', normaliseFilter(undefined));
    expect(partial.filter((m) => m.lexical >= PREFIX_WEIGHT).map((m) => m.identifier)).toEqual([]);
  });

  it.each([
    'https://github.com/microsoft/playwright-mcp',
    'github.com/microsoft/playwright-mcp/',
    'is HTTPS://GITHUB.COM/microsoft/playwright-mcp.git any good?',
  ])('a web address names the entries whose url it is: %s', async (text) => {
    const named = await sql<{
      identifier: string;
    }>`SELECT identifier FROM entries WHERE entry->>'url' = 'https://github.com/microsoft/playwright-mcp' AND deleted_at IS NULL`.execute(
      demo.db,
    );
    expect(named.rows.length).toBeGreaterThan(0);
    const matches = await matchText({ db: demo.db, embedder }, text, normaliseFilter(undefined));
    expect(matches.slice(0, named.rows.length).map((m) => [m.identifier, m.relevance])).toEqual(
      named.rows.map((r) => [r.identifier, 1]).sort(([a], [b]) => (String(a) < String(b) ? -1 : 1)),
    );
  });

  it('urlKey in SQL is urlKey in TypeScript', async () => {
    const urls = [
      'https://github.com/org/legit',
      'HTTPS://WWW.Example.com/Repo.git/',
      'https://arxiv.org/pdf/2210.03629v3.pdf',
      'https://arxiv.org/abs/2210.03629',
      'https://mcp.stripe.com',
      'http://x.io/a/b/',
      'https://wwwx.example.com/widget',
      'https://example.com/a.github',
    ];
    const rows = await sql<{ u: string; k: string }>`SELECT u, ${urlKeySql(sql`u`)} AS k FROM unnest(${urls}::text[]) AS u`.execute(
      demo.db,
    );
    expect(rows.rows.map((r) => r.k)).toEqual(urls.map(urlKey));
  });

  it.each(['2210.03629', 'the ReAct paper, arXiv:2210.03629v2', 'https://arxiv.org/pdf/2210.03629v3.pdf'])(
    'an arXiv identifier names the paper: %s',
    async (text) => {
      const matches = await matchText({ db: demo.db, embedder }, text, normaliseFilter(undefined));
      expect(matches[0]).toMatchObject({ identifier: 'urn:air:alexandria.ard-registry.dev:paper:2210.03629', relevance: 1 });
    },
  );

  it('names only live entries that pass the filter', async () => {
    const text = pagerduty;
    expect(
      (await matchText({ db: demo.db, embedder }, text, normaliseFilter({ type: 'application/vnd.alexandria.resource+json' }))).map(
        (m) => m.identifier,
      ),
    ).not.toContain(pagerduty);
    await sql`UPDATE entries SET deleted_at = now() WHERE identifier = ${pagerduty}`.execute(demo.db);
    try {
      expect((await matchText({ db: demo.db, embedder }, text, normaliseFilter(undefined))).map((m) => m.identifier)).not.toContain(
        pagerduty,
      );
    } finally {
      await sql`UPDATE entries SET deleted_at = NULL WHERE identifier = ${pagerduty}`.execute(demo.db);
    }
    expect((await matchText({ db: demo.db, embedder }, text, normaliseFilter(undefined)))[0].identifier).toBe(pagerduty);
  });
});

describe('type weights (SEARCH_TYPE_WEIGHTS)', () => {
  const library = { [ALEXANDRIA_MEDIA_TYPE]: 0.9 };
  const weightOf = (m: Match) => (m.type === ALEXANDRIA_MEDIA_TYPE ? 0.9 : 1);

  it.each(['knowledge graph memory', 'remember users across sessions'])(
    'an unfiltered search ranks and scores each entry at relevance x its type weight, same matched set: %s',
    async (text) => {
      const plain = await matchText({ db: demo.db, embedder }, text, normaliseFilter(undefined));
      const weighted = await matchText({ db: demo.db, embedder, typeWeights: library }, text, normaliseFilter(undefined));
      // Precondition: a library record ranks just above a tool that outranks it once weighted.
      const flips = plain
        .slice(1)
        .filter(
          (m, i) => plain[i].type === ALEXANDRIA_MEDIA_TYPE && m.type !== ALEXANDRIA_MEDIA_TYPE && plain[i].relevance * 0.9 < m.relevance,
        );
      expect(flips.length).toBeGreaterThan(0);

      expect(new Set(weighted.map((m) => m.identifier))).toEqual(new Set(plain.map((m) => m.identifier)));
      const relevance = new Map(plain.map((m) => [m.identifier, m.relevance]));
      // The same relevance to float rounding: two runs of the pipeline may sum in another order (a last-bit difference).
      for (const m of weighted) expect(m.relevance).toBeCloseTo(relevance.get(m.identifier)!, 12);
      // Scored at relevance x weight, then as sure as the match is (confidentScores keeps the order).
      const expected = confidentScores(weighted.map((m) => ({ ...m, score: toScore(m.relevance * weightOf(m)) })));
      expect(weighted.map((m) => m.score)).toEqual(expected.map((m) => m.score));
      const ranks = weighted.map((m) => m.relevance * weightOf(m));
      expect(ranks).toEqual([...ranks].sort((a, b) => b - a));
      for (const tool of flips) {
        const order = weighted.map((m) => m.identifier);
        const above = plain[plain.indexOf(tool) - 1];
        expect(order.indexOf(tool.identifier)).toBeLessThan(order.indexOf(above.identifier));
      }
    },
  );

  it('a search that filters on type is not weighted: the client chose the types', async () => {
    for (const filter of [{ type: ALEXANDRIA_MEDIA_TYPE }, { type: [ALEXANDRIA_MEDIA_TYPE, 'application/mcp-server-card+json'] }]) {
      const plain = await matchText({ db: demo.db, embedder }, 'knowledge graph memory', normaliseFilter(filter));
      expect(plain.some((m) => m.type === ALEXANDRIA_MEDIA_TYPE)).toBe(true);
      expect(await matchText({ db: demo.db, embedder, typeWeights: library }, 'knowledge graph memory', normaliseFilter(filter))).toEqual(
        plain,
      );
    }
  });
});

describe('vacuumSearchStatistics', () => {
  it('vacuums the statistics tables outside a transaction and refuses inside one', async () => {
    expect(await vacuumSearchStatistics(demo.db)).toBe(true);
    const inside = await demo.db.transaction().execute((trx) => vacuumSearchStatistics(trx));
    expect(inside).toBe(false);
  });
});
