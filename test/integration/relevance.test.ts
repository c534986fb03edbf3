import { sql } from 'kysely';
import { MAX_LOOKED_UP_WORDS, prepareQuery } from '../../src/search/relevance';
import { startTestRegistry, type TestRegistry } from '../helpers/registry';

// Behaviours the relevance benchmark (npm run bench:relevance) found and the ranking must keep.
let registry: TestRegistry;

beforeAll(async () => {
  registry = await startTestRegistry();
});
afterAll(async () => {
  await registry.close();
});

async function search(text: string, extra: Record<string, unknown> = {}) {
  const res = await registry.post('/search', { query: { text, ...extra }, pageSize: 10 });
  expect(res.status).toBe(200);
  return res.body.results as Array<{ identifier: string; displayName: string; score: number; type: string; tags?: string[] }>;
}

describe('relevance (ARD §7.2, §7.3)', () => {
  it('an exact product name ranks that product first with a high score', async () => {
    const results = await search('PagerDuty');
    expect(results[0].identifier).toBe('urn:air:github.com:PagerDuty:pagerduty-mcp-server');
    expect(results[0].score).toBeGreaterThanOrEqual(80);
  });

  it('a prefix of a product name finds it ("pager" -> PagerDuty)', async () => {
    const results = await search('pager');
    expect(results.slice(0, 3).map((r) => r.identifier)).toContain('urn:air:github.com:PagerDuty:pagerduty-mcp-server');
  });

  it('a word the corpus holds is matched as itself, not completed into product names ("next" is not "next.js")', async () => {
    const lexemes = async (text: string) => (await prepareQuery(registry.ctx.db, registry.ctx.embedder, text)).terms.map((t) => t.lexeme);
    // Precondition: "next" and "need" are corpus words that begin words of entry names (Next.js, Needle).
    const names = await sql<{ term: string }>`SELECT term FROM term_stats WHERE name_df > 0 AND term IN ('next.js', 'needle')`.execute(
      registry.ctx.db,
    );
    expect(names.rows.map((r) => r.term).sort()).toEqual(['needle', 'next.js']);
    expect(await lexemes('next steps')).not.toContain('next.js');
    expect(await lexemes('what I need')).not.toContain('needl');
    // A word the corpus lacks still completes ("pager" -> "pagerduty").
    expect(await lexemes('pager')).toContain('pagerduty');
  });

  it('a word repeated in the query gets the same alternatives in each place; the first MAX_LOOKED_UP_WORDS distinct words are looked up', async () => {
    const alternatives = async (text: string) => {
      const q = await prepareQuery(registry.ctx.db, registry.ctx.embedder, text);
      return (group: number) =>
        q.terms
          .filter((t) => t.group === group)
          .map((t) => t.lexeme)
          .sort();
    };
    const repeated = await alternatives('slak bot and slak channel');
    expect(repeated(0)).toContain('slack');
    expect(repeated(3)).toEqual(repeated(0));
    // Two pairs that make the same word ("pager duty" twice): both places get it.
    const pairs = await alternatives('pager duty or pager duty');
    expect(pairs(3)).toContain('pagerduty');
    expect(pairs(4)).toEqual(pairs(1));
    // After MAX_LOOKED_UP_WORDS distinct words, a word is matched as typed only (a pasted paragraph stays cheap).
    const filler = Array.from(
      { length: MAX_LOOKED_UP_WORDS },
      (_, i) => `zq${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}x`,
    );
    const capped = await alternatives([...filler, 'slak'].join(' '));
    expect(capped(MAX_LOOKED_UP_WORDS)).toEqual(['slak']);
    const within = await alternatives([...filler.slice(1), 'slak'].join(' '));
    expect(within(MAX_LOOKED_UP_WORDS - 1)).toContain('slack');
  });

  it('a misspelt query finds the entry by trigram correction ("kubernets")', async () => {
    const results = await search('kubernets cluster');
    expect(results.slice(0, 3).some((r) => /kube|k8s/i.test(`${r.displayName} ${r.identifier}`))).toBe(true);
  });

  it('an abbreviation is expanded from synonyms.json ("k8s" -> kubernetes)', async () => {
    const results = await search('k8s');
    expect(results.length).toBeGreaterThan(0);
    expect(results.slice(0, 3).some((r) => /kube/i.test(`${r.displayName} ${r.identifier}`))).toBe(true);
  });

  it('a filtered query still gets its best matches: the filter applies inside retrieval, not after a cut', async () => {
    const unfiltered = await search('postgres database');
    const filtered = await search('postgres database', { filter: { tags: 'postgres' } });
    expect(filtered.length).toBeGreaterThan(0);
    for (const r of filtered) expect(r.tags).toContain('postgres');
    // The best tagged entry is found even when untagged entries would fill the unfiltered top.
    const best = unfiltered.find((r) => r.tags?.includes('postgres'));
    if (best) expect(filtered[0].identifier).toBe(best.identifier);
  });

  it('scores are integers in 0-100, never rising down the list', async () => {
    const results = await search('send a message to a slack channel');
    expect(results.length).toBeGreaterThan(2);
    const scores = results.map((r) => r.score);
    for (const s of scores) {
      expect(Number.isInteger(s)).toBe(true);
      expect(s).toBeGreaterThanOrEqual(0);
      expect(s).toBeLessThanOrEqual(100);
    }
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    expect(results[0].displayName).toMatch(/slack/i);
  });

  it('the cutoff removes unrelated entries: a nonsense query returns few or no results', async () => {
    const nonsense = await registry.post('/search', { query: { text: 'xqzvw plorf brindle' }, pageSize: 100 });
    expect(nonsense.status).toBe(200);
    expect(nonsense.body.results.length).toBeLessThanOrEqual(5);
    const offTopic = await registry.post('/search', { query: { text: 'banana bread recipe with walnuts' }, pageSize: 100 });
    expect(offTopic.body.results.length).toBeLessThanOrEqual(10);
    const onTopic = await registry.post('/search', { query: { text: 'send a message to a slack channel' }, pageSize: 100 });
    expect(onTopic.body.results.length).toBeGreaterThan(offTopic.body.results.length);
  });
});
