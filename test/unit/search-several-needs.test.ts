import {
  assembleNeedPage,
  isImpliedNeed,
  clauseNeedTexts,
  impliedNeeds,
  IMPLIED_NEEDS,
  MAX_NEEDS,
  MIN_SPLIT_WORDS,
  needTexts,
  type Match,
} from '../../src/search/relevance';

function match(identifier: string, score: number): Match {
  return { identifier, score, relevance: score / 100, type: null, semantic: 0, lexical: 0, cosine: 0, topic: 0, agreement: 0 };
}

describe('need texts: a text that asks for several things', () => {
  it('splits sentences, clauses after a comma and "and then" / "then" / "and" between clauses', () => {
    expect(
      needTexts('Find the trending GitHub repositories. For the top one, read its Deepwiki. Then, draft a Markdown intro document.'),
    ).toEqual(['Find the trending GitHub repositories.', 'For the top one', 'read its Deepwiki.', 'Then draft a Markdown intro document.']);
    expect(needTexts('Read the monthly sales data from the shared spreadsheet and then plot it as a bar chart')).toEqual([
      'Read the monthly sales data from the shared spreadsheet',
      'plot it as a bar chart',
    ]);
  });

  it('splits Chinese text at 。！？； with no space after them, at ，, and at 然后 / 接着 / 并且 after a character', () => {
    // "Look up today's Weibo hot searches, then make a word cloud. Save it to /root/pic/cloud.png"
    expect(needTexts('帮我查一下今天的微博热搜，然后生成一个词云图。保存到 /root/pic/cloud.png')).toEqual([
      '帮我查一下今天的微博热搜',
      '然后生成一个词云图。',
      '保存到 /root/pic/cloud.png',
      'read and write files and directories on the local file system',
    ]);
    expect(needTexts('查一下今天的微博热搜然后生成一个词云图并保存到桌面')).toEqual(['查一下今天的微博热搜', '生成一个词云图并保存到桌面']);
    // One clause, however long, and a short text: one need.
    expect(needTexts('帮我找一个可以查询全国火车票余票的服务')).toEqual([]);
    expect(needTexts('微博热搜。知乎热榜')).toEqual([]);
  });

  it('keeps a single need whole: one clause, a number written with a comma, a file name with a dot', () => {
    expect(needTexts('postgres mcp server')).toEqual([]);
    expect(needTexts('my after-tax income last month was 15,000 CNY and I would like to know my tax')).toEqual([
      'my after-tax income last month was 15,000 CNY',
      'I would like to know my tax',
    ]);
    expect(clauseNeedTexts('please summarise the paper in /root/pdf/WebArena.pdf for me in five short bullet points')).toEqual([]);
  });

  it(`keeps a text of fewer than ${MIN_SPLIT_WORDS} words whole unless it says "then"`, () => {
    expect(needTexts('check why CI failed on my PR and comment on it')).toEqual([]);
    expect(needTexts('find flights to Rome, book a hotel near the station')).toEqual([]);
    expect(needTexts('微博热搜。知乎热榜')).toEqual([]);
  });

  it(`splits a text of fewer than ${MIN_SPLIT_WORDS} words at "then" / "and then" (its steps) and nowhere else`, () => {
    expect(needTexts('post a message in slack and then create a jira ticket')).toEqual(['post a message in slack', 'create a jira ticket']);
    expect(needTexts('if the build fails, then notify me on slack')).toEqual(['if the build fails', 'notify me on slack']);
    // A step of fewer than three words joins the one after it; "and" inside a step does not split it.
    expect(needTexts('fetch the page then summarise it then email it to me')).toEqual(['fetch the page', 'summarise it email it to me']);
    expect(needTexts('read the csv and the json then plot a chart')).toEqual(['read the csv and the json', 'plot a chart']);
    expect(needTexts('查一下北京的天气然后发一封邮件给我')).toEqual(['查一下北京的天气', '发一封邮件给我']);
    // No implied need in a short text, and "then" opening it divides nothing.
    expect(needTexts('then save it to /root/notes/x.md')).toEqual([]);
  });

  it('joins a clause of fewer than three words to the one after it, the last one to the one before', () => {
    expect(needTexts('list the open issues of the repository with their labels and owners, then stop')).toEqual([]);
    expect(needTexts('search the web for the news, please, and save the summary to a file')).toEqual([
      'search the web for the news',
      'please save the summary to a file',
    ]);
  });

  it(`keeps at most ${MAX_NEEDS} needs, the clauses beyond in the last one`, () => {
    const needs = needTexts('fetch the page, extract the images, describe each image, translate the text, write a summary report');
    expect(needs).toHaveLength(MAX_NEEDS);
    expect(needs[MAX_NEEDS - 1]).toBe('translate the text write a summary report');
  });
});

describe('implied needs: what a task needs without naming it', () => {
  const [files, date, page] = IMPLIED_NEEDS.map((implied) => implied.need);

  it('a local file path implies reading and writing files; the need follows the clauses', () => {
    expect(needTexts('Generate a deep report of bitcoin and save it in /root/markdown/bitcoin.md for me to read later')).toEqual([
      'Generate a deep report of bitcoin',
      'save it in /root/markdown/bitcoin.md for me to read later',
      files,
    ]);
    // One clause: the whole text is its need, and the implied one is the only other.
    expect(needTexts('please summarise the paper in /root/pdf/WebArena.pdf for me in five short bullet points')).toEqual([files]);
    for (const path of [
      '~/notes/today.md',
      './out/report.csv',
      '/report.docx',
      '/root/pdf',
      '/home/me/x',
      '~/Downloads',
      'C:\\Users\\me\\plan.xlsx',
      'D:\\work',
    ]) {
      expect(impliedNeeds(`write it to ${path}`)).toEqual([files]);
    }
  });

  it('a slash that is no path implies nothing: "and/or", "24/7", "CI/CD", the path of a web address', () => {
    for (const text of [
      'cats and/or dogs',
      'support 24/7',
      'our CI/CD pipeline',
      'km/h',
      'call /v1/chat/completions',
      'post it on /r/rust',
      'TCP/IP and I/O',
    ]) {
      expect(impliedNeeds(text)).toEqual([]);
    }
    expect(impliedNeeds('summarise https://example.com/blog/post')).toEqual([page]);
  });

  it('a date computed from the day the task runs implies the current date; a remembered or fresh one does not', () => {
    for (const text of [
      'tickets for next Wednesday',
      'a hotel from tomorrow',
      'the last 24h of BTC',
      'over the past 7 days',
      'in 3 days',
      'good dates in the near future',
    ]) {
      expect(impliedNeeds(text)).toEqual([date]);
    }
    for (const text of ["today's news", "in yesterday's call", 'what it told me last week', 'the latest prices', 'the current price']) {
      expect(impliedNeeds(text)).toEqual([]);
    }
  });

  it(`implies nothing in a text of fewer than ${MIN_SPLIT_WORDS} words`, () => {
    expect(needTexts('save it to /root/notes/x.md')).toEqual([]);
  });
});

describe('the coverage-first page of several needs', () => {
  it("opens with the whole text's best, then each need's best not yet placed, then the rest by best score", () => {
    const whole = [match('a', 90), match('b', 80), match('c', 70)];
    const needs = [
      [match('a', 95), match('d', 40)],
      [match('e', 60), match('b', 85)],
    ];
    const page = assembleNeedPage(whole, needs);
    expect(page.map((m) => m.identifier)).toEqual(['a', 'e', 'd', 'b', 'c']);
    // Each entry at its best over the lists, capped by the score before it: the list stays in score order.
    expect(page.map((m) => m.score)).toEqual([95, 60, 40, 40, 40]);
    expect(page.map((m) => m.relevance)).toEqual([0.95, 0.6, 0.4, 0.85, 0.7]);
  });

  it('places the best of the needs the text names before the best of those it implies, whatever their scores', () => {
    const whole = [match('a', 90), match('b', 50)];
    const named = [match('n', 40)];
    const files = [match('fs', 80)];
    expect(assembleNeedPage(whole, [files, named], { implied: [true, false] }).map((m) => m.identifier)).toEqual(['a', 'n', 'fs', 'b']);
    // Without the marks the round is by score alone.
    expect(assembleNeedPage(whole, [files, named]).map((m) => m.identifier)).toEqual(['a', 'fs', 'n', 'b']);
  });

  it('tells the implied needs from the named ones by their text', () => {
    const text = 'summarise the latest bitcoin news, then save the summary to /root/markdown/bitcoin.md';
    expect(needTexts(text).map(isImpliedNeed)).toEqual([false, false, true]);
  });

  it("leaves a need's matches under the cutoff (minimum matches' fill) out of the rounds", () => {
    const page = assembleNeedPage([match('a', 90), match('b', 80)], [[match('weak', 20)]]);
    expect(page.map((m) => m.identifier)).toEqual(['a', 'b', 'weak']);
    expect(page.map((m) => m.score)).toEqual([90, 80, 20]);
  });
});
