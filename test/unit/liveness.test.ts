// Liveness without a network (docs/liveness.md): what is probed for an entry, the state after each probe,
// the order a batch is probed in, the Registry-Liveness header and how the portal reads it back.
import type { CatalogEntry } from '../../src/catalog/catalog-entry';
import { livenessHeaderValue } from '../../src/http/liveness-header';
import { interleaveHosts, nextLiveness, probeTargetOf, type StoredLiveness } from '../../src/liveness';
import { livenessText, parseLivenessHeader } from '../../src/portal/liveness-text';

const MCP = 'application/mcp-server-card+json';
const entry = (fields: Partial<CatalogEntry>): CatalogEntry => ({ identifier: 'urn:air:x.test:e', displayName: 'E', type: MCP, ...fields });

describe('probeTargetOf: what an entry states, nothing guessed', () => {
  it('an MCP server: its inline remote, else metadata.remoteUrl, over Streamable HTTP', () => {
    expect(probeTargetOf(entry({ data: { remotes: [{ type: 'streamable-http', url: 'https://a.test/mcp' }] } }))).toEqual({
      probe: 'mcp-initialize',
      url: 'https://a.test/mcp',
    });
    expect(
      probeTargetOf(entry({ url: 'https://github.com/x/y', metadata: { remoteUrl: 'https://b.test/mcp', transport: 'streamable-http' } })),
    ).toEqual({
      probe: 'mcp-initialize',
      url: 'https://b.test/mcp',
    });
  });

  it('an MCP server without a remote is stdio-only, one with an SSE remote is not probed, never called dead', () => {
    expect(probeTargetOf(entry({ url: 'https://github.com/x/y', metadata: { transport: 'stdio', image: 'x/y' } }))).toMatchObject({
      probe: 'none',
      url: null,
      reason: 'stdio-only',
    });
    expect(probeTargetOf(entry({ data: { packages: [{ registryType: 'npm', identifier: 'x' }] } }))).toMatchObject({
      reason: 'stdio-only',
    });
    expect(
      probeTargetOf(entry({ metadata: { remoteUrl: 'https://c.test/sse', transport: 'sse' }, url: 'https://c.test/sse' })),
    ).toMatchObject({
      probe: 'none',
      url: 'https://c.test/sse',
      reason: 'transport-unsupported',
    });
  });

  it('an A2A agent: its card URL, else its inline card’s endpoint; any other entry: its URL; no URL: nothing to probe', () => {
    const a2a = 'application/a2a-agent-card+json';
    expect(probeTargetOf(entry({ type: a2a, url: 'https://d.test/card.json' }))).toEqual({
      probe: 'a2a-card',
      url: 'https://d.test/card.json',
    });
    expect(probeTargetOf(entry({ type: a2a, data: { url: 'https://d.test/a2a' } }))).toEqual({ probe: 'url', url: 'https://d.test/a2a' });
    expect(probeTargetOf(entry({ type: 'application/ai-skill', url: 'https://e.test/SKILL.md' }))).toEqual({
      probe: 'url',
      url: 'https://e.test/SKILL.md',
    });
    expect(probeTargetOf(entry({ type: 'application/ai-skill', data: {} }))).toMatchObject({ probe: 'none', reason: 'no-url' });
    expect(probeTargetOf(entry({ type: 'application/ai-skill', url: 'ftp://e.test/x' }))).toMatchObject({
      probe: 'none',
      reason: 'no-url',
    });
  });
});

describe('nextLiveness: the states (docs/liveness.md "States")', () => {
  const times = { intervalSeconds: 3600, deadAfterSeconds: 3 * 86400 };
  const target = { probe: 'url' as const, url: 'https://e.test/x' };
  const at = (day: number) => new Date(Date.UTC(2026, 0, 1 + day));
  const item = (previous: StoredLiveness | null) => ({ identifier: 'urn:air:x.test:e', contentHash: 'h', previous });
  const fail = { ok: false as const, reason: 'http-status' as const, latencyMs: 5, detail: 'answered HTTP 404' };

  it('a failure is unreachable, failures for LIVENESS_DEAD_AFTER_SECONDS are dead, one success ends the run', () => {
    const first = nextLiveness(item(null), target, fail, at(0), times);
    expect(first).toMatchObject({ state: 'unreachable', failingSince: at(0), deadSince: null, lastFailureReason: 'http-status' });
    expect(first.nextProbeAt).toEqual(new Date(at(0).getTime() + 3600_000));
    const second = nextLiveness(item(first), target, fail, at(2), times);
    expect(second).toMatchObject({ state: 'unreachable', failingSince: at(0) });
    const third = nextLiveness(item(second), target, fail, at(3), times);
    expect(third).toMatchObject({ state: 'dead', failingSince: at(0), deadSince: at(3) });
    const fourth = nextLiveness(item(third), target, fail, at(5), times);
    expect(fourth).toMatchObject({ state: 'dead', deadSince: at(3) });
    const back = nextLiveness(item(fourth), target, { ok: true, latencyMs: 12, detail: 'answered HTTP 200' }, at(6), times);
    expect(back).toMatchObject({
      state: 'live',
      reason: null,
      latencyMs: 12,
      lastSuccessAt: at(6),
      lastFailureAt: at(5),
      failingSince: null,
      deadSince: null,
    });
  });

  it('a new endpoint starts afresh; nothing to probe is no-remote-endpoint (or unknown for a transport not probed)', () => {
    const failing = nextLiveness(item(null), target, fail, at(0), times);
    const moved = nextLiveness(item(failing), { probe: 'url', url: 'https://f.test/x' }, fail, at(4), times);
    expect(moved).toMatchObject({ state: 'unreachable', failingSince: at(4), lastFailureAt: at(4) });
    const stdio = nextLiveness(item(failing), { probe: 'none', url: null, reason: 'stdio-only', detail: 'stdio' }, null, at(4), times);
    expect(stdio).toMatchObject({ state: 'no-remote-endpoint', reason: 'stdio-only', probe: 'none', failingSince: null });
    const sse = nextLiveness(
      item(null),
      { probe: 'none', url: 'https://c.test/sse', reason: 'transport-unsupported', detail: '' },
      null,
      at(0),
      times,
    );
    expect(sse.state).toBe('unknown');
  });
});

describe('interleaveHosts', () => {
  it('orders a batch round robin over hosts, so one busy host does not hold every probe slot', () => {
    const due = ['a', 'a', 'a', 'b', 'c', 'c'].map((host, i) => ({
      identifier: `${host}${i}`,
      contentHash: '',
      previous: null,
      entry: entry({ type: 'application/ai-skill', url: `https://${host}.test/${i}` }),
    }));
    expect(interleaveHosts(due).map((d) => d.identifier)).toEqual(['a0', 'b3', 'c4', 'a1', 'c5', 'a2']);
  });
});

describe('Registry-Liveness header and the portal’s reading of it', () => {
  const stored: StoredLiveness = {
    state: 'unreachable',
    probe: 'mcp-initialize',
    target: 'https://a.test/mcp',
    reason: 'timeout',
    detail: 'timed out',
    latencyMs: 40,
    lastSuccessAt: new Date('2026-01-01T00:00:00Z'),
    lastFailureAt: new Date('2026-01-02T00:00:00Z'),
    lastFailureReason: 'timeout',
    failingSince: new Date('2026-01-02T00:00:00Z'),
    deadSince: null,
    checkedAt: new Date('2026-01-02T00:00:00Z'),
    nextProbeAt: new Date('2026-01-02T01:00:00Z'),
  };

  it('is an RFC 8941 dictionary of the state; pending when not probed since the entry changed', () => {
    expect(livenessHeaderValue(null)).toBe('state=unknown, reason=pending');
    expect(livenessHeaderValue(stored)).toBe(
      'state=unreachable, probe=mcp-initialize, reason=timeout, last-success="2026-01-01T00:00:00.000Z", last-failure="2026-01-02T00:00:00.000Z", failing-since="2026-01-02T00:00:00.000Z", checked="2026-01-02T00:00:00.000Z"',
    );
    expect(livenessHeaderValue({ ...stored, state: 'live', reason: null, lastFailureAt: null, failingSince: null })).toBe(
      'state=live, probe=mcp-initialize, latency-ms=40, last-success="2026-01-01T00:00:00.000Z", checked="2026-01-02T00:00:00.000Z"',
    );
  });

  it('the portal says it for a person', () => {
    const members = parseLivenessHeader(livenessHeaderValue(stored));
    expect(members).toMatchObject({ state: 'unreachable', reason: 'timeout', 'failing-since': '2026-01-02T00:00:00.000Z' });
    const text = livenessText(members!);
    expect(text.headline).toBe('Not answering');
    expect(text.facts).toContainEqual(['Last failure', 'timeout']);
    expect(text.facts).toContainEqual(['Checked by', 'the MCP handshake (initialize) with its remote endpoint']);
    expect(livenessText(parseLivenessHeader('state=unknown, reason=pending')!)).toEqual({
      headline: 'Not checked yet',
      facts: [['Why', 'the registry has not probed it since it last changed']],
    });
    expect(parseLivenessHeader(undefined)).toBeNull();
    expect(parseLivenessHeader('garbage')).toBeNull();
  });
});
