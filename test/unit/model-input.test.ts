import fs from 'node:fs';
import path from 'node:path';
import { EmbeddingsModel } from '@energetic-ai/embeddings';
import { cutToModelInput, USE_LITE_MAX_INPUT_CHARACTERS, USE_LITE_MAX_PIECE_CHARACTERS } from '../../src/embedding/model-input';
import { USE_LITE_MAX_TOKENS } from '../../src/embedding/use-lite-graph';
import { useLiteModelDir } from '../../src/embedding/use-lite-onnx';

const vocabulary = JSON.parse(fs.readFileSync(path.join(useLiteModelDir(), 'vocab.json'), 'utf8')) as Array<[string, number]>;
const tokenizer = new EmbeddingsModel({ vocabulary, model: null } as never).tokenizer as { encode(text: string): number[] };

describe('cutToModelInput (the bundled model reads the first 128 tokens)', () => {
  it('rests on the vocabulary: no piece longer than 16 characters, none holding the word separator but at its start', () => {
    const pieces = vocabulary.map(([piece]) => [...piece]);
    expect(Math.max(...pieces.map((p) => p.length))).toBe(USE_LITE_MAX_PIECE_CHARACTERS);
    expect(pieces.filter((p) => p.slice(1).includes('\u2581'))).toEqual([]);
  });

  it('keeps the tokens the model reads: the first 128 of a long text are those of its cut', () => {
    const corpus = fs.readFileSync(path.resolve(__dirname, '..', '..', 'data', 'corpus', 'docker-mcp-ai-catalog.json'), 'utf8');
    const descriptions = (JSON.parse(corpus).entries as Array<{ description?: string }>).map((e) => e.description ?? '').join(' ');
    const text = descriptions.slice(0, 12_000);
    const cut = cutToModelInput(text);
    expect(cut.length).toBeLessThanOrEqual(USE_LITE_MAX_INPUT_CHARACTERS);
    expect(cut.length).toBeGreaterThan(USE_LITE_MAX_INPUT_CHARACTERS / 2);
    expect(tokenizer.encode(cut).slice(0, USE_LITE_MAX_TOKENS)).toEqual(tokenizer.encode(text).slice(0, USE_LITE_MAX_TOKENS));
  });

  it('leaves short texts alone, cuts at a space, and never splits a surrogate pair', () => {
    expect(cutToModelInput('send a message')).toBe('send a message');
    expect(cutToModelInput('aaaa bbbb cccc', 12)).toBe('aaaa bbbb');
    expect(cutToModelInput('x'.repeat(10) + '🌧', 11)).toBe('x'.repeat(10));
    expect(cutToModelInput('y'.repeat(10_000_000)).length).toBe(USE_LITE_MAX_INPUT_CHARACTERS);
  });
});
