// English senses for Chinese text (src/catalog/cjk-glossary.ts) and how the dictionary's senses are chosen
// (scripts/build-cjk-glossary.ts): the bundled dictionary, read from data/cjk-glossary/.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cjkGloss, cjkGlossary, MAX_CJK_SENSES, MAX_GLOSSED_CHARACTERS, readCjkGlossary } from '../../src/catalog/cjk-glossary';
import { glossFor, parseProductGlossary } from '../../src/catalog/product-glossary';
import { withEnglishSenses } from '../../src/search/relevance';
import { plainSense } from '../../scripts/build-cjk-glossary';

const NO_PRODUCTS = parseProductGlossary({}, 'no glossary');

describe('cjkGloss', () => {
  test('the longest dictionary word at each place, left to right, each sense once', () => {
    // 新闻 "news" is one word, not 新 "new" + 闻 "hear"; 苹果 "apple" likewise.
    expect(cjkGloss(['获取苹果新闻'])).toBe(`${sense('获取')}; apple; news`);
    expect(cjkGloss(['新闻，新闻'])).toBe('news');
  });

  test('texts are read in order; words outside Chinese runs and unknown characters are skipped', () => {
    expect(cjkGloss(['BBC 新闻', 'The Verge 电影'])).toBe('news; movie');
    expect(cjkGloss(['weather forecast'])).toBe('');
    expect(cjkGloss(['ニュース', '뉴스'])).toBe('');
  });

  test('at most MAX_CJK_SENSES senses', () => {
    // Two-character words of the bundled file, each alone between commas, more than the limit of distinct senses.
    const lines = fs.readFileSync(path.join(__dirname, '..', '..', 'data', 'cjk-glossary', 'cjk-glossary.tsv'), 'utf8').split('\n');
    const words = lines.map((l) => l.split('\t')[0]!).filter((w) => /^\p{Script=Han}{2}$/u.test(w));
    const senses = cjkGloss([words.slice(0, MAX_CJK_SENSES * 3).join('，')]).split('; ');
    expect(senses).toHaveLength(MAX_CJK_SENSES);
  });

  test('the file is read as written: every word found, a word it lacks not, an unsorted file refused', () => {
    const file = path.join(os.tmpdir(), `cjk-glossary-${process.pid}.tsv`);
    fs.writeFileSync(file, '# test\n新闻\tnews\n电影\tmovie\n电视剧\tTV series\n');
    try {
      const glossary = readCjkGlossary(file);
      expect([glossary.size, glossary.sense('新闻'), glossary.sense('电影'), glossary.sense('电视剧'), glossary.sense('电')]).toEqual([
        3,
        'news',
        'movie',
        'TV series',
        undefined,
      ]);
      fs.writeFileSync(file, '电影\tmovie\n新闻\tnews\n');
      expect(() => readCjkGlossary(file)).toThrow("'新闻' is not after '电影': the file must be sorted");
    } finally {
      fs.rmSync(file, { force: true });
    }
  });

  test('at most MAX_GLOSSED_CHARACTERS Chinese characters are read, over all the texts', () => {
    // A run of a character no word starts with (〇 alone is no word of two or more), then 新闻 "news".
    const filler = '〇'.repeat(MAX_GLOSSED_CHARACTERS - 1);
    expect(cjkGloss([`${filler}新闻`])).toBe('');
    expect(cjkGloss([filler, '新闻'])).toBe('');
    expect(cjkGloss([`${filler}新闻`], cjkGlossary(), MAX_GLOSSED_CHARACTERS + 1)).toBe('news');
    expect(cjkGloss([filler.slice(2), '新闻'])).toBe('news');
  });
});

describe('glossFor with Chinese text', () => {
  const entry = (over: Record<string, unknown>) => ({ identifier: 'urn:air:example.com:mcp:x', displayName: 'X', ...over });

  test('an entry described in Chinese is glossed with the English senses of its name, description and tags', () => {
    expect(glossFor(entry({ displayName: '电影 MCP', description: '获取新闻', tags: ['游戏'] }), NO_PRODUCTS)).toBe(
      `movie; ${sense('获取')}; news; game.`,
    );
  });

  test('an entry without Chinese text has no such gloss', () => {
    expect(glossFor(entry({ description: 'Get the news' }), NO_PRODUCTS)).toBe('');
  });

  test("the products' glosses come first", () => {
    const products = parseProductGlossary({ weibo: 'Chinese microblogging service' }, 'test');
    expect(glossFor(entry({ description: 'Weibo 新闻' }), products)).toBe('Chinese microblogging service. news.');
  });
});

describe('withEnglishSenses (a query need as the pipeline searches it)', () => {
  test('a Chinese query keeps its characters for the bigrams, adds their senses, and is embedded in English', () => {
    expect(withEnglishSenses('天气预报')).toEqual({ text: '天气预报\nweather forecast', readableText: 'weather forecast' });
    expect(withEnglishSenses('weibo 热搜 today')).toEqual({
      text: `weibo 热搜 today\n${sense('热搜')}`,
      readableText: `weibo  ${sense('热搜')}  today`,
    });
  });

  test('any other text is searched as written', () => {
    expect(withEnglishSenses('weather forecast')).toEqual({ text: 'weather forecast', readableText: 'weather forecast' });
    expect(withEnglishSenses('ニュース')).toEqual({ text: 'ニュース', readableText: 'ニュース' });
  });
});

describe('plainSense (the dictionary build)', () => {
  test("the first sense that is a plain word or phrase: no surname, cross-reference or measure word; no 'to', no note", () => {
    expect(plainSense(['surname Li', 'plum'])).toBe('plum');
    expect(plainSense(['variant of 裡|里[li3]', 'see 里'])).toBeUndefined();
    expect(plainSense(['to buy; to purchase'])).toBe('buy');
    expect(plainSense(['(of a fruit) to ripen'])).toBe('ripen');
    expect(plainSense(['a long explanation of what this word means in context', 'short'])).toBe('short');
  });
});

function sense(word: string): string {
  const found = cjkGlossary().sense(word);
  if (found === undefined) throw new Error(`${word} is not in the dictionary`);
  return found;
}
