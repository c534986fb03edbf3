// The linear tokenizer gives the package's ids, text for text: the bundled model's vectors depend on it.
import fs from 'node:fs';
import path from 'node:path';
import { EmbeddingsModel } from '@energetic-ai/embeddings';
import { useLiteModelDir } from '../../src/embedding/use-lite-onnx';
import { encodeUseLite, type UseLiteTokenizerData } from '../../src/embedding/use-lite-tokenizer';
import { demoCorpusEmbeddingTexts } from '../../src/ingest/demo-corpus-texts';

const vocabulary = JSON.parse(fs.readFileSync(path.join(useLiteModelDir(), 'vocab.json'), 'utf8')) as Array<[string, number]>;
const packaged = new EmbeddingsModel({ vocabulary, model: null } as never).tokenizer as unknown as UseLiteTokenizerData & {
  encode(text: string): number[];
};

describe('encodeUseLite (the bundled tokenizer in linear time)', () => {
  it('gives the same ids as the package for every text the demo corpus embeds', async () => {
    const texts = await demoCorpusEmbeddingTexts();
    expect(texts.length).toBeGreaterThan(1500);
    const differing = texts.filter((text) => JSON.stringify(encodeUseLite(packaged, text)) !== JSON.stringify(packaged.encode(text)));
    expect(differing).toEqual([]);
  });

  it.each([
    ['the empty string', ''],
    ['a space', ' '],
    ['runs of spaces', '  send   a  message  '],
    ['a no-break space (NFKC makes it a space)', 'send\u00a0mail'],
    ['full-width letters (NFKC)', 'ＳＥＮＤ ｍａｉｌ'],
    ['characters outside the vocabulary, repeated', '\u0001\u0002\u0003 x \u0004\u0004'],
    ['emoji and other astral characters', 'deploy 🚀🚀 to 𝔭𝔯𝔬𝔡'],
    ['CJK and RTL scripts', '天気予報を調べる مرحبا بالعالم'],
    ['punctuation and digits', 'v1.2.3-beta+42 (GitHub/GitLab) — “quotes” & <tags>'],
  ])('gives the same ids as the package for %s', (_, text) => {
    expect(encodeUseLite(packaged, text)).toEqual(packaged.encode(text));
  });

  it('gives the same ids as the package for a 4,096-character text (the longest the model is given)', () => {
    const text = 'Search the web and summarise pages with citations; '.repeat(81).slice(0, 4096);
    expect(encodeUseLite(packaged, text)).toEqual(packaged.encode(text));
  });
});
