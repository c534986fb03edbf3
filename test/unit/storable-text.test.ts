import { findJsonProblem, storableJson, storableText, unstorableCharacter } from '../../src/storable-text';

describe('unstorableCharacter', () => {
  it.each([
    ['plain', null],
    ['emoji 🌧 (a surrogate pair)', null],
    ['\ud83c\udf27', null],
    ['a\u0000b', 'a NUL character (U+0000)'],
    ['\udfff', 'an unpaired UTF-16 surrogate (\\udfff)'],
    ['x\ud83d', 'an unpaired UTF-16 surrogate (\\ud83d)'],
    ['\ud83d y', 'an unpaired UTF-16 surrogate (\\ud83d)'],
    ['\udc00\ud800', 'an unpaired UTF-16 surrogate (\\udc00)'],
    ['🌧\udc00', 'an unpaired UTF-16 surrogate (\\udc00)'],
  ])('%j -> %j', (text, expected) => {
    expect(unstorableCharacter(text)).toBe(expected);
  });
});

describe('findJsonProblem', () => {
  it('names the path of the string, array positions in brackets', () => {
    expect(findJsonProblem({ a: { b: ['ok', 'x\u0000'] } }, 'entry')).toEqual({
      kind: 'text',
      at: 'entry.a.b[1]',
      problem: 'contains a NUL character (U+0000)',
    });
    expect(findJsonProblem({ query: { text: '\udfff' } }, '')).toEqual({
      kind: 'text',
      at: 'query.text',
      problem: 'contains an unpaired UTF-16 surrogate (\\udfff)',
    });
    expect(findJsonProblem('\u0000', '')).toEqual({ kind: 'text', at: '', problem: 'contains a NUL character (U+0000)' });
  });

  it('names the object whose key holds it', () => {
    expect(findJsonProblem({ metadata: { '\ud800': 1 } }, 'entry')).toEqual({
      kind: 'text',
      at: 'a key in entry.metadata',
      problem: 'contains an unpaired UTF-16 surrogate (\\ud800)',
    });
    expect(findJsonProblem({ 'k\u0000': 1 }, '')).toEqual({ kind: 'text', at: 'a key', problem: 'contains a NUL character (U+0000)' });
  });

  it('reports nesting deeper than the limit, and nothing for storable values of any depth without one', () => {
    const deep = JSON.parse(`${'['.repeat(40)}${']'.repeat(40)}`);
    expect(findJsonProblem(deep, '', 32)).toMatchObject({ kind: 'depth', problem: 'is nested deeper than 32 levels' });
    expect(findJsonProblem(deep, '')).toBeNull();
    expect(findJsonProblem({ a: [1, true, null, { b: 'é 🌧' }] }, 'x', 32)).toBeNull();
  });
});

describe('storableText / storableJson', () => {
  it('replaces NUL and unpaired surrogates with U+FFFD, keeping everything else', () => {
    expect(storableText('a\u0000b')).toBe('a\uFFFDb');
    expect(storableText('x\ud83d y \udc00')).toBe('x\uFFFD y \uFFFD');
    expect(storableText('emoji 🌧 é')).toBe('emoji 🌧 é');
    // A JSON.parse error quoting a NUL byte body, as a crawl report stores it.
    let message = '';
    try {
      JSON.parse('\u0000');
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('\u0000');
    expect(unstorableCharacter(storableText(message))).toBeNull();
  });

  it('walks keys, arrays and nested objects; leaves numbers, booleans and null', () => {
    expect(storableJson({ 'k\u0000': ['\udfff', 1, true, null, { e: 'ok\u0000' }] })).toEqual({
      'k\uFFFD': ['\uFFFD', 1, true, null, { e: 'ok\uFFFD' }],
    });
  });
});
