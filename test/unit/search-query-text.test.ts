import {
  camelCaseParts,
  cjkBigrams,
  joinedHyphens,
  dedupe,
  urlKey,
  urlsNamedIn,
  embeddingText,
  EXPANSION_WEIGHT,
  expandQuery,
  hostNameLabels,
  identifiersNamedIn,
  loadSynonyms,
  MAX_NAMED_IDENTIFIERS,
  MAX_QUERY_LENGTH,
  SEARCHED_QUERY_LENGTH,
  searchedQueryText,
  RELATED_WORDS,
  SYNONYMS,
  tokenize,
  transpositions,
} from '../../src/search/query-text';

describe('query normalisation', () => {
  it('lower-cases and keeps product-name punctuation inside words', () => {
    expect(tokenize('Query Node.js, GPT-4 and C++ code!')).toEqual(['query', 'node.js', 'gpt-4', 'and', 'c++', 'code']);
    expect(tokenize('  ')).toEqual([]);
  });

  it('expands a domain abbreviation from synonyms.json into the same concept group', () => {
    const words = expandQuery('k8s cluster');
    expect(words).toEqual([
      { group: 0, word: 'k8s', weight: 1 },
      { group: 0, word: 'kubernetes', weight: EXPANSION_WEIGHT },
      { group: 1, word: 'cluster', weight: 1 },
    ]);
  });

  it('adds the related everyday words of related-words.json to the same concept group, marked as guesses', () => {
    expect(expandQuery('rain in lisbon')).toEqual([
      { group: 0, word: 'rain', weight: 1 },
      { group: 0, word: 'weather', weight: EXPANSION_WEIGHT, correction: true },
      { group: 1, word: 'in', weight: 1 },
      { group: 2, word: 'lisbon', weight: 1 },
    ]);
    const related = loadSynonyms({ pictures: ['images'] });
    expect(expandQuery('pictures', SYNONYMS, related)).toEqual([
      { group: 0, word: 'pictures', weight: 1 },
      { group: 0, word: 'images', weight: EXPANSION_WEIGHT, correction: true },
    ]);
    // A synonym and a related word naming the same word: the synonym (not a guess) is kept.
    expect(expandQuery('pg', loadSynonyms({ pg: ['postgres'] }), loadSynonyms({ pg: ['postgres', 'database'] }))).toEqual([
      { group: 0, word: 'pg', weight: 1 },
      { group: 0, word: 'postgres', weight: EXPANSION_WEIGHT },
      { group: 0, word: 'database', weight: EXPANSION_WEIGHT, correction: true },
    ]);
  });

  it('expands multi-word meanings word by word and keys on two-word phrases', () => {
    const table = loadSynonyms({ pr: ['pull request'], 'vector db': ['embeddings'], _comment: 'ignored' });
    expect(
      expandQuery('review my PR', table)
        .filter((w) => w.group === 2)
        .map((w) => w.word),
    ).toEqual(['pr', 'pull', 'request']);
    expect(
      expandQuery('vector db', table)
        .filter((w) => w.group === 0)
        .map((w) => w.word),
    ).toEqual(['vector', 'embeddings']);
    expect(table.has('_comment')).toBe(false);
  });

  it('keys on phrases of up to three words, attached to the concept of their first word', () => {
    const table = loadSynonyms({ 'making things up': ['grounding'] });
    const words = expandQuery('my agent keeps making things up', SYNONYMS, table);
    expect(words.filter((w) => w.correction)).toEqual([{ group: 3, word: 'grounding', weight: EXPANSION_WEIGHT, correction: true }]);
    // The words of the phrase must be adjacent and in order.
    expect(expandQuery('making up things', SYNONYMS, table).some((w) => w.correction)).toBe(false);
    // The shipped table's three-word keys are reached the same way.
    expect(
      expandQuery('stop it making things up')
        .filter((w) => w.correction)
        .map((w) => w.word),
    ).toEqual(['grounding', 'factuality']);
  });

  it('no key is both a synonym and a related word (the synonym would silently win)', () => {
    expect([...RELATED_WORDS.keys()].filter((k) => SYNONYMS.has(k))).toEqual([]);
  });

  it('keeps one alternative per word and concept, with its highest weight', () => {
    expect(
      dedupe([
        { group: 0, word: 'postgres', weight: 0.9 },
        { group: 0, word: 'postgres', weight: 1 },
        { group: 1, word: 'postgres', weight: 0.9 },
      ]),
    ).toEqual([
      { group: 0, word: 'postgres', weight: 1 },
      { group: 1, word: 'postgres', weight: 0.9 },
    ]);
  });

  it('gives the embedder the query plus its expansions, not the words already typed', () => {
    expect(embeddingText('gh issues', expandQuery('gh issues'))).toBe('gh issues (github)');
    expect(embeddingText('github issues', expandQuery('github issues'))).toBe('github issues');
  });
});

describe('identifiersNamedIn', () => {
  it("finds ARD identifiers in a query, as written, without a sentence's full stop, once each", () => {
    expect(
      identifiersNamedIn(
        'compare urn:air:github.com:PagerDuty:pagerduty-mcp-server with urn:air:example.com:a:b.c. And urn:air:github.com:PagerDuty:pagerduty-mcp-server again',
      ),
    ).toEqual(['urn:air:github.com:PagerDuty:pagerduty-mcp-server', 'urn:air:example.com:a:b.c']);
  });

  it('ignores what is not an identifier: other URN namespaces, a bare prefix, text glued before it', () => {
    expect(identifiersNamedIn('urn:isbn:0451450523 urn:air:example.com xurn:air:example.com:a:b postgres')).toEqual([]);
  });

  it(`looks up at most ${MAX_NAMED_IDENTIFIERS}`, () => {
    const many = Array.from({ length: 15 }, (_, i) => `urn:air:example.com:t:${i}`).join(' ');
    expect(identifiersNamedIn(many)).toHaveLength(MAX_NAMED_IDENTIFIERS);
  });
});

describe('hostNameLabels', () => {
  it.each([
    ['stripe.com', ['stripe']],
    ['mcp.morningstar.com', ['morningstar']],
    ['www.notion.so', ['notion']],
    ['api.github.com', ['github']],
    ['draw.io', ['draw']],
    ['node.js', []],
    ['gpt-4', []],
    ['postgres', []],
  ])('%s -> %j', (word, labels) => {
    expect(hostNameLabels(word)).toEqual(labels);
  });
});

describe('synonyms.json abbreviations', () => {
  it.each([
    ['gdrive', 'drive'],
    ['gcal', 'calendar'],
    ['o365', 'microsoft'],
    ['sfdc', 'salesforce'],
    ['bq', 'bigquery'],
    ['otel', 'opentelemetry'],
    ['ppt', 'powerpoint'],
    ['pptx', 'powerpoint'],
    ['xls', 'excel'],
  ])('%s expands to %s in its own concept', (word, expansion) => {
    expect(expandQuery(`${word} export`)).toEqual(expect.arrayContaining([{ group: 0, word: expansion, weight: EXPANSION_WEIGHT }]));
  });
});

describe('camelCaseParts', () => {
  it.each([
    ['getWeatherForecast', ['get', 'weather', 'forecast']],
    ['listIssues', ['list', 'issues']],
    ['GitHub', ['git', 'hub']],
    ['CoT', []],
    ['Agent2Agent', []],
    ['40GB', []],
    ['postgres', []],
  ])('%s -> %j', (word, parts) => {
    expect(camelCaseParts(word)).toEqual(parts);
  });

  it('expandQuery keeps them, and host labels, on the typed word for relevance.ts to check against the corpus', () => {
    expect(expandQuery('getWeatherForecast on stripe.com').filter((w) => w.parts)).toEqual([
      { group: 0, word: 'getweatherforecast', weight: 1, parts: ['get', 'weather', 'forecast'] },
      { group: 2, word: 'stripe.com', weight: 1, parts: ['stripe'] },
    ]);
  });
});

describe('urlsNamedIn', () => {
  it('finds web addresses with a scheme, or a host name with a path, in the form they are compared in', () => {
    expect(
      urlsNamedIn(
        'compare https://GitHub.com/microsoft/playwright-mcp/ with github.com/stripe/agent-toolkit.git, and http://www.example.com.',
      ),
    ).toEqual(['github.com/microsoft/playwright-mcp', 'github.com/stripe/agent-toolkit', 'example.com']);
    expect(urlsNamedIn('stripe.com postgres node.js user@example.com')).toEqual([]);
  });

  it('an arXiv identifier names its abstract page; version-like numbers do not', () => {
    expect(urlsNamedIn('ReAct (arXiv:2210.03629v2) and 2303.11366')).toEqual(['arxiv.org/abs/2210.03629', 'arxiv.org/abs/2303.11366']);
    expect(urlsNamedIn('python 3.12, release 2024.01, build 1234.567890, v2210.03629')).toEqual([]);
  });

  it('urlKey drops what does not change the address', () => {
    expect(urlKey('HTTPS://www.Example.com/Repo.git/')).toBe('example.com/repo');
    expect(urlKey('https://mcp.stripe.com')).toBe('mcp.stripe.com');
  });
});

describe('joinedHyphens', () => {
  it.each([
    ['pager-duty', ['pagerduty']],
    ['mongo-db', ['mongodb']],
    ['tool-agent-user', ['toolagentuser']],
    ['gpt-4', ['gpt4']],
    ['node.js', []],
    ['postgres', []],
  ])('%s -> %j', (word, joined) => {
    expect(joinedHyphens(word)).toEqual(joined);
  });
});

describe('transpositions', () => {
  it('lists each word one swap of adjacent letters away, once, never the word itself', () => {
    expect(transpositions('pyhton')).toEqual(['yphton', 'phyton', 'python', 'pyhotn', 'pyhtno']);
    expect(transpositions('book')).toEqual(['obok', 'boko']);
    expect(transpositions('aaaa')).toEqual([]);
  });

  it('only for words of letters: numbers, dots and hyphens are not typos of this kind', () => {
    expect(transpositions('gpt-4')).toEqual([]);
    expect(transpositions('node.js')).toEqual([]);
    expect(transpositions('émial')).toContain('méial');
  });
});

describe('searchedQueryText', () => {
  it('keeps a text of SEARCHED_QUERY_LENGTH characters or fewer as it is, trimmed', () => {
    expect(searchedQueryText('  weather in lisbon \n')).toEqual({ text: 'weather in lisbon' });
    const exact = 'word '.repeat(400).trim();
    expect(searchedQueryText(exact)).toEqual({ text: exact });
  });

  it('cuts a longer text at the last space before the limit, never inside a word', () => {
    const text = `${'alpha '.repeat(333)}omegaword tail`;
    const { text: searched, cutFrom } = searchedQueryText(text);
    expect(cutFrom).toBe(text.length);
    expect(searched).toBe('alpha '.repeat(333).trim());
    expect(searched.length).toBeLessThanOrEqual(SEARCHED_QUERY_LENGTH);
  });

  it('cuts at the limit when the second half has no space, never between the halves of a surrogate pair', () => {
    const blob = `what is this ${'A'.repeat(5000)}`;
    expect(searchedQueryText(blob).text).toBe(blob.slice(0, SEARCHED_QUERY_LENGTH));
    const emoji = `x${'🌧'.repeat(3000)}`; // the 2000th code unit is the first half of a pair
    const { text } = searchedQueryText(emoji);
    expect(text.length).toBe(SEARCHED_QUERY_LENGTH - 1);
    expect(text.endsWith('🌧')).toBe(true);
  });

  it(`refuses an empty text and one longer than ${MAX_QUERY_LENGTH} characters, naming the limit`, () => {
    expect(() => searchedQueryText(' \n ')).toThrow('query.text must not be empty');
    expect(() => searchedQueryText('y'.repeat(MAX_QUERY_LENGTH + 1))).toThrow(
      `query.text is ${MAX_QUERY_LENGTH + 1} characters long; at most ${MAX_QUERY_LENGTH} are accepted`,
    );
    expect(searchedQueryText('y'.repeat(MAX_QUERY_LENGTH)).cutFrom).toBe(MAX_QUERY_LENGTH);
  });
});

describe('CJK text', () => {
  it('reads a run of Chinese, Japanese or Korean characters as overlapping bigrams, other words as before', () => {
    expect(tokenize('获取微博热搜榜，包含 get-weibo-trending')).toEqual([
      '获取',
      '取微',
      '微博',
      '博热',
      '热搜',
      '搜榜',
      '包含',
      'get-weibo-trending',
    ]);
    expect(tokenize('ポケモン 검색엔진')).toEqual(['ポケ', 'ケモ', 'モン', '검색', '색엔', '엔진']);
    // A single character is itself; a run inside a word splits it where the script changes.
    expect(tokenize('获取36氪热榜 氪 node.js微博')).toEqual(['获取', '36', '氪热', '热榜', '氪', 'node.js', '微博']);
    expect(cjkBigrams('热')).toEqual(['热']);
  });
});
