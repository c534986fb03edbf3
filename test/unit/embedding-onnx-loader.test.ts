import { EmbedderUnavailableError } from '../../src/embedding/embedder';
import { loadOnnxEmbedder, ONNX_PACKAGE } from '../../src/embedding/onnx-embedder';

describe('ONNX embedder loader', () => {
  it('fails with an error naming the missing package and the variable', async () => {
    const missing = async () => {
      throw Object.assign(new Error(`Cannot find module '${ONNX_PACKAGE}'`), { code: 'MODULE_NOT_FOUND' });
    };
    const attempt = loadOnnxEmbedder('/models/minilm', missing);
    await expect(attempt).rejects.toBeInstanceOf(EmbedderUnavailableError);
    await expect(loadOnnxEmbedder('/models/minilm', missing)).rejects.toThrow(
      /@huggingface\/transformers.*EMBEDDING_MODEL_DIR|EMBEDDING_MODEL_DIR.*@huggingface\/transformers/,
    );
  });

  it('loads from the local folder only and names the model by folder and dimensions', async () => {
    const calls: unknown[] = [];
    const env = { allowRemoteModels: true, allowLocalModels: false, localModelPath: '' };
    const fake = {
      env,
      pipeline: async (task: string, model: string, options: unknown) => {
        calls.push([task, model, options]);
        return async (texts: string[]) => ({ tolist: () => texts.map((t) => [t.length, 1, 0]) });
      },
    };
    const embedder = await loadOnnxEmbedder('/models/minilm', async () => fake);
    expect(env).toEqual({ allowRemoteModels: false, allowLocalModels: true, localModelPath: '/models' });
    expect(calls).toEqual([['feature-extraction', 'minilm', { local_files_only: true }]]);
    expect(embedder.id).toBe('onnx:minilm:3');
    expect(embedder.dimensions).toBe(3);
    const [v] = await embedder.embed(['abc']);
    expect(Math.hypot(...v)).toBeCloseTo(1, 10);
  });
});
