// Chinese, Japanese and Korean text (migration 0022, docs/relevance.md "Terms"): runs of those scripts are read as
// overlapping character bigrams on both sides, so a query finds an entry by any part of a run, its tools named in
// `@matchedTools`; text in other scripts is indexed exactly as before. Real PostgreSQL, the demo corpus beside.
import { sql } from 'kysely';
import type { CatalogEntry } from '../../src/catalog/catalog-entry';
import { glossFor } from '../../src/catalog/product-glossary';
import { setSetting } from '../../src/db/settings';
import { GLOSSARY_VERSION_SETTING, refreshGlosses } from '../../src/embedding/gloss-refresh';
import { ingestManifest } from '../../src/ingest/ingest-manifest';
import { startTestRegistry, type TestRegistry } from '../helpers/registry';

const MCP = 'application/mcp-server-card+json';
const TRENDS = 'urn:air:trends.test:mcp:hot-lists';
const WEATHER_JA = 'urn:air:tenki.test:mcp:forecast';
const SEARCH_KO = 'urn:air:geomsaek.test:mcp:search';
const TRAINS = 'urn:air:huoche.test:mcp:tickets';

let registry: TestRegistry;
beforeAll(async () => {
  registry = await startTestRegistry({ config: { rateLimitPerMinute: 0 } });
  const report = await ingestManifest(
    { db: registry.ctx.db, embedder: registry.ctx.embedder },
    {
      specVersion: '1.0',
      entries: [
        {
          identifier: TRENDS,
          displayName: 'Hot Lists',
          type: MCP,
          description: '聚合各大平台的实时热门榜单，一站式查看全网趋势',
          data: {
            name: 'Hot Lists',
            tools: [
              { name: 'get-weibo-trending', description: '获取微博热搜榜，包含时事热点、娱乐新闻和网络热议话题' },
              { name: 'get-zhihu-trending', description: '获取知乎热榜，包含热门问答和讨论' },
              { name: 'get-douban-rank', description: '获取豆瓣实时热门榜单，提供图书、电影和电视剧信息' },
            ],
          },
        },
        {
          identifier: WEATHER_JA,
          displayName: '天気予報サーバー',
          type: MCP,
          description: '日本各地の天気予報と気温を取得します',
          url: 'https://tenki.test/mcp',
        },
        {
          // Chinese alone: "look up train tickets left across the country, and train timetables".
          identifier: TRAINS,
          displayName: '12306 车票',
          type: MCP,
          description: '查询全国火车票余票和列车时刻表',
          url: 'https://huoche.test/mcp',
        },
        {
          identifier: SEARCH_KO,
          displayName: '웹 검색 서버',
          type: MCP,
          description: '네이버 검색 결과를 가져옵니다',
          url: 'https://geomsaek.test/mcp',
        },
      ],
    },
    { origin: 'test:search-cjk' },
  );
  expect(report.rejected).toEqual([]);
});
afterAll(() => registry.close());

async function search(text: string): Promise<Array<{ identifier: string; score: number; '@matchedTools': string[] }>> {
  const response = await registry.post('/search', { query: { text }, pageSize: 10, federation: 'none' });
  expect(response.status).toBe(200);
  return response.body.results;
}

it('finds an entry by a part of a Chinese run its tool descriptions hold, naming the tool', async () => {
  // "Weibo hot searches": written inside 获取微博热搜榜 ("get the Weibo hot-search list"), never as a word of its own.
  const weibo = await search('微博热搜');
  expect(weibo[0]!.identifier).toBe(TRENDS);
  expect(weibo[0]!['@matchedTools'][0]).toBe('get-weibo-trending');
  const douban = await search('豆瓣电影排行');
  expect(douban[0]!.identifier).toBe(TRENDS);
  expect(douban[0]!['@matchedTools'][0]).toBe('get-douban-rank');
  // A sentence, as a person asks: "help me look up today's Weibo hot searches"; most of its bigrams straddle two
  // words and the corpus holds none of them.
  expect((await search('帮我查一下今天的微博热搜'))[0]!.identifier).toBe(TRENDS);
  // Its own description, and a query mixing scripts.
  expect((await search('全网趋势'))[0]!.identifier).toBe(TRENDS);
  expect((await search('weibo 热搜'))[0]!.identifier).toBe(TRENDS);
});

it('an English query finds an entry described in Chinese alone, through the English senses of its words', async () => {
  // 车票 "ticket" (its name), 火车票 "train ticket", 列车 "train", 时刻表 "timetable": the entry's gloss (cjk-glossary.ts).
  expect((await search('train ticket timetable'))[0]!.identifier).toBe(TRAINS);
  const { rows } = await sql<{ gloss: string }>`SELECT gloss FROM entries WHERE identifier = ${TRAINS}`.execute(registry.ctx.db);
  expect(rows[0]!.gloss).toBe('ticket; check; whole nation; train ticket; train; timetable.');
});

it("an English query finds a server by its tools' Chinese descriptions, naming the tool", async () => {
  // 图书 "books", 电视剧 "TV series": only get-douban-rank's description holds them.
  const found = await search('popular books and TV series');
  expect(found[0]!.identifier).toBe(TRENDS);
  expect(found[0]!['@matchedTools'][0]).toBe('get-douban-rank');
});

it('a Chinese query finds entries written in English, through the English senses of its words', async () => {
  // 天气预报 "weather forecast", 翻译文本 "translate; text", 网页搜索 "web page; search": the demo corpus's entries.
  for (const [chinese, english] of [
    ['天气预报', 'weather forecast'],
    ['翻译文本', 'translate text'],
    ['网页搜索', 'web page search'],
  ]) {
    const [first] = await search(chinese);
    expect(first!.identifier).toBe((await search(english))[0]!.identifier);
    expect(first!.score).toBeGreaterThanOrEqual(50);
  }
  // A tool is named by the sense that matched it: 数据库 "database" in query_database.
  const database = await search('数据库');
  expect(database[0]!['@matchedTools']).toContain('query_database');
});

it('stored glosses gain the English senses when the glossary they were written with is older', async () => {
  // A database written before the senses: the entry's gloss without them, the glossary version of then.
  await sql`UPDATE entries SET gloss = '' WHERE identifier = ${TRAINS}`.execute(registry.ctx.db);
  await setSetting(registry.ctx.db, GLOSSARY_VERSION_SETTING, 'before-cjk-senses');
  expect((await search('train ticket timetable')).map((r) => r.identifier)).not.toContain(TRAINS);
  const refreshed = await refreshGlosses(registry.ctx.db, registry.ctx.embedder);
  expect(refreshed).toMatchObject({ ran: true, completed: true, changed: 1 });
  const { rows } = await sql<{ gloss: string; entry: CatalogEntry }>`SELECT gloss, entry FROM entries WHERE identifier = ${TRAINS}`.execute(
    registry.ctx.db,
  );
  expect(rows[0]!.gloss).toBe(glossFor(rows[0]!.entry));
  expect((await search('train ticket timetable'))[0]!.identifier).toBe(TRAINS);
});

it('finds Japanese and Korean entries by a word of their name or description', async () => {
  expect((await search('天気予報'))[0]!.identifier).toBe(WEATHER_JA);
  expect((await search('気温'))[0]!.identifier).toBe(WEATHER_JA);
  expect((await search('검색'))[0]!.identifier).toBe(SEARCH_KO);
});

it('a CJK query about something no entry holds finds none of them', async () => {
  const ids = (await search('股票行情')).map((r) => r.identifier); // "stock quotes"
  expect(ids).not.toContain(TRENDS);
  expect(ids).not.toContain(WEATHER_JA);
  expect(ids).not.toContain(SEARCH_KO);
});

it('stores bigrams for CJK runs and leaves other text as PostgreSQL reads it', async () => {
  const { rows } = await sql<{ lexemes: string[] }>`SELECT rank_lexemes AS lexemes FROM entries WHERE identifier = ${TRENDS}`.execute(
    registry.ctx.db,
  );
  expect(rows[0]!.lexemes).toEqual(expect.arrayContaining(['微博', '博热', '热搜', '全网', '趋势', 'weibo', 'trend']));
  expect(rows[0]!.lexemes).not.toContain('获取微博热搜榜');
  const same = await sql<{ same: boolean; bigrams: string }>`
    SELECT ard_cjk_bigrams('Query Node.js, GPT-4 and C++ code!') = 'Query Node.js, GPT-4 and C++ code!' AS same,
           ard_cjk_bigrams('获取36氪热榜 ポケモン') AS bigrams`.execute(registry.ctx.db);
  expect(same.rows[0]!.same).toBe(true);
  expect(same.rows[0]!.bigrams.trim().split(/\s+/)).toEqual(['36', '获取', '氪热', '热榜', 'ポケ', 'ケモ', 'モン']);
});
