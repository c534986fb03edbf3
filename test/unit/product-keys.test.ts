// Product keys (src/catalog/product-keys.ts) and the collapse by product (src/search/product-collapse.ts): how the
// catalogs' spellings of one repository, package or endpoint agree, and which entries a list keeps.
import { productKeys } from '../../src/catalog/product-keys';
import { collapseByProduct } from '../../src/search/product-collapse';
import type { Match } from '../../src/search/relevance';

describe('productKeys', () => {
  it('reads one repository per entry: the stated one, with its directory, else a url on a code host', () => {
    expect(productKeys({ metadata: { repositoryUrl: 'https://github.com/GitHub/github-mcp-server.git/' } }).repository).toEqual({
      base: 'github.com/github/github-mcp-server',
    });
    expect(
      productKeys({
        url: 'https://github.com/awslabs/mcp',
        metadata: { repositoryUrl: 'https://github.com/awslabs/mcp', sourceDirectory: './src/aws-api/' },
      }).repository,
    ).toEqual({
      base: 'github.com/awslabs/mcp',
      directory: 'src/aws-api',
    });
    expect(productKeys({ url: 'https://github.com/sickn33/skills/tree/main/skills/Address-Comments' }).repository).toEqual({
      base: 'github.com/sickn33/skills',
      directory: 'skills/address-comments',
    });
    expect(
      productKeys({ data: { repository: { url: 'git+https://gitlab.com/acme/tides.git', subfolder: 'servers/tides' } } }).repository,
    ).toEqual({
      base: 'gitlab.com/acme/tides',
      directory: 'servers/tides',
    });
    expect(productKeys({ url: 'git@github.com:acme/tides.git' }).repository).toBeUndefined();
    expect(productKeys({ metadata: { repositoryUrl: 'git@github.com:Acme/tides.git' } }).repository).toEqual({
      base: 'github.com/acme/tides',
    });
    // A url elsewhere is the artifact (a card, an endpoint), not a repository.
    expect(productKeys({ url: 'https://mcp.example.com/v1/mcp' }).repository).toBeUndefined();
  });

  it('reads packages without version or tag, Docker Hub spellings as one', () => {
    expect(productKeys({ metadata: { image: 'docker.io/mcp/everything:latest' } }).packages).toEqual(['oci:mcp/everything']);
    expect(productKeys({ metadata: { image: 'ghcr.io/github/github-mcp-server@sha256:abc123' } }).packages).toEqual([
      'oci:ghcr.io/github/github-mcp-server',
    ]);
    expect(
      productKeys({
        data: {
          packages: [
            { registryType: 'npm', identifier: '@Upstash/context7-mcp', version: '1.0.0' },
            { registry_name: 'pypi', name: 'Mcp_Server.Fetch' },
            { registryType: 'oci', identifier: 'docker.io/library/redis:7' },
            { identifier: 'no-registry' },
          ],
        },
      }).packages,
    ).toEqual(['npm:@upstash/context7-mcp', 'pypi:mcp-server-fetch', 'oci:redis']);
  });

  it('reads remote endpoints as host and path, the transport segment and the case of the host dropped', () => {
    expect(productKeys({ metadata: { remoteUrl: 'https://MCP.Atlassian.com/v1/sse' } }).remotes).toEqual(['remote:mcp.atlassian.com/v1']);
    expect(productKeys({ data: { remotes: [{ url: 'https://mcp.atlassian.com/v1/mcp/' }, { url: 'not a url' }] } }).remotes).toEqual([
      'remote:mcp.atlassian.com/v1',
    ]);
    expect(productKeys({ metadata: { remoteUrl: 'http://localhost:8931/mcp' } }).remotes).toEqual(['remote:localhost:8931']);
  });
});

const MCP = 'application/mcp-server-card+json';
function match(identifier: string, type: string = MCP): Match {
  return { identifier, relevance: 0.5, score: 50, type, semantic: 0, lexical: 0, cosine: 0, topic: 0, agreement: 0 };
}

describe('collapseByProduct', () => {
  it('keeps the first entry of each product in list order, joining entries that share any key transitively', () => {
    const keys = new Map([
      ['a', productKeys({ metadata: { repositoryUrl: 'https://github.com/acme/tides', image: 'ghcr.io/acme/tides:1' } })],
      ['b', productKeys({ metadata: { image: 'ghcr.io/acme/tides:2', remoteUrl: 'https://tides.acme.com/mcp' } })],
      ['c', productKeys({ metadata: { remoteUrl: 'https://tides.acme.com/sse' } })],
      ['d', productKeys({ metadata: { repositoryUrl: 'https://github.com/acme/other' } })],
    ]);
    const { matches, collapsed } = collapseByProduct(
      ['c', 'd', 'a', 'b'].map((id) => match(id)),
      keys,
    );
    expect(matches.map((m) => m.identifier)).toEqual(['c', 'd']);
    expect(Object.fromEntries(collapsed)).toEqual({ c: ['a', 'b'] });
  });

  it('does not join entries of different types', () => {
    const keys = new Map([
      ['server', productKeys({ url: 'https://github.com/acme/tides' })],
      ['paper', productKeys({ url: 'https://github.com/acme/tides' })],
    ]);
    expect(collapseByProduct([match('server'), match('paper', 'application/vnd.alexandria.paper')], keys).matches).toHaveLength(2);
  });

  it('a repository of several servers is no key: two entries with different packages, or an entry naming a directory in it', () => {
    const several = new Map([
      ['github', productKeys({ url: 'https://github.com/modelcontextprotocol/servers', metadata: { image: 'mcp/github' } })],
      ['slack', productKeys({ url: 'https://github.com/modelcontextprotocol/servers', metadata: { image: 'mcp/slack' } })],
    ]);
    expect(collapseByProduct([match('github'), match('slack')], several).matches).toHaveLength(2);
    const directory = new Map([
      [
        'fetch',
        productKeys({ metadata: { repositoryUrl: 'https://github.com/modelcontextprotocol/servers', sourceDirectory: 'src/fetch' } }),
      ],
      ['git', productKeys({ url: 'https://github.com/modelcontextprotocol/servers' })],
      ['time', productKeys({ url: 'https://github.com/modelcontextprotocol/servers' })],
    ]);
    expect(collapseByProduct([match('fetch'), match('git'), match('time')], directory).matches).toHaveLength(3);
    // The same repository with the same package (a tag apart), or with none, is one product.
    const one = new Map([
      [
        'local',
        productKeys({ url: 'https://github.com/github/github-mcp-server', metadata: { image: 'ghcr.io/github/github-mcp-server:v1' } }),
      ],
      [
        'official',
        productKeys({ url: 'https://github.com/github/github-mcp-server', metadata: { image: 'ghcr.io/github/github-mcp-server' } }),
      ],
      [
        'remote',
        productKeys({ url: 'https://github.com/github/github-mcp-server', metadata: { remoteUrl: 'https://api.githubcopilot.com/mcp' } }),
      ],
    ]);
    expect(collapseByProduct([match('local'), match('official'), match('remote')], one).matches.map((m) => m.identifier)).toEqual([
      'local',
    ]);
  });
});
