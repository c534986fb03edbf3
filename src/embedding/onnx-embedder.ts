// An optional, stronger sentence embedder: a local ONNX model folder (EMBEDDING_MODEL_DIR) run by
// transformers.js, never downloading anything. The package is not a dependency of the registry: an operator
// who wants it installs `@huggingface/transformers` next to the registry (docs/relevance.md). Loaded with a
// dynamic import so the registry runs without it and fails at start, naming the package, when it is asked for.
import path from 'node:path';
import type { Embedder } from './embedder';
import { EmbedderUnavailableError, type ModuleLoader, normalise } from './embedder';

export const ONNX_PACKAGE = '@huggingface/transformers';

interface FeatureExtractor {
  (texts: string[], options: { pooling: 'mean'; normalize: boolean }): Promise<{ tolist(): number[][] }>;
}

interface TransformersModule {
  env: { allowRemoteModels: boolean; allowLocalModels: boolean; localModelPath: string };
  pipeline(task: 'feature-extraction', model: string, options: { local_files_only: boolean }): Promise<FeatureExtractor>;
}

const defaultLoader: ModuleLoader = (name) => import(name);

export async function loadOnnxEmbedder(modelDir: string, loader: ModuleLoader = defaultLoader): Promise<Embedder> {
  let transformers: TransformersModule;
  try {
    transformers = (await loader(ONNX_PACKAGE)) as TransformersModule;
  } catch (error) {
    throw new EmbedderUnavailableError(
      `EMBEDDING_MODEL_DIR is set to ${modelDir} but the package ${ONNX_PACKAGE} is not installed; ` +
        `install it next to the registry (npm install ${ONNX_PACKAGE}) or unset EMBEDDING_MODEL_DIR to use the bundled model`,
      { cause: error },
    );
  }
  const dir = path.resolve(modelDir);
  transformers.env.allowRemoteModels = false;
  transformers.env.allowLocalModels = true;
  transformers.env.localModelPath = path.dirname(dir);
  let extractor: FeatureExtractor;
  try {
    extractor = await transformers.pipeline('feature-extraction', path.basename(dir), { local_files_only: true });
  } catch (error) {
    throw new EmbedderUnavailableError(`cannot load the ONNX sentence-embedding model in ${dir}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const embed = async (texts: string[]) => {
    const out: number[][] = [];
    for (let i = 0; i < texts.length; i += 32) {
      const batch = texts.slice(i, i + 32).map((t) => (t.trim() === '' ? ' ' : t));
      const result = await extractor(batch, { pooling: 'mean', normalize: true });
      for (const v of result.tolist()) out.push(normalise(v));
    }
    return out;
  };
  const [probe] = await embed(['dimension probe']);
  // The id names the folder and the dimensions: vectors of two different models never mix.
  const id = `onnx:${path.basename(dir)}:${probe.length}`;
  return { id, dimensions: probe.length, embed };
}
