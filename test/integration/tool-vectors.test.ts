// A vector per tool (tool_vectors, migration 0023; decision 0037; docs/relevance.md "Tools"): written with the
// entry when its tools change, left alone when they do not, filled for entries that lack them (a database from
// before 0023, the goal model of a switch), and read by search as the candidate's tool cosine. Real PostgreSQL,
// the deterministic hashing embedder.
import { sql } from 'kysely';
import { markDeleted } from '../../src/catalog/entry-repository';
import { PRODUCT_GLOSSARY } from '../../src/catalog/product-glossary';
import { toVectorLiteral } from '../../src/db/vector-literal';
import { toolEmbeddingTexts } from '../../src/embedding/entry-texts';
import { startIndexUpkeep } from '../../src/embedding/index-upkeep';
import { EmbeddingModels } from '../../src/embedding/model-switch';
import { fillToolVectors } from '../../src/embedding/tool-vectors';
import { ingestManifest } from '../../src/ingest/ingest-manifest';
import { createLogger } from '../../src/logger';
import { MAX_MATCHED_TOOLS, matchedTools } from '../../src/search/matched-tools';
import { normaliseFilter } from '../../src/search/query-filter';
import { pageResults } from '../../src/search/search-service';
import {
  matchText,
  PRODUCTION_STAGES,
  prepareQuery,
  TOOL_CANDIDATES,
  withToolCosine,
  type RankingStages,
} from '../../src/search/relevance';
import { ablatedStages } from '../../src/search/relevance/ablations';
import { hashingEmbedder } from '../helpers/hashing-embedder';
import { useMigratedTestDatabase } from '../helpers/demo-database';
import { entryRowLocks } from '../helpers/test-database';

const database = useMigratedTestDatabase();

const MCP = 'application/mcp-server-card+json';
const model = hashingEmbedder('hash-tools-64', 64);
const goal = hashingEmbedder('hash-tools-goal-32', 32);

const tides = [
  { name: 'tidesForPort', description: 'Predict high and low water for a harbour on a given date.' },
  { name: 'moon_phase', description: 'The phase of the moon tonight.' },
];
function server(identifier: string, description: string, tools: Array<{ name: string; description: string }>) {
  return { identifier, displayName: identifier.split(':').pop(), type: MCP, description, data: { name: 'card', tools } };
}
const retooled = [{ name: 'surf_forecast', description: 'Forecast swell height and period for surfing beaches.' }];
const TIDES = 'urn:air:tools.test:mcp:tides';
const PLAIN = 'urn:air:tools.test:mcp:plain';

function ingest(entries: unknown[]) {
  return ingestManifest({ db: database.db, embedder: model }, { specVersion: '1.0', entries }, { origin: 'test:tool-vectors' });
}

/** The stored tool vectors of `identifier`, by model, in position order. */
async function toolVectors(identifier: string): Promise<Array<{ model: string; position: number; embedding: string }>> {
  const rows = await sql<{ model: string; position: number; embedding: string }>`
    SELECT model, position, embedding::text AS embedding FROM tool_vectors WHERE identifier = ${identifier} ORDER BY model COLLATE "C", position`.execute(
    database.db,
  );
  return rows.rows;
}

/** What the vectors of these tools must be (the text toolEmbeddingTexts writes, the model's vector of it). */
async function expectedVectors(embedder: typeof model, tools: Array<{ name: string; description: string }>) {
  const vectors = await embedder.embed(toolEmbeddingTexts(tools));
  return vectors.map((v, position) => ({ model: embedder.id, position, embedding: toVectorLiteral(v) }));
}

function sameVectors(actual: Array<{ model: string; position: number; embedding: string }>, expected: typeof actual) {
  expect(actual.map((r) => [r.model, r.position])).toEqual(expected.map((r) => [r.model, r.position]));
  actual.forEach((r, i) => {
    const a = JSON.parse(r.embedding) as number[];
    const b = JSON.parse(expected[i].embedding) as number[];
    a.forEach((x, j) => expect(x).toBeCloseTo(b[j], 5));
  });
}

it('embeds each tool of an entry on its own, and nothing for an entry without tools', async () => {
  const report = await ingest([
    server(TIDES, 'Coastal data.', tides),
    { ...server(PLAIN, 'A plain server.', []), data: undefined, url: 'https://tools.test/plain.json' },
  ]);
  expect(report.rejected).toEqual([]);
  sameVectors(await toolVectors(TIDES), await expectedVectors(model, tides));
  expect(await toolVectors(PLAIN)).toEqual([]);
});

it("gives search the nearest tool's cosine and position, which raise the entry's cosine and name the tool", async () => {
  const text = 'moon phase tonight';
  const q = await prepareQuery(database.db, model, text);
  const tools = await PRODUCTION_STAGES.toolCosines(database.db, q, [TIDES, PLAIN]);
  const toolCosines = (await model.embed(toolEmbeddingTexts(tides))).map((v) => v.reduce((s, x, i) => s + x * q.vector[i], 0));
  expect([...tools.keys()]).toEqual([TIDES]);
  expect(tools.get(TIDES)!.cosine).toBeCloseTo(Math.max(...toolCosines), 5);
  expect(tools.get(TIDES)!.position).toBe(1);
  const [row] = await PRODUCTION_STAGES.cosineLookup(database.db, q, [TIDES]);
  expect(tools.get(TIDES)!.cosine).toBeGreaterThan(Number(row.cosine));

  const matched = await matchText({ db: database.db, embedder: model }, text, normaliseFilter(undefined));
  const tidesMatch = matched.find((m) => m.identifier === TIDES);
  expect(tidesMatch?.cosine).toBeCloseTo(withToolCosine(Number(row.cosine), tools.get(TIDES)!.cosine), 5);
  expect(tidesMatch?.vectorTool).toBe(1);
  // Without the tools' vectors (the benchmark's ablation): the entry's own cosine, no tool named.
  const without = await matchText(
    { db: database.db, embedder: model },
    text,
    normaliseFilter(undefined),
    ablatedStages({ toolVectors: false }),
  );
  const plainMatch = without.find((m) => m.identifier === TIDES);
  expect(plainMatch?.cosine).toBeCloseTo(Number(row.cosine), 5);
  expect(plainMatch?.vectorTool).toBeUndefined();
});

it('reads the tool vectors of the TOOL_CANDIDATES best candidates only, by their relevance without them', async () => {
  const many = Array.from({ length: TOOL_CANDIDATES + 20 }, (_, i) =>
    server(`urn:air:tools.test:mcp:widget-${String(i).padStart(3, '0')}`, `Widget server number ${i}.`, []),
  ).map((e) => ({ ...e, data: undefined, url: `https://tools.test/${e.identifier}.json` }));
  await ingest(many);
  const asked: string[][] = [];
  const spy: RankingStages = {
    ...PRODUCTION_STAGES,
    toolCosines: async (db, q, identifiers) => {
      asked.push([...identifiers]);
      return PRODUCTION_STAGES.toolCosines(db, q, identifiers);
    },
  };
  const matched = await matchText({ db: database.db, embedder: model }, 'widget server', normaliseFilter(undefined), spy);
  expect(matched.length).toBeGreaterThan(TOOL_CANDIDATES);
  expect(asked).toHaveLength(1);
  expect(asked[0]).toHaveLength(TOOL_CANDIDATES);
  // None of them has tools: the list is the one the stages without tools give.
  const without = await matchText(
    { db: database.db, embedder: model },
    'widget server',
    normaliseFilter(undefined),
    ablatedStages({ toolVectors: false }),
  );
  expect(matched.map((m) => m.identifier)).toEqual(without.map((m) => m.identifier));
  expect(new Set(asked[0])).toEqual(new Set(without.slice(0, TOOL_CANDIDATES).map((m) => m.identifier)));
  await markDeleted(
    database.db,
    many.map((e) => e.identifier),
    new Date(),
  );
});

it('replaces every model’s tool vectors when the tools change, and keeps them when only the entry changes', async () => {
  // Another model's vector of the current tools: kept while they stay, gone when they change.
  const [other] = await goal.embed(['moon phase']);
  await sql`INSERT INTO tool_vectors (identifier, model, position, embedding) VALUES (${TIDES}, ${goal.id}, 0, ${toVectorLiteral(other)})`.execute(
    database.db,
  );
  const embeddedBefore = model.inner.calls;
  await ingest([server(TIDES, 'Coastal data, now for every port.', tides)]);
  const kept = await toolVectors(TIDES);
  expect(kept.map((r) => [r.model, r.position])).toEqual([
    [model.id, 0],
    [model.id, 1],
    [goal.id, 0],
  ]);
  // The entry's two texts (doc, description) were embedded again, its tools were not.
  expect(model.inner.calls - embeddedBefore).toBe(2);

  await ingest([server(TIDES, 'Coastal data, now for every port.', retooled)]);
  sameVectors(await toolVectors(TIDES), await expectedVectors(model, retooled));
});

it('fills the tool vectors live entries lack, of the model asked, and only for tools unchanged since it read them', async () => {
  const ROCKS = 'urn:air:tools.test:mcp:rocks';
  await ingest([server(ROCKS, 'Geology.', [{ name: 'rock_type', description: 'Name a rock from a photo.' }])]);
  await markDeleted(database.db, [ROCKS], new Date());
  await sql`DELETE FROM tool_vectors`.execute(database.db);

  expect(await fillToolVectors(database.db, model, { batchSize: 1 })).toBe(1);
  sameVectors(
    await toolVectors(TIDES),
    await expectedVectors(model, [{ name: 'surf_forecast', description: 'Forecast swell height and period for surfing beaches.' }]),
  );
  expect(await toolVectors(ROCKS)).toEqual([]);
  expect(await fillToolVectors(database.db, model)).toBe(0);

  // Tools that change while the fill embeds them: the fill writes nothing for that entry (the next fill, or the
  // ingest that changed them, embeds the new ones).
  await sql`DELETE FROM tool_vectors`.execute(database.db);
  const changing = {
    id: model.id,
    dimensions: model.dimensions,
    async embed(texts: string[]) {
      await sql`UPDATE entries SET tools = '[{"name": "other", "description": "Changed meanwhile."}]'::jsonb WHERE identifier = ${TIDES}`.execute(
        database.db,
      );
      return model.embed(texts);
    },
  };
  expect(await fillToolVectors(database.db, changing)).toBe(0);
  expect(await toolVectors(TIDES)).toEqual([]);
  await sql`UPDATE entries SET tools = ${JSON.stringify(retooled)}::jsonb WHERE identifier = ${TIDES}`.execute(database.db);
  expect(await fillToolVectors(database.db, model)).toBe(1);
});

it('the fill passes by an entry another write holds instead of waiting for it; writing it with the same tools embeds them', async () => {
  const GULLS = 'urn:air:tools.test:mcp:gulls';
  const gullTools = [{ name: 'count_gulls', description: 'Count the gulls on a beach photo.' }];
  await ingest([server(GULLS, 'Seabirds.', gullTools)]);
  await sql`DELETE FROM tool_vectors`.execute(database.db);
  // Another model's vector of TIDES' current tools, which an ingest that keeps the tools must keep.
  const [other] = await goal.embed(['surf forecast']);
  await sql`INSERT INTO tool_vectors (identifier, model, position, embedding) VALUES (${TIDES}, ${goal.id}, 0, ${toVectorLiteral(other)})`.execute(
    database.db,
  );

  // An ingest's transaction holds TIDES' row (it locks its entries in its manifest's order, the fill in identifier
  // order: waiting for each other's rows, the two could deadlock).
  const writer = await entryRowLocks(database.url);
  try {
    await writer.hold(TIDES);
    const waited = new Promise<'waited'>((resolve) => setTimeout(() => resolve('waited'), 5000).unref());
    expect(await Promise.race([fillToolVectors(database.db, model, { batchSize: 8 }), waited])).toBe(1);
    expect((await toolVectors(GULLS)).map((r) => r.model)).toEqual([model.id]);
    expect((await toolVectors(TIDES)).map((r) => r.model)).toEqual([goal.id]);
  } finally {
    await writer.end();
  }

  // The entry written again with the same tools (its description changed): the ingest embeds the tools it has no
  // vector of with its model, and leaves the other model's.
  await ingest([server(TIDES, 'Coastal data, tides and surf.', retooled)]);
  sameVectors(
    (await toolVectors(TIDES)).filter((r) => r.model === model.id),
    await expectedVectors(model, retooled),
  );
  expect((await toolVectors(TIDES)).map((r) => r.model)).toEqual([model.id, goal.id]);
  // Written again with its vectors in place: its tools are not embedded again (the entry's two texts are).
  const before = model.inner.calls;
  await ingest([server(TIDES, 'Coastal data: tides and surf.', retooled)]);
  expect(model.inner.calls - before).toBe(2);
});

it('names the tool whose vector raised an entry in @matchedTools, though it shares no word with the query', async () => {
  // TIDES lists one tool now (surf_forecast); the position comes from the match (Match.vectorTool).
  expect(await matchedTools(database.db, 'lunar almanac', [TIDES], new Map([[TIDES, 0]]))).toEqual(new Map([[TIDES, ['surf_forecast']]]));
  expect(await matchedTools(database.db, 'lunar almanac', [TIDES])).toEqual(new Map());
  // Named already by a shared word: once. A full list keeps its first MAX_MATCHED_TOOLS - 1 and ends with it.
  expect(await matchedTools(database.db, 'surfing forecast', [TIDES], new Map([[TIDES, 0]]))).toEqual(
    new Map([[TIDES, ['surf_forecast']]]),
  );
  const FILES = 'urn:air:tools.test:mcp:files';
  const fileTools = Array.from({ length: 7 }, (_, i) => ({ name: `file_op_${i}`, description: `File operation ${i}.` }));
  await ingest([server(FILES, 'Works on files.', fileTools)]);
  const full = await matchedTools(database.db, 'file', [FILES], new Map([[FILES, 6]]));
  expect(full.get(FILES)).toEqual([...fileTools.slice(0, MAX_MATCHED_TOOLS - 1).map((t) => t.name), 'file_op_6']);

  // The page's entries carry the position from the match, and the page's results name the tool.
  const match = {
    identifier: TIDES,
    type: MCP,
    relevance: 0.5,
    score: 50,
    semantic: 0.5,
    lexical: 0,
    cosine: 0.6,
    topic: 0,
    agreement: 1,
    vectorTool: 0,
  };
  const { entries: page, results } = await pageResults(database.db, 'http://registry.test/', 'lunar almanac', [match], 0, 1);
  expect(page.map((p) => p.vectorTool)).toEqual([0]);
  const [result] = results;
  expect(result['@matchedTools']).toEqual(['surf_forecast']);
});

it('embeds the tools of an entry back from a tombstone, which no fill reached while it was one', async () => {
  const ROCKS = 'urn:air:tools.test:mcp:rocks';
  const rockTools = [{ name: 'rock_type', description: 'Name a rock from a photo.' }];
  // Tombstoned, and without tool vectors (the fill above passed it by): the same content comes back.
  expect(await toolVectors(ROCKS)).toEqual([]);
  await ingest([server(ROCKS, 'Geology.', rockTools)]);
  sameVectors(await toolVectors(ROCKS), await expectedVectors(model, rockTools));
});

it('the upkeep at start fills them for a database from before tool vectors', async () => {
  await sql`DELETE FROM tool_vectors`.execute(database.db);
  const upkeep = startIndexUpkeep({
    db: database.db,
    embedder: model,
    models: null,
    glossary: PRODUCT_GLOSSARY,
    logger: createLogger('silent'),
  });
  await upkeep.done;
  sameVectors(await toolVectors(TIDES), await expectedVectors(model, retooled));
});

it('a model switch embeds the tools with the goal model before it switches', async () => {
  const models = new EmbeddingModels(database.db, model, goal);
  expect(await models.reembed()).toBe(true);
  expect(models.activeId()).toBe(goal.id);
  const byModel = await toolVectors(TIDES);
  expect(byModel.filter((r) => r.model === goal.id).map((r) => r.position)).toEqual([0]);
  expect(byModel.filter((r) => r.model === model.id).map((r) => r.position)).toEqual([0]);
});
