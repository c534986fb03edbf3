// An operator's query vocabulary (SEARCH_SYNONYMS_FILE, SEARCH_RELATED_WORDS_FILE) on a real registry: it
// expands POST /search, POST /explore's matched set and the Alexandria library's `search` tool alike, and a
// bad file stops the start with a message naming it.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

import { startTestRegistry, type TestRegistry } from '../helpers/registry';
import { useTempDir } from '../helpers/temp-dir';

const AUTOMOWER = 'urn:air:github.com:jeanlaurent:mcp-husqvarna-automower';
const JOB_APPLICATIONS = 'urn:air:glama.ai:prabhakar1234pr:applying-jobs-mcp-server';

const dir = useTempDir('ard-vocabulary-');
let registry: TestRegistry;
let plain: TestRegistry;
beforeAll(async () => {
  // "zorblax" is no word of the corpus; "quixotry" names nothing either. "openings" is a bundled related word (-> jobs).
  // (It was "humidity" until the product glossary's "Used to:" part gave the weather server the words of weather.)
  const synonymsFile = dir.write(
    'synonyms.json',
    JSON.stringify({ _comment: 'site vocabulary', zorblax: ['automower'], quixotry: ['reflexion'] }),
  );
  const relatedWordsFile = dir.write('related-words.json', JSON.stringify({ openings: [] }));
  registry = await startTestRegistry({ config: { searchSynonymsFile: synonymsFile, searchRelatedWordsFile: relatedWordsFile } });
  plain = await startTestRegistry({ database: registry.database });
});
afterAll(async () => {
  await plain?.close();
  await registry?.close();
});

async function search(on: TestRegistry, text: string) {
  const res = await on.post('/search', { query: { text }, pageSize: 100 });
  expect(res.status).toBe(200);
  return res.body.results as Array<{ identifier: string; score: number }>;
}

describe('an operator vocabulary (SEARCH_SYNONYMS_FILE, SEARCH_RELATED_WORDS_FILE)', () => {
  it('a synonym from the file finds the entry that uses the word it stands for; without the file nothing reaches the cutoff', async () => {
    const results = await search(registry, 'zorblax');
    expect(results[0].identifier).toBe(AUTOMOWER);
    expect(results[0].score).toBeGreaterThanOrEqual(80);
    expect((await search(plain, 'zorblax')).every((r) => r.score < 25)).toBe(true);
  });

  it("POST /explore's matched set is search's: the facet counts add up to search's results", async () => {
    const results = await search(registry, 'zorblax');
    const explore = (on: TestRegistry) =>
      on.post('/explore', { query: { text: 'zorblax' }, resultType: { facets: [{ field: 'type' }, { field: 'tags', limit: 1000 }] } });
    const res = await explore(registry);
    expect(res.status).toBe(200);
    const counted = res.body.facets.type.buckets.reduce((sum: number, b: { count: number }) => sum + b.count, 0);
    expect(counted).toBe(results.length);
    // The Automower server (its tag) is in the matched set with the file, and not without it.
    expect(res.body.facets.tags.buckets).toContainEqual({ value: 'husqvarna-automower', count: 1 });
    expect((await explore(plain)).body.facets.tags.buckets.map((b: { value: string }) => b.value)).not.toContain('husqvarna-automower');
  });

  it('an empty list removes a bundled related word ("openings" -> jobs)', async () => {
    const text = 'find machine learning engineer openings';
    expect((await search(plain, text))[0].identifier).toBe(JOB_APPLICATIONS);
    expect((await search(registry, text))[0]?.identifier).not.toBe(JOB_APPLICATIONS);
  });

  it("the Alexandria library's search tool (/mcp) expands with the same vocabulary", async () => {
    const client = new Client({ name: 'vocabulary-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${registry.url}/mcp`)));
    try {
      const result = (await client.callTool({ name: 'search', arguments: { query: 'quixotry', limit: 3 } })) as CallToolResult;
      expect(result.isError).toBeFalsy();
      const ids = (result.structuredContent as { results: Array<{ id: string }> }).results.map((r) => r.id);
      expect(ids[0]).toBe('arxiv:2303.11366');
    } finally {
      await client.close();
    }
  });

  it('a bad file stops the start, naming the setting, the file and the key', async () => {
    const bad = dir.write('bad.json', JSON.stringify({ 'tl;dr': ['summary'] }));
    await expect(startTestRegistry({ config: { searchRelatedWordsFile: bad } })).rejects.toThrow(
      `SEARCH_RELATED_WORDS_FILE (${bad}): the key 'tl;dr' would match the query words 'tl dr'; write it that way`,
    );
  });
});
