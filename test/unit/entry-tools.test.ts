// Reading tools from server and agent cards (src/catalog/entry-tools.ts): which member of which card type, the
// limits, and what is skipped.
import { inlineTools, sameTools, storedTools, TOOL_LIMITS, toolsOfCard } from '../../src/catalog/entry-tools';

const MCP = 'application/mcp-server-card+json';
const A2A = 'application/a2a-agent-card+json';

describe('toolsOfCard', () => {
  it("reads an MCP server card's tools and an A2A agent card's skills (name, else id)", () => {
    const mcp = { tools: [{ name: 'get_forecast', description: ' Forecast for a city. ', inputSchema: { type: 'object' } }] };
    expect(toolsOfCard(MCP, mcp)).toEqual([{ name: 'get_forecast', description: 'Forecast for a city.' }]);
    const a2a = {
      skills: [
        { id: 'route-planner', name: 'Route planner', description: 'Plans a delivery route.', tags: ['maps'] },
        { id: 'eta', description: 'Estimates arrival times.' },
      ],
    };
    expect(toolsOfCard(A2A, a2a)).toEqual([
      { name: 'Route planner', description: 'Plans a delivery route. Tags: maps.' },
      { name: 'eta', description: 'Estimates arrival times.' },
    ]);
    // Each type reads its own member only.
    expect(toolsOfCard(MCP, a2a)).toEqual([]);
    expect(toolsOfCard(A2A, mcp)).toEqual([]);
  });

  it("adds the English senses of a Chinese description's words on a line of their own (cjk-glossary.ts)", () => {
    const card = {
      tools: [
        { name: 'get-douban-rank', description: '提供图书、电影和电视剧信息' },
        { name: 'get-news', description: 'Get the news' },
        { name: 'pokemon', description: 'ポケモンのデータ' },
      ],
    };
    expect(toolsOfCard(MCP, card)).toEqual([
      { name: 'get-douban-rank', description: '提供图书、电影和电视剧信息\noffer; books; movie; TV series; information.' },
      { name: 'get-news', description: 'Get the news' },
      // Kana are not glossed.
      { name: 'pokemon', description: 'ポケモンのデータ' },
    ]);
  });

  it('reads at most TOOL_LIMITS.glossedCharacters Chinese characters of a card for senses: the tools after them get none', () => {
    const long = '〇'.repeat(1000);
    const tools = [1, 2, 3, 4].map((n) => ({ name: `t${n}`, description: long })).concat([{ name: 'news', description: '新闻' }]);
    expect(TOOL_LIMITS.glossedCharacters).toBe(4000);
    expect(toolsOfCard(MCP, { tools }).at(-1)).toEqual({ name: 'news', description: '新闻' });
    expect(toolsOfCard(MCP, { tools: tools.slice(1) }).at(-1)).toEqual({ name: 'news', description: '新闻\nnews.' });
  });

  it("indexes an A2A skill's tags and examples with its description, within the description's limit", () => {
    const card = {
      skills: [
        {
          id: 'invoices',
          description: 'Reconciles invoices.',
          tags: ['finance', ' ', 3, 'accounting'],
          examples: ['match May invoices to the bank statement'],
        },
        { id: 'tagged-only', tags: ['travel'] },
        { id: 'long', description: 'd'.repeat(TOOL_LIMITS.descriptionCharacters), examples: ['cut off'] },
      ],
    };
    expect(toolsOfCard(A2A, card)).toEqual([
      {
        name: 'invoices',
        description: 'Reconciles invoices. Tags: finance, accounting. Examples: match May invoices to the bank statement.',
      },
      { name: 'tagged-only', description: 'Tags: travel.' },
      { name: 'long', description: 'd'.repeat(TOOL_LIMITS.descriptionCharacters) },
    ]);
    // An MCP tool's own members beyond its description are not read.
    expect(toolsOfCard(MCP, { tools: [{ name: 'a', description: 'does a', tags: ['x'] }] })).toEqual([
      { name: 'a', description: 'does a' },
    ]);
  });

  it('gives no tools for other types, cards without a list, or a list announced as dynamic', () => {
    expect(toolsOfCard('application/ai-skill', { tools: [{ name: 'x' }] })).toEqual([]);
    expect(toolsOfCard(MCP, { tools: 'dynamic' })).toEqual([]);
    expect(toolsOfCard(MCP, '<html></html>')).toEqual([]);
    expect(toolsOfCard(MCP, null)).toEqual([]);
  });

  it('skips tools without a name or named twice, and keeps a tool without a description', () => {
    const card = {
      tools: [{ description: 'no name' }, 'text', { name: ' ' }, { name: 'a' }, { name: 'a', description: 'again' }, { name: 'b' }],
    };
    expect(toolsOfCard(MCP, card)).toEqual([
      { name: 'a', description: '' },
      { name: 'b', description: '' },
    ]);
  });

  it('holds a card to TOOL_LIMITS and makes its text storable', () => {
    const many = { tools: Array.from({ length: TOOL_LIMITS.tools + 10 }, (_, i) => ({ name: `t${i}`, description: 'x'.repeat(2000) })) };
    const tools = toolsOfCard(MCP, many);
    expect(tools).toHaveLength(TOOL_LIMITS.tools);
    expect(tools[0].description).toHaveLength(TOOL_LIMITS.descriptionCharacters);
    expect(tools.reduce((n, t) => n + t.description.length, 0)).toBe(TOOL_LIMITS.entryDescriptionCharacters);
    expect(toolsOfCard(MCP, { tools: [{ name: 'n'.repeat(300), description: 'nul\u0000here' }] })).toEqual([
      { name: 'n'.repeat(TOOL_LIMITS.nameCharacters), description: 'nul\uFFFDhere' },
    ]);
  });
});

it('inlineTools reads the card in `data`; storedTools and sameTools read back and compare', () => {
  const entry = {
    identifier: 'urn:air:x.test:mcp:a',
    displayName: 'A',
    type: MCP,
    data: { tools: [{ name: 'a', description: 'does a' }] },
  };
  expect(inlineTools(entry)).toEqual([{ name: 'a', description: 'does a' }]);
  expect(inlineTools({ ...entry, data: undefined, url: 'https://x.test/card.json' })).toEqual([]);
  expect(storedTools([{ name: 'a', description: 'does a' }, { description: 'no name' }, { name: 'b' }])).toEqual([
    { name: 'a', description: 'does a' },
    { name: 'b', description: '' },
  ]);
  expect(storedTools('not a list')).toEqual([]);
  expect(sameTools([{ name: 'a', description: 'x' }], [{ name: 'a', description: 'x' }])).toBe(true);
  expect(sameTools([{ name: 'a', description: 'x' }], [{ name: 'a', description: 'y' }])).toBe(false);
  expect(sameTools([], [{ name: 'a', description: '' }])).toBe(false);
});
