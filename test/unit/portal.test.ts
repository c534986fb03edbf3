// The portal's pure parts: HTML escaping, the MCP client snippet, page state <-> URL, labels, PORTAL_FACETS.
import { ConfigError, DEFAULT_PORTAL_FACETS, envToConfig } from '../../src/config';
import { html, safeHref, trustedHtml } from '../../src/portal/html';
import { entryPath, fieldLabel, publisherOf, typeLabel } from '../../src/portal/labels';
import { mcpClientConfig, mcpClientConfigJson } from '../../src/catalog/mcp-client-config';
import { browseUrl, listFilterFor, readBrowseState } from '../../src/portal/pages/browse-page';
import { readSearchState, searchUrl } from '../../src/portal/pages/search-page';
import type { CatalogEntry } from '../../src/portal/registry-api';

const MCP = 'application/mcp-server-card+json';
const server = (over: Partial<CatalogEntry>): CatalogEntry => ({
  identifier: 'urn:air:acme.com:server:x',
  displayName: 'X Server',
  type: MCP,
  url: 'https://acme.com/x',
  ...over,
});

describe('html', () => {
  test('escapes every interpolated text, keeps nested templates and trusted markup', () => {
    const name = `<img src=x onerror="alert('1')"> & co`;
    expect(html`<p title="${name}">${name}</p>`.text).toBe(
      '<p title="&lt;img src=x onerror=&quot;alert(&#39;1&#39;)&quot;&gt; &amp; co">&lt;img src=x onerror=&quot;alert(&#39;1&#39;)&quot;&gt; &amp; co</p>',
    );
    expect(html`<ul>${['a<', 'b'].map((x) => html`<li>${x}</li>`)}</ul>`.text).toBe('<ul><li>a&lt;</li><li>b</li></ul>');
    expect(html`${null}${undefined}${false}${0}${trustedHtml('<br>')}`.text).toBe('0<br>');
  });

  test('safeHref keeps http(s), mailto and site paths; drops javascript:, data: and protocol-relative URLs', () => {
    expect(safeHref('https://github.com/a/b')).toBe('https://github.com/a/b');
    expect(safeHref('/browse?filter=x')).toBe('/browse?filter=x');
    expect(safeHref('mailto:ops@acme.com')).toBe('mailto:ops@acme.com');
    for (const bad of ['javascript:alert(1)', 'JaVaScRiPt:alert(1)', 'data:text/html,x', '//evil.example/x', 'not a url', undefined])
      expect(safeHref(bad)).toBeUndefined();
  });
});

describe('MCP client configuration', () => {
  test('a stdio container image runs with docker', () => {
    const config = mcpClientConfig(server({ metadata: { serverName: 'slack', image: 'mcp/slack', transport: 'stdio' } }));
    expect(config).toEqual({
      serverKey: 'slack',
      launch: { command: 'docker', args: ['run', '-i', '--rm', 'mcp/slack'] },
      readFrom: 'the entry’s container image',
    });
    expect(JSON.parse(mcpClientConfigJson(config!))).toEqual({
      mcpServers: { slack: { command: 'docker', args: ['run', '-i', '--rm', 'mcp/slack'] } },
    });
    expect(mcpClientConfigJson(config!)).toContain('"args": ["run", "-i", "--rm", "mcp/slack"]');
  });

  test('a remote URL is an http or sse server', () => {
    expect(
      mcpClientConfig(server({ metadata: { remoteUrl: 'https://mcp.example.com/mcp', transport: 'streamable-http' } }))?.launch,
    ).toEqual({ type: 'http', url: 'https://mcp.example.com/mcp' });
    expect(mcpClientConfig(server({ metadata: { remoteUrl: 'https://mcp.example.com/sse', transport: 'sse' } }))?.launch).toEqual({
      type: 'sse',
      url: 'https://mcp.example.com/sse',
    });
  });

  test("an inline server card's remotes, then its stdio packages (npm, pypi, oci)", () => {
    const card = (data: Record<string, unknown>) => mcpClientConfig(server({ data, url: undefined }))?.launch;
    expect(card({ remotes: [{ type: 'streamable-http', url: 'https://x.example/mcp' }] })).toEqual({
      type: 'http',
      url: 'https://x.example/mcp',
    });
    expect(card({ packages: [{ registryType: 'npm', identifier: '@acme/mcp', version: '1.2.0', transport: { type: 'stdio' } }] })).toEqual({
      command: 'npx',
      args: ['-y', '@acme/mcp@1.2.0'],
    });
    expect(card({ packages: [{ registryType: 'pypi', identifier: 'acme-mcp' }] })).toEqual({ command: 'uvx', args: ['acme-mcp'] });
    expect(card({ packages: [{ registryType: 'oci', identifier: 'ghcr.io/acme/mcp', version: '2' }] })).toEqual({
      command: 'docker',
      args: ['run', '-i', '--rm', 'ghcr.io/acme/mcp:2'],
    });
    expect(card({ packages: [{ registryType: 'npm', identifier: '@acme/mcp', transport: { type: 'sse' } }] })).toBeUndefined();
  });

  test('no snippet where the entry does not say how the server starts, or for other types', () => {
    expect(mcpClientConfig(server({}))).toBeNull();
    expect(mcpClientConfig(server({ metadata: { image: 'ghcr.io/x/y', transport: 'sse' } }))).toBeNull();
    expect(mcpClientConfig(server({ metadata: { remoteUrl: 'javascript:alert(1)' } }))).toBeNull();
    expect(mcpClientConfig(server({ type: 'application/a2a-agent-card+json', metadata: { image: 'x/y' } }))).toBeNull();
  });

  test('the server key is a slug of serverName, else of the display name', () => {
    expect(mcpClientConfig(server({ displayName: 'Slack (Archived)', metadata: { image: 'mcp/slack' } }))?.serverKey).toBe(
      'slack-archived',
    );
  });
});

describe('page state in the URL', () => {
  test('search: q, federation and page are the page’s own; every other parameter is a filter key', () => {
    const state = readSearchState({ q: ' slack ', federation: 'none', type: MCP, tags: ['a', 'b', 'a', ''], pageToken: 'tok', page: '3' });
    expect(state).toEqual({ q: 'slack', federation: 'none', filter: { type: [MCP], tags: ['a', 'b'] }, pageToken: 'tok', page: 3 });
    expect(readSearchState(Object.fromEntries(new URLSearchParams(searchUrl(state).slice(2)).entries()))).toMatchObject({
      q: 'slack',
      federation: 'none',
      pageToken: 'tok',
      page: 3,
    });
    expect(searchUrl({ q: 'send a message to a slack channel' })).toBe('/?q=send+a+message+to+a+slack+channel');
    expect(readSearchState({ federation: 'everywhere', page: '-1' })).toMatchObject({ q: '', federation: 'auto', page: 1 });
  });

  test('browse: defaults stay out of the URL; unknown page sizes fall back to the default', () => {
    expect(browseUrl(readBrowseState({}))).toBe('/browse');
    expect(readBrowseState({ filter: ' tags:x ', orderBy: 'updatedAt DESC', pageSize: '50' })).toEqual({
      filter: 'tags:x',
      orderBy: 'updatedAt DESC',
      pageSize: 50,
      pageToken: undefined,
      page: 1,
    });
    expect(readBrowseState({ pageSize: '7' }).pageSize).toBe(20);
    expect(browseUrl({ filter: 'tags:x', pageToken: 't', page: 2 })).toBe('/browse?filter=tags%3Ax&pageToken=t&page=2');
  });

  test("listFilterFor quotes the value in the filter language's single quotes, escaping ' and \\", () => {
    expect(listFilterFor('tags', "o'brien\\x")).toBe("tags = 'o\\'brien\\\\x'");
  });
});

describe('labels', () => {
  test('types, fields and publishers read as words; unknown values show as they are', () => {
    expect(typeLabel(MCP)).toBe('MCP server');
    expect(typeLabel('application/x-new')).toBe('application/x-new');
    expect(fieldLabel('trustManifest.attestations.type')).toBe('Attestations');
    expect(fieldLabel('metadata.serverType')).toBe('Server type');
    expect(fieldLabel('registry.verification_state')).toBe('Verification state');
    expect(publisherOf('urn:air:github.com:acme:x')).toBe('github.com');
    expect(entryPath('urn:air:github.com:acme:x')).toBe('/entry/urn:air:github.com:acme:x');
  });
});

describe('PORTAL_FACETS', () => {
  test('defaults to type, tags, publisher and attestations; a list is read in order', () => {
    expect(envToConfig({}).portalFacets).toEqual(DEFAULT_PORTAL_FACETS);
    expect(envToConfig({ PORTAL_FACETS: 'type, metadata.transport ,tags' }).portalFacets).toEqual(['type', 'metadata.transport', 'tags']);
  });

  test.each([
    ['type,type', 'names a field twice'],
    ['type,bad field', "'bad field' is not a field path"],
    [',', 'must name 1 to 20 fields'],
  ])('%s is rejected at start', (value, message) => {
    expect(() => envToConfig({ PORTAL_FACETS: value })).toThrow(ConfigError);
    expect(() => envToConfig({ PORTAL_FACETS: value })).toThrow(message);
  });
});
