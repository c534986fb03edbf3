// The Registry-Liveness header of GET /agents/{identifier} (src/http/liveness-header.ts, docs/liveness.md),
// read back and said for a person on the entry page.

export const LIVENESS_HEADER_NAME = 'registry-liveness';

/** The header's members (an RFC 8941 dictionary of tokens, integers and strings without commas). */
export function parseLivenessHeader(value: string | undefined): Record<string, string> | null {
  if (!value) return null;
  const members: Record<string, string> = {};
  for (const member of value.split(',')) {
    const at = member.indexOf('=');
    if (at <= 0) continue;
    members[member.slice(0, at).trim()] = member
      .slice(at + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1');
  }
  return members.state ? members : null;
}

const STATE_TEXT: Record<string, string> = {
  live: 'Answering',
  unreachable: 'Not answering',
  dead: 'Not answering for days',
  'no-remote-endpoint': 'No remote endpoint',
  unknown: 'Not checked yet',
};

const PROBE_TEXT: Record<string, string> = {
  'mcp-initialize': 'the MCP handshake (initialize) with its remote endpoint',
  'a2a-card': 'fetching its agent card',
  url: 'fetching its URL',
};

const REASON_TEXT: Record<string, string> = {
  'stdio-only': 'the server runs over stdio where it is installed; there is nothing to reach over the network',
  'no-url': 'the entry names no URL to reach',
  'transport-unsupported': 'its endpoint speaks a transport the registry does not probe (SSE)',
  pending: 'the registry has not probed it since it last changed',
};

/** One sentence headline and the facts below it. */
export function livenessText(members: Record<string, string>): { headline: string; facts: Array<[string, string]> } {
  const state = members.state;
  const reason = members.reason;
  const headline = STATE_TEXT[state] ?? state;
  const facts: Array<[string, string]> = [];
  if (members.probe && PROBE_TEXT[members.probe]) facts.push(['Checked by', PROBE_TEXT[members.probe]]);
  if (reason) facts.push([state === 'unreachable' || state === 'dead' ? 'Last failure' : 'Why', REASON_TEXT[reason] ?? reason]);
  if (members['latency-ms']) facts.push(['Answered in', `${members['latency-ms']} ms`]);
  if (members['last-success']) facts.push(['Last answered', members['last-success']]);
  if (members['failing-since']) facts.push(['Failing since', members['failing-since']]);
  if (members.checked) facts.push(['Last checked', members.checked]);
  return { headline, facts };
}
