// Reading a peer's answer liberally (docs/federation.md "Reading a peer's answer"; ARD v0.91 §5.3.2:
// a result must carry only identifier, score and source).
import { InvalidPeerResponseError, readPeerAnswer } from '../../src/federation/peer-response';

const entry = (name: string, extra: Record<string, unknown> = {}) => ({
  identifier: `urn:air:peer.example:mcp:${name}`,
  displayName: `Peer ${name}`,
  type: 'application/mcp-server-card+json',
  url: `https://peer.example/${name}`,
  score: 80,
  source: 'https://peer.example/',
  ...extra,
});

describe('readPeerAnswer', () => {
  it('tolerates a null pageToken, unknown top-level fields and null optional fields (the reference registry)', () => {
    const answer = readPeerAnswer({
      results: [entry('a', { description: null, tags: null })],
      pageToken: null,
      total: 1,
      '@context': 'https://agenticresourcediscovery.org/context/v1',
    });
    expect(answer.results).toHaveLength(1);
    expect(answer.results[0]!.entry).toEqual({
      identifier: 'urn:air:peer.example:mcp:a',
      displayName: 'Peer a',
      type: 'application/mcp-server-card+json',
      url: 'https://peer.example/a',
    });
    expect(answer.results[0]!.complete).toBe(true);
    expect(answer.pageToken).toBeUndefined();
    expect(answer.tolerated).toEqual({ null_page_token: 1, unknown_top_level_field: 2, null_field: 2 });
    expect(answer.dropped).toEqual([]);
  });

  it('keeps identifier-only results (v0.91) as partial, with @context, and their raw score whatever its range', () => {
    const answer = readPeerAnswer({
      results: [
        { identifier: 'urn:air:peer.example:mcp:b', score: 130, source: 'https://x.example/' },
        { '@context': { acme: 'https://acme.example/ns#' }, identifier: 'urn:air:peer.example:mcp:c', displayName: 'C', score: 'high' },
      ],
    });
    expect(answer.results.map((r) => [r.entry.identifier, r.complete, r.rawScore, r.claimedSource])).toEqual([
      ['urn:air:peer.example:mcp:b', false, 130, 'https://x.example/'],
      ['urn:air:peer.example:mcp:c', false, undefined, undefined],
    ]);
    expect(answer.results[1]!.entry['@context']).toEqual({ acme: 'https://acme.example/ns#' });
    expect(answer.tolerated).toEqual({ score_out_of_range: 1, missing_score: 1 });
  });

  it('drops, with a reason, each result that fails the catalog schema, and keeps its valid neighbours', () => {
    const answer = readPeerAnswer({
      results: [
        entry('ok'),
        'not an object',
        entry('x', { identifier: 'not a urn' }),
        entry('both', { data: { inline: true } }),
        entry('badtags', { tags: 'weather' }),
        { identifier: 'urn:air:peer.example:mcp:partial-bad', url: 'not a url' },
        entry('ok', { displayName: 'Again' }),
      ],
    });
    expect(answer.results.map((r) => r.entry.identifier)).toEqual(['urn:air:peer.example:mcp:ok']);
    expect(answer.dropped.map((d) => d.reason)).toEqual([
      'not_an_object',
      'invalid_identifier',
      'fails_catalog_schema',
      'fails_catalog_schema',
      'fails_catalog_schema',
      'duplicate',
    ]);
    expect(answer.dropped[3]!.detail).toContain('tags');
  });

  it('refuses whole only an answer that is not an object with a results array', () => {
    for (const bad of [null, [], 'text', { hits: [] }, { results: 'none' }])
      expect(() => readPeerAnswer(bad)).toThrow(InvalidPeerResponseError);
    expect(readPeerAnswer({ results: [] }).results).toEqual([]);
  });
});

describe('readPeerAnswer and the publisher binding (ARD v0.91 §4.5.1)', () => {
  it('drops a result whose trustManifest.identity is not its publisher, and keeps one that is', () => {
    const answer = readPeerAnswer({
      results: [
        entry('bound', { trustManifest: { identity: 'spiffe://peer.example/mcp/bound' } }),
        entry('spoofed', { trustManifest: { identity: 'spiffe://bank.example/mcp/spoofed' } }),
      ],
    });
    expect(answer.results.map((r) => r.entry.identifier)).toEqual(['urn:air:peer.example:mcp:bound']);
    expect(answer.dropped.map((d) => [d.reason, d.identifier])).toEqual([['unbound_trust_identity', 'urn:air:peer.example:mcp:spoofed']]);
  });
});
