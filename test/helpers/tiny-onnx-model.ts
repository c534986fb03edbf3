// A real ONNX sentence-embedding model folder, small enough to write in a test: a transformers.js layout
// (config.json, tokenizer.json, tokenizer_config.json, onnx/model.onnx) whose graph is one Gather from a
// token-embedding table: run with mean pooling, a text's vector is the mean of its tokens' rows. The
// protobuf is encoded by src/embedding/onnx-protobuf.ts so no Python tool is involved.
// `expectedVector` computes the same thing independently, for assertions.
import fs from 'node:fs';
import path from 'node:path';
import { normalise } from '../../src/embedding/embedder';
import { model as onnxModel, node, tensor, tensorInfo, TENSOR_FLOAT, TENSOR_INT64 } from '../../src/embedding/onnx-protobuf';

export interface TinyModel {
  dir: string;
  /** The folder name: the embedder id is `onnx:<name>:<dimensions>`. */
  name: string;
  dimensions: number;
  /** What the model computes for `text`: the normalised mean of its tokens' rows (unknown words: [UNK]'s row). */
  expectedVector(text: string): number[];
}

/**
 * Writes the model folder `parent/name`. `topics` maps words to a dimension: each word's row is that unit
 * vector; [UNK] (every other word) is a small vector along the last dimension, as real models give unknown
 * words a vector of their own.
 */
export function writeTinyOnnxModel(parent: string, name: string, topics: Record<string, number>, dimensions: number): TinyModel {
  const vocab = ['[PAD]', '[UNK]', ...Object.keys(topics)];
  const row = (token: string): number[] => {
    const v = new Array<number>(dimensions).fill(0);
    if (token === '[UNK]') v[dimensions - 1] = 0.05;
    else if (token !== '[PAD]') v[topics[token]] = 1;
    return v;
  };
  const table = Buffer.alloc(vocab.length * dimensions * 4);
  vocab.forEach((token, i) => row(token).forEach((x, j) => table.writeFloatLE(x, (i * dimensions + j) * 4)));

  const model = onnxModel(
    {
      name,
      nodes: [node('Gather', 'lookup', ['token_embeddings', 'input_ids'], ['last_hidden_state'])],
      initializers: [tensor('token_embeddings', TENSOR_FLOAT, [vocab.length, dimensions], table)],
      inputs: [tensorInfo('input_ids', TENSOR_INT64, ['batch', 'sequence'])],
      outputs: [tensorInfo('last_hidden_state', TENSOR_FLOAT, ['batch', 'sequence', dimensions])],
    },
    'ard-registry tests',
    13,
  );

  const dir = path.join(parent, name);
  fs.mkdirSync(path.join(dir, 'onnx'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'onnx', 'model.onnx'), model);
  const special = (content: string, id: number) => ({
    id,
    content,
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: false,
    special: true,
  });
  fs.writeFileSync(
    path.join(dir, 'tokenizer.json'),
    JSON.stringify({
      version: '1.0',
      truncation: null,
      padding: null,
      added_tokens: [special('[PAD]', 0), special('[UNK]', 1)],
      normalizer: { type: 'Lowercase' },
      pre_tokenizer: { type: 'Whitespace' },
      post_processor: null,
      decoder: null,
      model: { type: 'WordLevel', vocab: Object.fromEntries(vocab.map((t, i) => [t, i])), unk_token: '[UNK]' },
    }),
  );
  fs.writeFileSync(
    path.join(dir, 'tokenizer_config.json'),
    JSON.stringify({ tokenizer_class: 'PreTrainedTokenizer', pad_token: '[PAD]', unk_token: '[UNK]', model_max_length: 512 }),
  );
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ model_type: 'bert', hidden_size: dimensions }));

  return {
    dir,
    name,
    dimensions,
    expectedVector(text: string) {
      // The tokenizer: lower-case, then the Whitespace pre-tokenizer's \w+|[^\w\s]+ pieces, each a word or [UNK].
      const tokens = text.toLowerCase().match(/\w+|[^\w\s]+/g) ?? [];
      const sum = new Array<number>(dimensions).fill(0);
      for (const token of tokens) row(token in topics ? token : '[UNK]').forEach((x, j) => (sum[j] += x));
      return normalise(sum.map((x) => x / Math.max(1, tokens.length)));
    },
  };
}

/** transformers.js from .cache/onnx-runtime (scripts/install-onnx-runtime.sh; .ci/run installs it). */
export function onnxRuntimeLoader(): () => Promise<unknown> {
  const entry = path.resolve(__dirname, '..', '..', '.cache', 'onnx-runtime', 'node_modules', '@huggingface', 'transformers');
  if (!fs.existsSync(entry)) {
    throw new Error(`the optional ONNX runtime is not installed (${entry}): run bash scripts/install-onnx-runtime.sh (CI's .ci/run does)`);
  }
  return async () => require(entry);
}
