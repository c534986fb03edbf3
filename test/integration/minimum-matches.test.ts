// Minimum matches (docs/relevance.md): a query whose text brings fewer than MINIMUM_MATCHES entries to the
// cutoff also gets its best candidates down to RELEVANCE_FLOOR. Pinned against the whole candidate list,
// and against the filter: which entries fill depends on the text alone (ARD §7.3: one cutoff governs
// /search and /explore), so /explore's counts are what filtering returns.
import { normaliseFilter } from '../../src/search/query-filter';
import { matchText, MINIMUM_MATCHES, RELEVANCE_CUTOFF, RELEVANCE_FLOOR, type Match } from '../../src/search/relevance';
import { ablatedStages, type RankingAblations } from '../../src/search/relevance/ablations';
import { startTestRegistry, type TestRegistry } from '../helpers/registry';

let registry: TestRegistry;
beforeAll(async () => {
  registry = await startTestRegistry();
});
afterAll(() => registry.close());

const MCP = 'application/mcp-server-card+json';
const AUTOMOWER = 'urn:air:github.com:jeanlaurent:mcp-husqvarna-automower';
// A need said the way a person says it: one entry reaches the cutoff (the Husqvarna Automower server).
const TEXT = 'is my robot lawnmower stuck somewhere in the garden';
const none = normaliseFilter(undefined);
const ids = (matches: Match[]) => matches.map((m) => m.identifier);

async function matches(text: string, filter: Record<string, string> | undefined, ablations: RankingAblations = {}) {
  return matchText({ db: registry.ctx.db, embedder: registry.ctx.embedder }, text, normaliseFilter(filter), ablatedStages(ablations));
}

describe('minimum matches', () => {
  it('a query with fewer than MINIMUM_MATCHES entries at the cutoff also gets its best candidates down to RELEVANCE_FLOOR', async () => {
    const atCutoff = await matches(TEXT, undefined, { minimumMatches: 0 });
    expect(ids(atCutoff)).toEqual([AUTOMOWER]);
    // Independently, from every candidate with its production relevance: the best MINIMUM_MATCHES at the floor or above
    // that the embedding singles out (agreement above 0, decision 0013).
    const everything = await matches(TEXT, undefined, { cutoff: 0, minimumMatches: 0 });
    const best = [...everything]
      .filter((m) => m.relevance >= RELEVANCE_FLOOR && m.agreement > 0)
      .sort((a, b) => b.relevance - a.relevance || (a.identifier < b.identifier ? -1 : 1))
      .slice(0, MINIMUM_MATCHES);
    expect(best.length).toBe(MINIMUM_MATCHES);
    const found = await matches(TEXT, undefined);
    expect(found.map((m) => [m.identifier, m.relevance])).toEqual(best.map((m) => [m.identifier, m.relevance]));
    // The entries that fill are weak, and their score says so.
    expect(found.slice(1).every((m) => m.score < RELEVANCE_CUTOFF * 100)).toBe(true);
    // The production stages and the HTTP answer agree.
    expect(ids(await matchText({ db: registry.ctx.db, embedder: registry.ctx.embedder }, TEXT, none))).toEqual(ids(found));
    const res = await registry.post('/search', { query: { text: TEXT }, pageSize: 10 });
    expect(res.body.results.map((r: { identifier: string; score: number }) => [r.identifier, r.score])).toEqual(
      found.map((m) => [m.identifier, m.score]),
    );
  });

  it('fills only with candidates the embedding singles out: an off-topic text gets no weak answers it does not (decision 0013)', async () => {
    const text = 'adopt a kitten near me';
    const atCutoff = await matches(text, undefined, { minimumMatches: 0 });
    const overFloor = (await matches(text, undefined, { cutoff: 0, minimumMatches: 0 })).filter((m) => m.relevance >= RELEVANCE_FLOOR);
    // Over the floor, better by relevance than what the cutoff keeps, but at or under the query's baseline cosine.
    const unvouched = overFloor.filter((m) => m.agreement === 0 && !ids(atCutoff).includes(m.identifier));
    expect(unvouched.length).toBeGreaterThanOrEqual(MINIMUM_MATCHES - atCutoff.length);
    const found = await matches(text, undefined);
    expect(ids(found).filter((id) => unvouched.some((m) => m.identifier === id))).toEqual([]);
    expect(found.length).toBeLessThan(MINIMUM_MATCHES);
  });

  it('a query with MINIMUM_MATCHES entries at the cutoff gets nothing under it', async () => {
    const text = 'weather forecast';
    const atCutoff = await matches(text, undefined, { minimumMatches: 0 });
    expect(atCutoff.length).toBeGreaterThanOrEqual(MINIMUM_MATCHES);
    expect(ids(await matches(text, undefined))).toEqual(ids(atCutoff));
  });

  it('which entries fill depends on the text alone: under a filter the matched set is the unfiltered one narrowed by it (ARD §7.3)', async () => {
    // (Until the product glossary this was 'track container vessels near the port of Singapore', which now
    // finds the AIS Fleet server and three more: its gloss says "track vessels and maritime traffic". Until the
    // glosses' "Used to:" part, 'how many calories in my breakfast', which now has one candidate over the floor; until
    // the fill asked for the embedding's agreement, 'adopt a kitten near me' and the library's papers, which it now
    // fills with none.)
    const text = 'tune my guitar by ear';
    const atCutoff = await matches(text, undefined, { minimumMatches: 0 });
    expect(atCutoff.length).toBeLessThan(MINIMUM_MATCHES);
    const unfiltered = await matches(text, undefined);
    expect(unfiltered.length).toBe(MINIMUM_MATCHES);
    const types = [...new Set(unfiltered.map((m) => m.type!))];
    // MCP servers are above the floor for this text, some singled out by the embedding, but none among its best (the
    // library's papers): filtering on their type must not fill up with them.
    expect(types).not.toContain(MCP);
    const servers = (await matches(text, { type: MCP }, { cutoff: 0, minimumMatches: 0 })).filter(
      (m) => m.relevance >= RELEVANCE_FLOOR && m.agreement > 0,
    );
    expect(servers.length).toBeGreaterThan(0);
    for (const type of [...types, MCP]) {
      const filtered = await matches(text, { type });
      expect(ids(filtered).sort()).toEqual(ids(unfiltered.filter((m) => m.type === type)).sort());
      expect(ids(await matchText({ db: registry.ctx.db, embedder: registry.ctx.embedder }, text, normaliseFilter({ type })))).toEqual(
        ids(filtered),
      );
      const searched = await registry.post('/search', { query: { text, filter: { type } }, pageSize: 100 });
      expect(searched.body.results.map((r: { identifier: string }) => r.identifier).sort()).toEqual(ids(filtered).sort());
    }
    // /explore counts the same matched set.
    const explored = await registry.post('/explore', { query: { text }, resultType: { facets: [{ field: 'type' }] } });
    const counts = Object.fromEntries(explored.body.facets.type.buckets.map((b: { value: string; count: number }) => [b.value, b.count]));
    expect(counts).toEqual(Object.fromEntries(types.map((t) => [t, unfiltered.filter((m) => m.type === t).length])));
  });
});
