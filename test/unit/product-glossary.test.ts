// The product glossary (src/catalog/product-glossary.ts): the bundled file's shape, the checks a glossary
// gets, which keys an entry names, and what the doc vector embeds.
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../../src/config';
import {
  glossaryWords,
  glossFor,
  loadProductGlossary,
  MAX_GLOSSARY_FILE_BYTES,
  MAX_GLOSS_WORDS,
  MAX_GLOSSES_PER_ENTRY,
  MAX_KEY_WORDS,
  parseProductGlossary,
  PRODUCT_GLOSSARY,
  ProductGlossaryError,
} from '../../src/catalog/product-glossary';
import { searchableText } from '../../src/catalog/catalog-entry';
import { entryEmbeddingTexts } from '../../src/embedding/entry-texts';
import { useTempDir } from '../helpers/temp-dir';
import glossaryJson from '../../src/catalog/product-glosses.json';

const glossary = parseProductGlossary(
  {
    _comment: 'test glossary',
    ros2: 'robot operating system framework',
    'close.com': 'sales CRM for small teams',
    aws: 'Amazon cloud services',
    'aws bedrock': 'managed foundation models on Amazon',
    github: 'code hosting and pull requests',
    redis: 'in-memory key-value store.',
    kafka: 'event streaming platform',
    neo4j: 'graph database',
  },
  'test.json',
);

function entry(fields: { identifier?: string; displayName?: string; description?: string; tags?: string[]; capabilities?: string[] }) {
  return { identifier: 'urn:air:example.com:x', displayName: 'X', ...fields };
}

describe('the bundled product-glosses.json', () => {
  it('loads: hundreds of keys, each of at most MAX_KEY_WORDS words, each gloss at most MAX_GLOSS_WORDS words', () => {
    expect(PRODUCT_GLOSSARY.glosses.size).toBeGreaterThan(400);
    expect(PRODUCT_GLOSSARY.glosses.size).toBe(Object.keys(glossaryJson).filter((k) => !k.startsWith('_')).length);
    for (const [key, gloss] of PRODUCT_GLOSSARY.glosses) {
      expect(key.split(' ').length).toBeLessThanOrEqual(MAX_KEY_WORDS);
      expect(glossaryWords(gloss).length).toBeLessThanOrEqual(MAX_GLOSS_WORDS);
    }
  });

  it('glosses what a thin entry names (its products, never its code host)', () => {
    const gloss = glossFor({
      identifier: 'urn:air:github.com:nokia:mcp-redfish',
      displayName: 'mcp-redfish',
      description: 'Natural language interface for managing infrastructure via Redfish API',
    });
    expect(gloss).toBe(`${PRODUCT_GLOSSARY.glosses.get('redfish')!.replace(/[.\s]+$/, '')}.`);
    expect(gloss).not.toContain(PRODUCT_GLOSSARY.glosses.get('github')!.slice(0, 20));
  });
});

describe('parseProductGlossary: a bad glossary is refused, naming the key', () => {
  const bad: Array<[string, unknown, RegExp]> = [
    ['not an object', ['ros2'], /must be a JSON object/],
    ['a key with no word', { '--': 'x y' }, /the key '--' has no word/],
    ['a key of too many words', { 'one two three four five': 'a gloss' }, /'one two three four five' has 5 words; a key has at most 4/],
    [
      'two keys with the same words',
      { 'close.com': 'a', 'close com': 'b' },
      /the key 'close com' matches the same words as another key \('close com'\)/,
    ],
    ['a gloss that is not a string', { ros2: ['robot'] }, /the gloss of 'ros2' must be a non-empty string/],
    ['an empty gloss', { ros2: ' . ' }, /the gloss of 'ros2' must be a non-empty string/],
    [
      'a gloss too long',
      { ros2: 'word '.repeat(MAX_GLOSS_WORDS + 1) },
      new RegExp(`the gloss of 'ros2' has ${MAX_GLOSS_WORDS + 1} words; a gloss has at most ${MAX_GLOSS_WORDS}`),
    ],
  ];
  it.each(bad)('%s', (_label, raw, message) => {
    expect(() => parseProductGlossary(raw, 'glossary.json')).toThrow(ProductGlossaryError);
    expect(() => parseProductGlossary(raw, 'glossary.json')).toThrow(message);
    expect(() => parseProductGlossary(raw, 'glossary.json')).toThrow(/^glossary\.json: /);
  });
});

describe('the glossary version', () => {
  it('is the same for the same keys and glosses in any order, and changes with any gloss', () => {
    const a = parseProductGlossary({ ros2: 'robots', kafka: 'streams' }, 'a');
    expect(parseProductGlossary({ kafka: 'streams', ros2: 'robots', _note: 'comments do not count' }, 'b').version).toBe(a.version);
    expect(parseProductGlossary({ ros2: 'robots!', kafka: 'streams' }, 'c').version).not.toBe(a.version);
    expect(parseProductGlossary({ ros2: 'robots' }, 'd').version).not.toBe(a.version);
  });
});

describe('glossFor: the keys an entry names', () => {
  it('matches whole words only, in any field, case and punctuation aside', () => {
    expect(glossFor(entry({ description: 'Bridge to ROS2 topics' }), glossary)).toBe('robot operating system framework.');
    expect(glossFor(entry({ tags: ['Kafka'] }), glossary)).toBe('event streaming platform.');
    expect(glossFor(entry({ capabilities: ['neo4j_query'] }), glossary)).toBe('graph database.');
    expect(glossFor(entry({ description: 'ros20 and kafkaesque redistribution' }), glossary)).toBe('');
  });

  it('prefers the longest key at a place ("aws bedrock" over "aws"), and a lone "aws" elsewhere is its own key', () => {
    expect(glossFor(entry({ displayName: 'AWS Bedrock agents' }), glossary)).toBe('managed foundation models on Amazon.');
    expect(glossFor(entry({ displayName: 'AWS Bedrock agents', description: 'runs on AWS' }), glossary)).toBe(
      'managed foundation models on Amazon. Amazon cloud services.',
    );
  });

  it('names each key once, in the order first named (name first), at most MAX_GLOSSES_PER_ENTRY', () => {
    expect(MAX_GLOSSES_PER_ENTRY).toBe(3);
    const many = entry({
      displayName: 'Neo4j bridge',
      description: 'Reads Kafka into Neo4j; caches in Redis; ships ROS2 messages',
      tags: ['kafka'],
    });
    expect(glossFor(many, glossary)).toBe('graph database. event streaming platform. in-memory key-value store.');
  });

  it('a key written with a capital matches only that spelling ("AIS" is not "AIs", the plural of AI)', () => {
    const cased = parseProductGlossary(
      { AIS: 'ship position broadcasts', WebShop: 'shopping benchmark for agents', kafka: 'event streaming' },
      'cased.json',
    );
    expect(glossFor(entry({ displayName: 'AIS Fleet' }), cased)).toBe('ship position broadcasts.');
    expect(glossFor(entry({ description: 'Teams of AIs that trade, with ais as a word too' }), cased)).toBe('');
    expect(glossFor(entry({ description: 'Evaluated on WebShop' }), cased)).toBe('shopping benchmark for agents.');
    expect(glossFor(entry({ description: 'Sell from your webshop' }), cased)).toBe('');
    // Lower-case keys match any case.
    expect(glossFor(entry({ description: 'KAFKA topics' }), cased)).toBe('event streaming.');
    // The spelling is part of the version: the same words keyed otherwise are another glossary.
    expect(
      parseProductGlossary({ ais: 'ship position broadcasts', WebShop: 'shopping benchmark for agents', kafka: 'event streaming' }, 'x')
        .version,
    ).not.toBe(cased.version);
    expect(() => parseProductGlossary({ AIS: 'a b', ais: 'c d' }, 'both.json')).toThrow(
      /the key 'ais' matches the same words as another key \('ais'\)/,
    );
  });

  it("reads an identifier's segments, and its host unless the host is a code host", () => {
    expect(glossFor(entry({ identifier: 'urn:air:mcp.close.com:mcp:close' }), glossary)).toBe('sales CRM for small teams.');
    expect(glossFor(entry({ identifier: 'urn:air:github.com:someone:tool' }), glossary)).toBe('');
    expect(glossFor(entry({ identifier: 'urn:air:github.com:redis:mcp-redis' }), glossary)).toBe('in-memory key-value store.');
    // The word itself still counts where the entry says it.
    expect(glossFor(entry({ identifier: 'urn:air:github.com:someone:tool', description: 'Reviews GitHub pull requests' }), glossary)).toBe(
      'code hosting and pull requests.',
    );
  });
});

describe('entryEmbeddingTexts: the doc vector embeds the glosses', () => {
  it('doc is the searchable text, then the glosses; the description vector is the description alone', () => {
    const e = {
      identifier: 'urn:air:github.com:nokia:mcp-redfish',
      displayName: 'mcp-redfish',
      type: 'application/mcp-server-card+json',
      url: 'https://x.test',
      description: 'Managing infrastructure via Redfish API',
    };
    const texts = entryEmbeddingTexts(e, glossFor(e));
    expect(texts.doc).toBe(`${searchableText(e)}\n${glossFor(e)}`);
    expect(glossFor(e)).not.toBe('');
    expect(texts.description).toBe(e.description);
    const plain = { ...e, displayName: 'Plain', description: 'nothing the glossary knows', identifier: 'urn:air:example.com:plain' };
    expect(entryEmbeddingTexts(plain, glossFor(plain)).doc).toBe(searchableText(plain));
  });
});

describe('loadProductGlossary: an operator extends the bundled glossary (SEARCH_GLOSSARY_FILE)', () => {
  const dir = useTempDir('ard-glossary-');

  it('without a file: the bundled glossary itself', async () => {
    expect(await loadProductGlossary(null)).toBe(PRODUCT_GLOSSARY);
  });

  it('adds keys, replaces a bundled gloss (keyed by the same words), removes one with "", and gets its own version', async () => {
    expect(PRODUCT_GLOSSARY.glosses.has('close com')).toBe(true);
    expect(PRODUCT_GLOSSARY.glosses.has('shodan')).toBe(true);
    const file = dir.write(
      'glossary.json',
      JSON.stringify({ _comment: 'site glossary', Zorblax: 'in-house deploy robot', 'Close.com': 'our CRM', shodan: '' }),
    );
    const glossary = await loadProductGlossary(file);
    expect(glossary.glosses.get('zorblax')).toBe('in-house deploy robot');
    expect(glossary.glosses.get('close com')).toBe('our CRM');
    expect(glossary.glosses.has('shodan')).toBe(false);
    expect(glossary.glosses.size).toBe(PRODUCT_GLOSSARY.glosses.size);
    expect(glossary.glosses.get('redfish')).toBe(PRODUCT_GLOSSARY.glosses.get('redfish'));
    expect(glossary.version).not.toBe(PRODUCT_GLOSSARY.version);
    expect(glossFor(entry({ displayName: 'Zorblax MCP' }), glossary)).toBe('in-house deploy robot.');
    expect(glossFor(entry({ displayName: 'Shodan' }), glossary)).toBe('');
    // A bundled key written with capitals keeps matching only that spelling.
    expect(glossFor(entry({ displayName: 'AIS Fleet' }), glossary)).toBe(`${PRODUCT_GLOSSARY.glosses.get('ais')!.replace(/[.\s]+$/, '')}.`);
    expect(glossFor(entry({ description: 'a team of AIs' }), glossary)).toBe('');
    // Replacing or removing a capitalised bundled key by its words, in any case.
    const replaced = await loadProductGlossary(dir.write('cased.json', JSON.stringify({ ais: 'my own gloss of ais', webshop: '' })));
    expect(glossFor(entry({ description: 'a team of AIs' }), replaced)).toBe('my own gloss of ais.');
    expect(replaced.glosses.has('webshop')).toBe(false);
  });

  it('stops with a message naming the setting and the file: missing, not JSON, not an object, too large, a bad key, a removal of nothing', async () => {
    const missing = path.join(dir.path, 'missing.json');
    const error = await loadProductGlossary(missing).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProductGlossaryError);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(new RegExp(`^SEARCH_GLOSSARY_FILE \\(${missing}\\): cannot be read`));
    await expect(loadProductGlossary(dir.write('broken.json', '{"ros2": '))).rejects.toThrow(
      /^SEARCH_GLOSSARY_FILE \(.*broken\.json\): not valid JSON/,
    );
    await expect(loadProductGlossary(dir.write('list.json', '["ros2"]'))).rejects.toThrow(/list\.json\): must be a JSON object/);
    const large = path.join(dir.path, 'large.json');
    fs.writeFileSync(large, '');
    fs.truncateSync(large, MAX_GLOSSARY_FILE_BYTES + 1);
    await expect(loadProductGlossary(large)).rejects.toThrow(/large\.json\): \d+ bytes; at most/);
    await expect(loadProductGlossary(dir.write('long-key.json', JSON.stringify({ 'a b c d e': 'x y' })))).rejects.toThrow(
      /^SEARCH_GLOSSARY_FILE \(.*long-key\.json\): the key 'a b c d e' has 5 words/,
    );
    await expect(loadProductGlossary(dir.write('number.json', JSON.stringify({ zorblax: 7 })))).rejects.toThrow(
      /the gloss of 'zorblax' must be a non-empty string/,
    );
    await expect(loadProductGlossary(dir.write('remove.json', JSON.stringify({ zorblax: '' })))).rejects.toThrow(
      /remove\.json\): the key 'zorblax' removes nothing: the bundled glossary has no key 'zorblax'/,
    );
    await expect(loadProductGlossary(dir.path)).rejects.toThrow(/: not a file$/);
  });
});
