import { fuseLists, identifierHash, type FusionItem, type FusionList } from '../../src/federation/fusion';

const item = (name: string, score: number, source = 'https://peer.example/'): FusionItem => ({
  entry: {
    identifier: `urn:air:x.example:mcp:${name}`,
    displayName: name,
    type: 'application/mcp-server-card+json',
    url: `https://x.example/${name}`,
  },
  score,
  source,
});
const list = (key: string, items: FusionItem[], extra: Partial<FusionList> = {}): FusionList => ({
  key,
  local: key === 'local',
  items,
  lastScore: 100,
  complete: true,
  ...extra,
});
const names = (rs: Array<{ displayName?: string }>) => rs.map((r) => r.displayName);

describe('fuseLists (merge by score on this registry scale)', () => {
  it('orders the merged list by score, ties to our own list, and shows each score as it is (no cap by the previous result)', () => {
    const out = fuseLists({
      lists: [
        list('local', [item('exact', 95, 'https://me/'), item('l2', 60, 'https://me/'), item('l3', 29, 'https://me/')]),
        list('p', [item('p1', 95.4), item('p2', 93), item('p3', 42), item('p4', 36.2)]),
      ],
      pageSize: 10,
      localIds: new Set(['urn:air:x.example:mcp:exact', 'urn:air:x.example:mcp:l2', 'urn:air:x.example:mcp:l3']),
      emittedPeerHashes: new Set(),
    });
    expect(names(out.results)).toEqual(['p1', 'exact', 'p2', 'l2', 'p3', 'p4', 'l3']);
    // 95.4 shows as 95, tied with our 95 but above it (it is higher before rounding); 42 stays 42, 93 stays 93.
    expect(out.results.map((r) => r.score)).toEqual([95, 95, 93, 60, 42, 36, 29]);
    expect(out.results.map((r) => r.source)).toEqual([
      'https://peer.example/',
      'https://me/',
      'https://peer.example/',
      'https://me/',
      'https://peer.example/',
      'https://peer.example/',
      'https://me/',
    ]);
  });

  it('drops peer copies of local identifiers, of identifiers already emitted from peers, and placeholders of dropped results', () => {
    const out = fuseLists({
      lists: [
        list('local', [item('shared', 80, 'https://me/')]),
        list('p', [item('shared', 99), { ...item('gone', 95), dropped: true }, item('seen', 90), item('dup', 85)]),
        list('q', [item('dup', 88)]),
      ],
      pageSize: 10,
      localIds: new Set(['urn:air:x.example:mcp:shared']),
      emittedPeerHashes: new Set([identifierHash('urn:air:x.example:mcp:seen')]),
    });
    expect(names(out.results)).toEqual(['dup', 'shared']);
    expect(out.results[0]!.source).toBe('https://peer.example/'); // q's copy, merged first at 88
    expect(out.results[1]!.source).toBe('https://me/');
    expect(out.consumed.get('p')).toBe(4);
    expect(out.consumed.get('q')).toBe(1);
  });

  it('stops before an unseen item of an incomplete list could outrank what is left', () => {
    const out = fuseLists({
      lists: [list('local', [item('l1', 90), item('l2', 40)]), list('p', [item('p1', 85)], { complete: false })],
      pageSize: 3,
      localIds: new Set(),
      emittedPeerHashes: new Set(),
    });
    // p's next item may score up to 85: more than l2 (40), so the page ends short.
    expect(names(out.results)).toEqual(['l1', 'p1']);
    expect(out.consumed.get('local')).toBe(1);
    expect(out.lastScores.get('p')).toBe(85);
  });
});
