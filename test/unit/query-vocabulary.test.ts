import fs from 'node:fs';
import path from 'node:path';
import relatedWordsJson from '../../src/search/related-words.json';
import synonymsJson from '../../src/search/synonyms.json';
import { ConfigError } from '../../src/config';
import { expandQuery, loadSynonyms, parseVocabularyTable, RELATED_WORDS, SYNONYMS, VocabularyFileError } from '../../src/search/query-text';
import { BUNDLED_VOCABULARY, extendTable, loadQueryVocabulary, MAX_VOCABULARY_FILE_BYTES } from '../../src/search/query-vocabulary';
import { useTempDir } from '../helpers/temp-dir';

describe('parseVocabularyTable', () => {
  it('keeps keys as the query tokenizer writes them (case aside), skips comments, allows an empty list', () => {
    const table = parseVocabularyTable(
      { _comment: 'ours', K8S: ['Kubernetes'], 'making things up': ['grounding'], 'node.js': ['javascript'], lawn: [] },
      'f.json',
    );
    expect([...table]).toEqual([
      ['k8s', ['kubernetes']],
      ['making things up', ['grounding']],
      ['node.js', ['javascript']],
      ['lawn', []],
    ]);
  });

  it.each([
    [[], /f\.json: must be a JSON object/],
    ['text', /f\.json: must be a JSON object/],
    [{ '!!': ['x'] }, /f\.json: the key '!!' has no word in it/],
    [{ 'one two three four': ['x'] }, /the key 'one two three four' has 4 words; a key has at most 3/],
    [{ 'tl;dr': ['summary'] }, /the key 'tl;dr' would match the query words 'tl dr'; write it that way/],
    [{ 'etc.': ['x'] }, /the key 'etc\.' would match the query words 'etc'/],
    [{ K8s: ['kubernetes'], k8s: ['kubernetes'] }, /f\.json: the key 'k8s' is given twice/],
    [{ k8s: 'kubernetes' }, /the value of 'k8s' must be a list of words or phrases/],
    [{ k8s: ['kubernetes', 8] }, /the value of 'k8s' must be a list/],
    [{ k8s: ['  '] }, /the value of 'k8s' must be a list/],
  ])('rejects %j, naming the file and the key', (raw, message) => {
    expect(() => parseVocabularyTable(raw, 'f.json')).toThrow(message);
    expect(() => parseVocabularyTable(raw, 'f.json')).toThrow(VocabularyFileError);
  });

  it.each([
    ['synonyms.json', synonymsJson as unknown],
    ['related-words.json', relatedWordsJson as unknown],
  ])('accepts the bundled %s as an operator file, every key as the tokenizer writes it', (name, raw) => {
    const table = parseVocabularyTable(raw, name);
    expect(table.size).toBe(Object.keys(raw as object).filter((k) => !k.startsWith('_')).length);
    expect([...table.keys()]).toEqual(Object.keys(raw as object).filter((k) => !k.startsWith('_')));
    expect([...table.values()].every((v) => v.length > 0)).toBe(true);
  });
});

describe('extendTable', () => {
  it('adds keys, replaces a given key and removes one given an empty list, leaving the base as it was', () => {
    const base = loadSynonyms({ db: ['database'], repo: ['repository'] });
    const extended = extendTable(
      base,
      new Map([
        ['db', ['datastore']],
        ['repo', []],
        ['tf', ['terraform']],
      ]),
    );
    expect([...extended]).toEqual([
      ['db', ['datastore']],
      ['tf', ['terraform']],
    ]);
    expect([...base]).toEqual([
      ['db', ['database']],
      ['repo', ['repository']],
    ]);
  });
});

describe('loadQueryVocabulary', () => {
  const dir = useTempDir('ard-vocabulary-');

  it('is the bundled tables without files', async () => {
    const vocabulary = await loadQueryVocabulary({ synonymsFile: null, relatedWordsFile: null });
    expect(vocabulary).toEqual(BUNDLED_VOCABULARY);
    expect(vocabulary.synonyms).toBe(SYNONYMS);
    expect(vocabulary.related).toBe(RELATED_WORDS);
  });

  it('extends each bundled table with its file, and query expansion follows', async () => {
    const vocabulary = await loadQueryVocabulary({
      synonymsFile: dir.write('synonyms.json', JSON.stringify({ zorblax: ['automower'], k8s: ['kubernetes', 'cluster'] })),
      relatedWordsFile: dir.write('related.json', JSON.stringify({ rain: [] })),
    });
    expect(vocabulary.synonyms.get('zorblax')).toEqual(['automower']);
    expect(vocabulary.synonyms.get('k8s')).toEqual(['kubernetes', 'cluster']);
    expect(vocabulary.synonyms.get('db')).toEqual(SYNONYMS.get('db'));
    expect(vocabulary.related.has('rain')).toBe(false);
    expect(RELATED_WORDS.get('rain')).toEqual(['weather']);
    expect(expandQuery('zorblax', vocabulary.synonyms, vocabulary.related).map((w) => w.word)).toEqual(['zorblax', 'automower']);
    expect(expandQuery('rain', vocabulary.synonyms, vocabulary.related).map((w) => w.word)).toEqual(['rain']);
  });

  it('stops with a message naming the setting and the file: missing, not JSON, too large, a bad key', async () => {
    const missing = path.join(dir.path, 'missing.json');
    await expect(loadQueryVocabulary({ synonymsFile: missing, relatedWordsFile: null })).rejects.toThrow(
      new RegExp(`^SEARCH_SYNONYMS_FILE \\(${missing}\\): cannot be read`),
    );
    const notJson = dir.write('broken.json', '{"k8s": [');
    await expect(loadQueryVocabulary({ synonymsFile: null, relatedWordsFile: notJson })).rejects.toThrow(
      /^SEARCH_RELATED_WORDS_FILE \(.*broken\.json\): not valid JSON/,
    );
    const large = path.join(dir.path, 'large.json');
    fs.writeFileSync(large, '');
    fs.truncateSync(large, MAX_VOCABULARY_FILE_BYTES + 1);
    await expect(loadQueryVocabulary({ synonymsFile: large, relatedWordsFile: null })).rejects.toThrow(/large\.json\): \d+ bytes; at most/);
    const badKey = dir.write('bad-key.json', JSON.stringify({ 'tl;dr': ['summary'] }));
    const error = await loadQueryVocabulary({ synonymsFile: badKey, relatedWordsFile: null }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(
      /^SEARCH_SYNONYMS_FILE \(.*bad-key\.json\): the key 'tl;dr' would match the query words 'tl dr'/,
    );
    await expect(loadQueryVocabulary({ synonymsFile: dir.path, relatedWordsFile: null })).rejects.toThrow(/: not a file$/);
  });
});
