import type { CatalogEntry } from '../../src/alexandria/catalog-entry';
import { InvalidToolArgumentError, MalformedResourceIdError, ResourceNotFoundError } from '../../src/alexandria/errors';
import {
  AlexandriaLibraryService,
  type IndexSearchParams,
  MAX_SEARCH_WINDOW,
  type ResourceIndex,
  toContractScore,
} from '../../src/alexandria/library-service';
import { recordToCatalogEntry } from '../../src/alexandria/mapping';
import type { AlexandriaLibrary, AlexandriaRecord } from '../../src/alexandria/record';
import { violatesSponsorshipRule } from '../../src/alexandria/sponsorship';
import { FailingResourceIndex, InMemoryResourceIndex } from './alexandria-test-double';

const RESULT_KEYS_IN_ORDER = ['id', 'kind', 'title', 'url', 'tags', 'date', 'description', 'score', 'sponsored'];

let library: AlexandriaLibrary;
let index: InMemoryResourceIndex;
let service: AlexandriaLibraryService;
let byId: Map<string, AlexandriaRecord>;

beforeAll(async () => {
  ({ index, library } = await InMemoryResourceIndex.overShippedLibrary());
  service = new AlexandriaLibraryService({ index, topics: library.topics });
  byId = new Map(library.records.map((r) => [r.id, r]));
});

async function thrown(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}

describe('toContractScore', () => {
  it.each([
    [91.4, 0.91],
    [91.5, 0.92],
    [100, 1],
    [0, 0],
    [33.333, 0.33],
    [120, 1],
    [-3, 0],
  ])('maps %p to %p', (registry, contract) => {
    expect(toContractScore(registry)).toBe(contract);
  });
  it('rejects a non-finite score', () => {
    expect(() => toContractScore(Number.NaN)).toThrow(RangeError);
  });
});

describe('searchLibrary', () => {
  it('answers the contract example with the contract shape, field by field', async () => {
    const response = await service.searchLibrary({ query: 'how do I add memory to my agent?', topic: 'memory', kind: null, limit: 10 });
    expect(Object.keys(response)).toEqual(['results', 'total', 'query_id']);
    expect(response.query_id).toMatch(/^q_[0-9a-f]{8}$/);
    expect(response.results.length).toBeGreaterThan(0);
    expect(response.results.length).toBeLessThanOrEqual(10);
    expect(response.total).toBeGreaterThanOrEqual(response.results.length);
    for (const result of response.results) {
      const record = byId.get(result.id)!;
      expect(record).toBeDefined();
      const expectedKeys = RESULT_KEYS_IN_ORDER.filter(
        (k) => (k !== 'date' || record.date !== undefined) && (k !== 'sponsored' || record.sponsored === true),
      );
      expect(Object.keys(result)).toEqual(expectedKeys);
      expect(result.kind).toBe(record.kind);
      expect(result.title).toBe(record.title);
      expect(result.url).toBe(record.url);
      expect(result.tags).toEqual(record.tags);
      expect(result.date).toBe(record.date);
      expect(result.description).toBe(record.description);
      expect(result.tags).toContain('memory');
      expect(result.score).toBeGreaterThan(0);
      expect(result.score).toBeLessThanOrEqual(1);
      expect(Math.round(result.score * 100) / 100).toBe(result.score);
    }
    expect(violatesSponsorshipRule(response.results)).toBe(false);
  });

  it('asks the index for Alexandria entries only, with topic and kind as filters', async () => {
    index.searchCalls.length = 0;
    await service.searchLibrary({ query: 'agent memory', topic: 'memory', kind: 'repo', limit: 5 });
    expect(index.searchCalls[0]).toEqual({
      text: 'agent memory',
      filter: { type: ['application/vnd.alexandria.resource+json'], tags: ['memory'], 'metadata.kind': ['repo'] },
      limit: 5,
    });
  });

  it('filters by kind', async () => {
    const { results } = await service.searchLibrary({ query: 'agent framework', kind: 'repo', limit: 50 });
    expect(results.length).toBeGreaterThan(5);
    expect(new Set(results.map((r) => r.kind))).toEqual(new Set(['repo']));
  });

  it('defaults the limit to 10 and honours an explicit one', async () => {
    expect((await service.searchLibrary({ query: 'agents' })).results).toHaveLength(10);
    expect((await service.searchLibrary({ query: 'agents', limit: 3 })).results).toHaveLength(3);
    expect((await service.searchLibrary({ query: 'agents', limit: null })).results).toHaveLength(10);
  });

  it('marks sponsored records and keeps them below editorial results of equal score', async () => {
    const { results } = await service.searchLibrary({ query: 'memory layer for agents', limit: 50 });
    const mem0 = results.find((r) => r.id === 'github:mem0ai/mem0');
    expect(mem0?.sponsored).toBe(true);
    for (const r of results) if (r.id !== 'github:mem0ai/mem0' && !byId.get(r.id)!.sponsored) expect('sponsored' in r).toBe(false);
    expect(violatesSponsorshipRule(results)).toBe(false);
  });

  it('returns no results (not an error) when nothing matches', async () => {
    const response = await service.searchLibrary({ query: 'zzzqqq' });
    expect(response.results).toEqual([]);
    expect(response.total).toBe(0);
  });

  it.each<[string, Record<string, unknown>, RegExp]>([
    [
      'an unknown topic',
      { query: 'x', topic: 'vibes' },
      /invalid topic "vibes": topic must be one of: agents, memory, evals, .*simulation$/,
    ],
    ['an unknown kind', { query: 'x', kind: 'book' }, /invalid kind "book": kind must be one of: paper, repo, post$/],
    ['limit 0', { query: 'x', limit: 0 }, /invalid limit 0: limit must be an integer from 1 to 50/],
    ['limit 51', { query: 'x', limit: 51 }, /invalid limit 51/],
    ['limit 2.5', { query: 'x', limit: 2.5 }, /invalid limit 2.5/],
    ['an empty query', { query: '   ' }, /invalid query "   ": query must be a non-empty string/],
    ['a missing query', {}, /invalid query \(missing\)/],
    ['an oversized query', { query: 'a'.repeat(1001) }, /query is at most 1000 characters/],
  ])('rejects %s with InvalidToolArgumentError', async (_label, input, message) => {
    const error = await thrown(service.searchLibrary(input as never));
    expect(error).toBeInstanceOf(InvalidToolArgumentError);
    expect((error as Error).message).toMatch(message);
  });

  it('lets index failures through untouched (the transport decides what to show)', async () => {
    const failing = new AlexandriaLibraryService({ index: new FailingResourceIndex(), topics: library.topics });
    const error = await thrown(failing.searchLibrary({ query: 'x' }));
    expect(error).not.toBeInstanceOf(InvalidToolArgumentError);
    expect((error as Error).message).toBe(FailingResourceIndex.SECRET);
  });
});

describe('searchLibrary at the edge of the window', () => {
  /** An engine that returns a fixed ranking (sponsored first on ties, the worst case for the rule). */
  class ScriptedIndex implements ResourceIndex {
    readonly limits: number[] = [];
    constructor(private readonly ranking: Array<{ entry: CatalogEntry; score: number }>) {}
    async search(params: IndexSearchParams) {
      this.limits.push(params.limit);
      return { entries: this.ranking.slice(0, params.limit), total: this.ranking.length };
    }
    async getEntry() {
      return null;
    }
    async facetCounts() {
      return [];
    }
  }

  const record = (id: string, sponsored: boolean): AlexandriaRecord => ({
    id,
    schema_version: 1,
    kind: 'repo',
    title: id,
    url: `https://github.com/${id.slice('github:'.length)}`,
    tags: ['agents'],
    description: `synthetic ${id}`,
    use_cases: ['plan-and-reason'],
    ...(sponsored ? { sponsored: true } : {}),
    source: { type: 'github', fetched_at: '2026-10-01T09:00:00Z', via: `https://api.github.com/repos/${id.slice(7)}` },
  });
  const scored = (id: string, sponsored: boolean, score: number) => ({ entry: recordToCatalogEntry(record(id, sponsored)), score });

  it('widens the window until a tie with a sponsored result is settled', async () => {
    const scripted = new ScriptedIndex([
      scored('github:s/sponsored', true, 80),
      scored('github:e/one', false, 80),
      scored('github:e/two', false, 80.2),
      scored('github:e/three', false, 70),
    ]);
    const svc = new AlexandriaLibraryService({ index: scripted, topics: library.topics });
    const { results, total } = await svc.searchLibrary({ query: 'q', limit: 2 });
    expect(results.map((r) => r.id)).toEqual(['github:e/one', 'github:e/two']);
    expect(total).toBe(4);
    expect(scripted.limits).toEqual([2, 4]);
  });

  it('shows a sponsored result that wins on relevance alone, without widening', async () => {
    const scripted = new ScriptedIndex([
      scored('github:s/sponsored', true, 90),
      scored('github:e/one', false, 80),
      scored('github:e/two', false, 70),
    ]);
    const svc = new AlexandriaLibraryService({ index: scripted, topics: library.topics });
    const { results } = await svc.searchLibrary({ query: 'q', limit: 2 });
    expect(results.map((r) => [r.id, r.score, r.sponsored])).toEqual([
      ['github:s/sponsored', 0.9, true],
      ['github:e/one', 0.8, undefined],
    ]);
    expect(scripted.limits).toEqual([2]);
  });

  it(`leaves tied sponsored results out rather than risk misordering past ${MAX_SEARCH_WINDOW} entries`, async () => {
    const ranking = [
      ...Array.from({ length: MAX_SEARCH_WINDOW + 10 }, (_, i) => scored(`github:sponsor-${i}/x`, true, 60)),
      scored('github:e/late', false, 60),
    ];
    const scripted = new ScriptedIndex(ranking);
    const svc = new AlexandriaLibraryService({ index: scripted, topics: library.topics });
    const { results } = await svc.searchLibrary({ query: 'q', limit: 5 });
    expect(results).toEqual([]);
    expect(scripted.limits.at(-1)).toBe(MAX_SEARCH_WINDOW);
  });
});

describe('getResource', () => {
  it('returns every record exactly as ingested', async () => {
    for (const record of library.records) {
      const got = await service.getResource(record.id);
      expect(got).toStrictEqual(record);
      expect(JSON.stringify(got)).toBe(JSON.stringify(record));
    }
  });

  it('returns the contract example record', async () => {
    const react = await service.getResource('arxiv:2210.03629');
    expect(react).toMatchObject({
      id: 'arxiv:2210.03629',
      schema_version: 1,
      kind: 'paper',
      title: 'ReAct: Synergizing Reasoning and Acting in Language Models',
      url: 'https://arxiv.org/abs/2210.03629',
      date: '2022-10-06',
      tags: ['agents', 'reasoning', 'tool-use'],
      license_note: 'arXiv non-exclusive license',
      use_cases: ['plan-and-reason', 'tool-use-and-function-calling'],
      source: { type: 'arxiv', via: 'https://export.arxiv.org/api/query' },
    });
    expect(react.authors?.slice(0, 2)).toEqual(['Shunyu Yao', 'Jeffrey Zhao']);
  });

  it.each(['arxiv:2401.00001', 'github:Letta-AI/letta', 'github:letta-ai/Letta', 'post:anthropic.com/building-effective-agent'])(
    'answers %s with ResourceNotFoundError, never a near match',
    async (id) => {
      const error = await thrown(service.getResource(id));
      expect(error).toBeInstanceOf(ResourceNotFoundError);
      expect((error as ResourceNotFoundError).id).toBe(id);
    },
  );

  it.each(['arxiv:2210.03629v2', 'ReAct', 'github:letta-ai', 'post:www.anthropic.com/building-effective-agents', ' arxiv:2210.03629'])(
    'answers %j with MalformedResourceIdError',
    async (id) => {
      const error = await thrown(service.getResource(id));
      expect(error).toBeInstanceOf(MalformedResourceIdError);
    },
  );
});

describe('listTopics', () => {
  it('lists all 24 topics with the library counts, by count then taxonomy order', async () => {
    const { topics } = await service.listTopics();
    expect(topics).toHaveLength(24);
    expect(topics).toEqual([
      { topic: 'agents', entries: 67 },
      { topic: 'tool-use', entries: 39 },
      { topic: 'benchmarks', entries: 29 },
      { topic: 'memory', entries: 26 },
      { topic: 'evals', entries: 26 },
      { topic: 'retrieval', entries: 26 },
      { topic: 'frameworks', entries: 25 },
      { topic: 'multi-agent', entries: 24 },
      { topic: 'coding-agents', entries: 23 },
      { topic: 'reasoning', entries: 19 },
      { topic: 'orchestration', entries: 19 },
      { topic: 'rag', entries: 18 },
      { topic: 'prompting', entries: 18 },
      { topic: 'planning', entries: 17 },
      { topic: 'protocols', entries: 15 },
      { topic: 'self-improvement', entries: 14 },
      { topic: 'web-agents', entries: 13 },
      { topic: 'safety', entries: 12 },
      { topic: 'fine-tuning', entries: 10 },
      { topic: 'embeddings', entries: 10 },
      { topic: 'simulation', entries: 9 },
      { topic: 'observability', entries: 7 },
      { topic: 'knowledge-graphs', entries: 7 },
      { topic: 'computer-use', entries: 6 },
    ]);
    for (const t of topics) expect(Object.keys(t)).toEqual(['topic', 'entries']);
  });

  it('includes topics with zero entries', async () => {
    const few = library.records.filter((r) => r.id === 'arxiv:2210.03629' || r.id === 'github:letta-ai/letta');
    const small = new AlexandriaLibraryService({ index: new InMemoryResourceIndex(few.map(recordToCatalogEntry)), topics: library.topics });
    const { topics } = await small.listTopics();
    expect(topics).toHaveLength(24);
    expect(topics[0]).toEqual({ topic: 'agents', entries: 2 });
    const zero = topics.filter((t) => t.entries === 0).map((t) => t.topic);
    // Equal (zero) counts keep the taxonomy order.
    expect(zero).toEqual(library.topics.filter((t) => zero.includes(t)));
    expect(zero.length).toBeGreaterThan(15);
  });

  it('counts only Alexandria entries', async () => {
    const foreign: CatalogEntry = {
      identifier: 'urn:air:github.com:mem0ai:mem0',
      displayName: 'mem0 MCP',
      type: 'application/mcp-server-card+json',
      url: 'https://example.com/mcp',
      tags: ['memory'],
    };
    const mixed = new InMemoryResourceIndex([...library.records.map(recordToCatalogEntry), foreign]);
    const svc = new AlexandriaLibraryService({ index: mixed, topics: library.topics });
    expect((await svc.listTopics()).topics.find((t) => t.topic === 'memory')?.entries).toBe(26);
    const { results } = await svc.searchLibrary({ query: 'mem0 MCP memory', limit: 50 });
    expect(results.every((r) => r.id.includes(':') && !r.id.startsWith('urn:'))).toBe(true);
  });
});
