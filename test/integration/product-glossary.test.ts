// The product glossary on a real registry (PostgreSQL + pgvector, the bundled model, the demo corpus): an
// entry that says little more than a product's name is found by a need said in everyday words, through the
// gloss it is indexed with; the entry served is as published; and the glosses stored follow the glossary
// (gloss-refresh.ts): rewritten with their doc vectors when it changes, once per glossary version.
import { sql } from 'kysely';
import { glossFor, parseProductGlossary, PRODUCT_GLOSSARY } from '../../src/catalog/product-glossary';
import bundledGlosses from '../../src/catalog/product-glosses.json';
import type { CatalogEntry } from '../../src/catalog/catalog-entry';
import { getSetting, setSetting } from '../../src/db/settings';
import { entryEmbeddingTexts } from '../../src/embedding/entry-texts';
import { GLOSSARY_VERSION_SETTING, refreshGlosses } from '../../src/embedding/gloss-refresh';
import { startTestRegistry, type TestRegistry } from '../helpers/registry';
import { entryRowLocks } from '../helpers/test-database';
import { useTempDir } from '../helpers/temp-dir';

// The docker catalog's Shodan entry: a display name and two tags, no description, no tools.
const SHODAN = 'urn:air:github.com:Cyreslab-AI:shodan-mcp-server';
const NEED = 'find webcams and routers anyone on the internet can reach';
/**
 * The bundled glossary without its keys that begin with "s" (Shodan's among them): a refresh to it and back
 * rewrites the glosses and doc vectors of the few dozen entries that name one of those products, where one to a
 * glossary naming nothing would rewrite all ~540 (18-37 s each on two quiet cores).
 */
const THINNED = parseProductGlossary(
  Object.fromEntries(Object.entries(bundledGlosses).filter(([key]) => !/^s/i.test(key))),
  'thinned.json',
);

let registry: TestRegistry;
beforeAll(async () => {
  registry = await startTestRegistry();
  // The start's own refresh (nothing to change on a fresh copy of the demo corpus) is done before we begin.
  await waitFor(async () => (await getSetting(registry.ctx.db, GLOSSARY_VERSION_SETTING)) === PRODUCT_GLOSSARY.version);
});
afterAll(async () => {
  await registry?.close();
});

async function waitFor(check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function rankOf(identifier: string, text: string): Promise<number> {
  const res = await registry.post('/search', { query: { text }, pageSize: 50 });
  expect(res.status).toBe(200);
  return (res.body.results as Array<{ identifier: string }>).findIndex((r) => r.identifier === identifier);
}

async function stored(identifier: string) {
  return sql<{ gloss: string; entry: CatalogEntry; lexemes: string[] }>`
    SELECT gloss, entry, rank_lexemes AS lexemes FROM entries WHERE identifier = ${identifier}`
    .execute(registry.ctx.db)
    .then((r) => r.rows[0]);
}

/** Every entry row, tombstones included (a refresh reads them all), in identifier order. */
async function allEntries() {
  const rows = await sql<{ identifier: string; entry: CatalogEntry; gloss: string }>`
    SELECT identifier, entry, gloss FROM entries ORDER BY identifier`.execute(registry.ctx.db);
  return rows.rows;
}

async function docVector(identifier: string, model: string): Promise<number[] | null> {
  const rows = await sql<{
    v: string;
  }>`SELECT embedding::text AS v FROM entry_vectors WHERE identifier = ${identifier} AND model = ${model} AND field = 'doc'`.execute(
    registry.ctx.db,
  );
  return rows.rows.length === 0 ? null : (JSON.parse(rows.rows[0].v) as number[]);
}

describe('an entry is indexed with the glosses of the products it names', () => {
  it('is stored with its gloss, which its lexical document holds; the entry served is the one published', async () => {
    const row = await stored(SHODAN);
    expect(row.gloss).toBe(glossFor(row.entry));
    expect(row.gloss).toMatch(/internet-connected devices/);
    expect(row.lexemes).toEqual(expect.arrayContaining(['webcam', 'router', 'expos']));
    const res = await registry.post('/search', { query: { text: NEED }, pageSize: 5 });
    const served = (res.body.results as Array<{ identifier: string }>).find((r) => r.identifier === SHODAN);
    expect(served).toBeDefined();
    expect(JSON.stringify(served)).not.toMatch(/webcams|gloss/);
  });

  it('a need said in everyday words finds the entry that says only its product name, and does not without the gloss', async () => {
    expect(await rankOf(SHODAN, NEED)).toBe(0);
    const thinned = await refreshGlosses(registry.ctx.db, registry.ctx.embedder, { glossary: THINNED });
    expect(thinned.ran).toBe(true);
    expect((await stored(SHODAN)).gloss).toBe('');
    const without = await rankOf(SHODAN, NEED);
    expect(without === -1 || without > 5).toBe(true);
    const restored = await refreshGlosses(registry.ctx.db, registry.ctx.embedder);
    expect(restored.changed).toBe(thinned.changed);
    expect(await rankOf(SHODAN, NEED)).toBe(0);
  });
});

describe('refreshGlosses: the stored glosses follow the glossary', () => {
  it('rewrites every changed gloss and its doc vector, then records the version; a second run reads nothing', async () => {
    const rows = await allEntries();
    const changing = rows.filter((r) => glossFor(r.entry, THINNED) !== r.gloss);
    // Spread over the batches of 100 the refresh reads.
    expect(changing.length).toBeGreaterThan(10);
    const thinned = await refreshGlosses(registry.ctx.db, registry.ctx.embedder, { glossary: THINNED, batchSize: 100 });
    expect(thinned).toEqual({ ran: true, completed: true, read: rows.length, changed: changing.length });
    const after = new Map((await allEntries()).map((r) => [r.identifier, r.gloss]));
    expect(rows.filter((r) => after.get(r.identifier) !== glossFor(r.entry, THINNED))).toEqual([]);
    expect(await getSetting(registry.ctx.db, GLOSSARY_VERSION_SETTING)).toBe(THINNED.version);
    expect(await refreshGlosses(registry.ctx.db, registry.ctx.embedder, { glossary: THINNED })).toEqual({
      ran: false,
      completed: true,
      read: 0,
      changed: 0,
    });

    const restored = await refreshGlosses(registry.ctx.db, registry.ctx.embedder);
    expect(restored.changed).toBe(changing.length);
    const row = await stored(SHODAN);
    expect(row.gloss).toBe(glossFor(row.entry));
    // The doc vector is the embedding of the text with the gloss, not the one without it.
    const [expected] = await registry.ctx.embedder.embed([entryEmbeddingTexts(row.entry, glossFor(row.entry)).doc]);
    const [withoutGloss] = await registry.ctx.embedder.embed([entryEmbeddingTexts(row.entry, '').doc]);
    const vector = (await docVector(SHODAN, registry.ctx.embedder.id))!;
    expect(Math.max(...vector.map((x, i) => Math.abs(x - expected[i])))).toBeLessThan(1e-5);
    expect(Math.max(...vector.map((x, i) => Math.abs(x - withoutGloss[i])))).toBeGreaterThan(1e-3);
  });

  it("removes other models' doc vectors of the entries it changes (a model switch re-embeds them), and keeps the rest", async () => {
    const other = 'another-model';
    const untouched = (await sql<{ identifier: string }>`SELECT identifier FROM entries WHERE gloss = '' LIMIT 1`.execute(registry.ctx.db))
      .rows[0].identifier;
    for (const id of [SHODAN, untouched]) {
      await sql`INSERT INTO entry_vectors (identifier, model, field, embedding) VALUES (${id}, ${other}, 'doc', '[1,0,0]'), (${id}, ${other}, 'description', '[0,1,0]')`.execute(
        registry.ctx.db,
      );
    }
    await refreshGlosses(registry.ctx.db, registry.ctx.embedder, { glossary: THINNED });
    expect(await docVector(SHODAN, other)).toBeNull();
    expect(await docVector(untouched, other)).toEqual([1, 0, 0]);
    const descriptions = await sql<{
      identifier: string;
    }>`SELECT identifier FROM entry_vectors WHERE model = ${other} AND field = 'description' ORDER BY identifier`.execute(registry.ctx.db);
    expect(descriptions.rows.map((r) => r.identifier).sort()).toEqual([SHODAN, untouched].sort());
    await sql`DELETE FROM entry_vectors WHERE model = ${other}`.execute(registry.ctx.db);
    await refreshGlosses(registry.ctx.db, registry.ctx.embedder);
  });

  it('passes by an entry another write holds and rewrites it after the rest, so the two never wait for each other', async () => {
    const rows = await allEntries();
    const [first, held] = rows
      .filter((r) => glossFor(r.entry, THINNED) !== r.gloss)
      .map((r) => ({ identifier: r.identifier, before: r.gloss, after: glossFor(r.entry, THINNED) }));
    // A write (an ingest's transaction) holds the later entry; an ingest locks in its manifest's order, so it may
    // want the earlier one next: a refresh that waited for the later row while holding the earlier would deadlock.
    const writer = await entryRowLocks(registry.database.url);
    let refresh: Promise<unknown> | undefined;
    try {
      await writer.hold(held.identifier);
      // The first batch holds both (batches go in identifier order, as allEntries reads them).
      const upToHeld = rows.findIndex((r) => r.identifier === held.identifier) + 1;
      refresh = refreshGlosses(registry.ctx.db, registry.ctx.embedder, { glossary: THINNED, batchSize: upToHeld });
      refresh.catch(() => undefined);
      // The batch with the earlier entry is written and committed while the later one is held...
      await waitFor(async () => (await stored(first.identifier)).gloss === first.after, 10_000);
      expect((await stored(held.identifier)).gloss).toBe(held.before);
      // ...so the write gets the earlier row at once.
      await writer.hold(first.identifier);
    } finally {
      await writer.end();
    }
    // The held entry is rewritten once free, before the version is recorded.
    expect(await refresh).toEqual({ ran: true, completed: true, read: expect.any(Number), changed: expect.any(Number) });
    expect((await stored(held.identifier)).gloss).toBe(held.after);
    expect(await getSetting(registry.ctx.db, GLOSSARY_VERSION_SETTING)).toBe(THINNED.version);
    await refreshGlosses(registry.ctx.db, registry.ctx.embedder);
  });

  it('a refresh stopped midway records no version, so the next one goes on', async () => {
    await setSetting(registry.ctx.db, GLOSSARY_VERSION_SETTING, 'stale');
    const stopped = await refreshGlosses(registry.ctx.db, registry.ctx.embedder, {
      glossary: THINNED,
      batchSize: 50,
      onBatch: () => false,
    });
    expect(stopped).toEqual({ ran: true, completed: false, read: 50, changed: expect.any(Number) });
    expect(await getSetting(registry.ctx.db, GLOSSARY_VERSION_SETTING)).toBe('stale');
    await refreshGlosses(registry.ctx.db, registry.ctx.embedder);
    expect((await stored(SHODAN)).gloss).toBe(glossFor((await stored(SHODAN)).entry));
  });

  it('a registry started on a database refreshed to another glossary rewrites the glosses in the background', async () => {
    await refreshGlosses(registry.ctx.db, registry.ctx.embedder, { glossary: THINNED });
    expect((await stored(SHODAN)).gloss).toBe('');
    const second = await startTestRegistry({ database: registry.database });
    try {
      await waitFor(async () => (await getSetting(registry.ctx.db, GLOSSARY_VERSION_SETTING)) === PRODUCT_GLOSSARY.version);
      expect((await stored(SHODAN)).gloss).toMatch(/internet-connected devices/);
      expect(await rankOf(SHODAN, NEED)).toBe(0);
    } finally {
      await second.close();
    }
  });
});

describe('an operator glossary (SEARCH_GLOSSARY_FILE)', () => {
  const PERKOON = 'urn:air:a2aregistry.org:37688090-3b48-4738-8bb4-d927e05d9d1e';
  const dir = useTempDir('ard-glossary-');

  it('glosses the entries that name its keys, after the start refresh, and drops a bundled gloss it removes', async () => {
    // "zorblax" is no word of the corpus; Perkoon is a product the bundled glossary does not know.
    expect(glossFor((await stored(PERKOON)).entry)).not.toMatch(/zorblax|perkoon/i);
    const file = dir.write('glossary.json', JSON.stringify({ perkoon: 'zorblax teleporter for large files', shodan: '' }));
    expect(await rankOf(PERKOON, 'zorblax teleporter')).toBe(-1);
    const site = await startTestRegistry({ database: registry.database, config: { searchGlossaryFile: file } });
    try {
      await waitFor(async () => (await getSetting(site.ctx.db, GLOSSARY_VERSION_SETTING)) === site.ctx.glossary.version);
      expect(site.ctx.glossary.version).not.toBe(PRODUCT_GLOSSARY.version);
      // Its own product first (named first), then the bundled glosses of the standards it names (WebRTC, A2A).
      expect((await stored(PERKOON)).gloss).toBe(`zorblax teleporter for large files. ${glossFor((await stored(PERKOON)).entry)}`);
      expect((await stored(SHODAN)).gloss).toBe('');
      const res = await site.post('/search', { query: { text: 'zorblax teleporter' }, pageSize: 5 });
      expect(res.body.results[0].identifier).toBe(PERKOON);
    } finally {
      await site.close();
    }
    // Back on the bundled glossary: the next start (this suite's registry does not restart, so a refresh here) undoes it.
    await refreshGlosses(registry.ctx.db, registry.ctx.embedder);
    expect((await stored(PERKOON)).gloss).toBe(glossFor((await stored(PERKOON)).entry));
    expect((await stored(PERKOON)).gloss).not.toMatch(/zorblax/);
    expect(await rankOf(PERKOON, 'zorblax teleporter')).toBe(-1);
  });

  it('a bad file stops the start, naming the setting, the file and the key', async () => {
    const file = dir.write('bad.json', JSON.stringify({ 'one two three four five': 'a gloss' }));
    await expect(startTestRegistry({ database: registry.database, config: { searchGlossaryFile: file } })).rejects.toThrow(
      /^SEARCH_GLOSSARY_FILE \(.*bad\.json\): the key 'one two three four five' has 5 words/,
    );
  });
});
