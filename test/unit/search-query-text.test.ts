import { dedupe, embeddingText, EXPANSION_WEIGHT, expandQuery, loadSynonyms, tokenize } from '../../src/search/query-text';

describe('query normalisation', () => {
  it('lower-cases and keeps product-name punctuation inside words', () => {
    expect(tokenize('Query Node.js, GPT-4 and C++ code!')).toEqual(['query', 'node.js', 'gpt-4', 'and', 'c++', 'code']);
    expect(tokenize('  ')).toEqual([]);
  });

  it('expands a domain abbreviation from synonyms.json into the same concept group', () => {
    const words = expandQuery('k8s pods');
    expect(words).toEqual([
      { group: 0, word: 'k8s', weight: 1 },
      { group: 0, word: 'kubernetes', weight: EXPANSION_WEIGHT },
      { group: 1, word: 'pods', weight: 1 },
    ]);
  });

  it('expands multi-word meanings word by word and keys on two-word phrases', () => {
    const table = loadSynonyms({ pr: ['pull request'], 'vector db': ['embeddings'], _comment: 'ignored' });
    expect(expandQuery('review my PR', table).filter((w) => w.group === 2).map((w) => w.word)).toEqual(['pr', 'pull', 'request']);
    expect(expandQuery('vector db', table).filter((w) => w.group === 0).map((w) => w.word)).toEqual(['vector', 'embeddings']);
    expect(table.has('_comment')).toBe(false);
  });

  it('keeps one alternative per word and concept, with its highest weight', () => {
    expect(dedupe([
      { group: 0, word: 'postgres', weight: 0.9 },
      { group: 0, word: 'postgres', weight: 1 },
      { group: 1, word: 'postgres', weight: 0.9 },
    ])).toEqual([
      { group: 0, word: 'postgres', weight: 1 },
      { group: 1, word: 'postgres', weight: 0.9 },
    ]);
  });

  it('gives the embedder the query plus its expansions, not the words already typed', () => {
    expect(embeddingText('gh issues', expandQuery('gh issues'))).toBe('gh issues (github)');
    expect(embeddingText('github issues', expandQuery('github issues'))).toBe('github issues');
  });
});
