import { fuseLists, identifierHash, type FusionItem, type FusionList } from '../../src/federation/fusion';

const item = (name: string, score: number, source = 'https://peer.example/'): FusionItem => ({
  entry: { identifier: `urn:air:x.example:mcp:${name}`, displayName: name, type: 'application/mcp-server-card+json', url: `https://x.example/${name}` },
  score,
  source,
});
const list = (key: string, items: FusionItem[], extra: Partial<FusionList> = {}): FusionList => ({
  key,
  local: key === 'local',
  items,
  startRank: 0,
  minScore: 100,
  complete: true,
  ...extra,
});
const names = (rs: Array<{ displayName: string }>) => rs.map((r) => r.displayName);

describe('fuseLists (weighted reciprocal rank fusion)', () => {
  it('keeps a local exact match first, interleaves lists, and never raises a score down the list', () => {
    const out = fuseLists({
      lists: [
        list('local', [item('exact', 95, 'https://me/'), item('l2', 60, 'https://me/')]),
        list('p', [item('p1', 97), item('p2', 90)]),
      ],
      pageSize: 10,
      localIds: new Set(['urn:air:x.example:mcp:exact', 'urn:air:x.example:mcp:l2']),
      emittedPeerHashes: new Set(),
      lastScore: 100,
    });
    expect(names(out.results)).toEqual(['exact', 'p1', 'p2', 'l2']);
    expect(out.results.map((r) => r.score)).toEqual([95, 95, 90, 60]);
    expect(out.results.map((r) => r.source)).toEqual(['https://me/', 'https://peer.example/', 'https://peer.example/', 'https://me/']);
  });

  it('drops peer copies of local identifiers and of identifiers already emitted from peers', () => {
    const out = fuseLists({
      lists: [list('local', [item('shared', 80, 'https://me/')]), list('p', [item('shared', 99), item('seen', 90), item('dup', 85)]), list('q', [item('dup', 88)])],
      pageSize: 10,
      localIds: new Set(['urn:air:x.example:mcp:shared']),
      emittedPeerHashes: new Set([identifierHash('urn:air:x.example:mcp:seen')]),
      lastScore: 100,
    });
    expect(names(out.results)).toEqual(['shared', 'dup']);
    expect(out.results[0]!.source).toBe('https://me/');
    expect(out.consumed.get('p')).toBe(3);
    expect(out.consumed.get('q')).toBe(1);
  });

  it('stops before an unseen item of an incomplete list could outrank what is left', () => {
    const out = fuseLists({
      lists: [list('local', [item('l1', 90), item('l2', 40)]), list('p', [item('p1', 90)], { complete: false })],
      pageSize: 3,
      localIds: new Set(),
      emittedPeerHashes: new Set(),
      lastScore: 100,
    });
    // p's next item may score up to 90 at rank 2: more than l2 (40) is worth, so the page ends short.
    expect(names(out.results)).toEqual(['l1', 'p1']);
    expect(out.consumed.get('local')).toBe(1);
  });
});
