// The share of a text the bundled model can read (Embedder.readableShare): the characters of its vocabulary
// (vocab.json), which was written for English. Reads the vocabulary only: no model session starts.
import { UseLiteEmbedder } from '../../src/embedding/use-lite-embedder';
import { withQueryCache } from '../../src/embedding/embedder';

const embedder = new UseLiteEmbedder();

it('reads English, code and accents; no Chinese, Japanese or Korean character; white space is not counted', () => {
  expect(embedder.readableShare('Send a Slack message when node.js CI fails (exit code 1)!')).toBe(1);
  expect(embedder.readableShare('café résumé')).toBe(1);
  expect(embedder.readableShare('微博热搜')).toBe(0);
  expect(embedder.readableShare('ポケモン 검색')).toBe(0);
  expect(embedder.readableShare('weibo 热搜')).toBeCloseTo(5 / 7, 10);
  expect(embedder.readableShare('   ')).toBe(1);
});

it('is passed on by the query cache', () => {
  expect(withQueryCache(embedder).readableShare?.('微博')).toBe(0);
});
