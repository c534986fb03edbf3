// Minimum matches (docs/relevance.md): a query whose text brings fewer than MINIMUM_MATCHES entries to the
// cutoff also gets its best candidates down to RELEVANCE_FLOOR. Pinned against the whole candidate list,
// and against the filter: which entries fill depends on the text alone (ARD §7.3: one cutoff governs
// /search and /explore), so /explore's counts are what filtering returns.
import { ALEXANDRIA_MEDIA_TYPE } from '../../src/alexandria/mapping';
import { normaliseFilter } from '../../src/search/query-filter';
import { matchText, MINIMUM_MATCHES, RELEVANCE_CUTOFF, RELEVANCE_FLOOR, type Match } from '../../src/search/relevance';
import { ablatedStages, type RankingAblations } from '../../src/search/relevance/ablations';
import { startTestRegistry, type TestRegistry } from '../helpers/registry';

let registry: TestRegistry;
beforeAll(async () => {
  registry = await startTestRegistry();
});
afterAll(() => registry.close());

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
    // Independently, from every candidate with its production relevance: the best MINIMUM_MATCHES at the floor or above.
    const everything = await matches(TEXT, undefined, { cutoff: 0, minimumMatches: 0 });
    const best = [...everything]
      .filter((m) => m.relevance >= RELEVANCE_FLOOR)
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

  it('a query with MINIMUM_MATCHES entries at the cutoff gets nothing under it', async () => {
    const text = 'weather forecast';
    const atCutoff = await matches(text, undefined, { minimumMatches: 0 });
    expect(atCutoff.length).toBeGreaterThanOrEqual(MINIMUM_MATCHES);
    expect(ids(await matches(text, undefined))).toEqual(ids(atCutoff));
  });

  it('which entries fill depends on the text alone: under a filter the matched set is the unfiltered one narrowed by it (ARD §7.3)', async () => {
    // (Until the product glossary this was 'track container vessels near the port of Singapore', which now
    // finds the AIS Fleet server and three more: its gloss says "track vessels and maritime traffic". Until the
    // glosses' "Used to:" part, 'how many calories in my breakfast', which now has one candidate over the floor.)
    const text = 'adopt a kitten near me';
    expect((await matches(text, undefined, { minimumMatches: 0 })).length).toBeLessThan(MINIMUM_MATCHES);
    const unfiltered = await matches(text, undefined);
    expect(unfiltered.length).toBe(MINIMUM_MATCHES);
    const types = [...new Set(unfiltered.map((m) => m.type!))];
    // The library has papers above the floor for this text, but none among its best: filtering on the library's
    // type must not fill up with them.
    expect(types).not.toContain(ALEXANDRIA_MEDIA_TYPE);
    const papers = (await matches(text, { type: ALEXANDRIA_MEDIA_TYPE }, { cutoff: 0, minimumMatches: 0 })).filter(
      (m) => m.relevance >= RELEVANCE_FLOOR,
    );
    expect(papers.length).toBeGreaterThan(0);
    for (const type of [...types, ALEXANDRIA_MEDIA_TYPE]) {
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
