// Vectors computed ahead of time for a fixed set of texts (the demo corpus: data/corpus/demo-vectors.bin),
// so a first start stores them instead of running the model over ~2,000 texts (~20 s on onnxruntime, ~60 s
// on TF.js here). Each vector is keyed by a hash of the model id and the exact text embedded: a text that
// changed since the file was built (a corpus edit, another glossary) misses and is embedded as usual, and a
// file built with another model is ignored. Vectors are kept as float32, which is what pgvector stores, so an
// index built from the file equals one built by the model.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import type { Embedder } from './embedder';

const MAGIC = 'ard-prebuilt-vectors/1';
const KEY_BYTES = 16;

export interface PrebuiltVectors {
  readonly modelId: string;
  readonly dimensions: number;
  readonly size: number;
  get(text: string): number[] | undefined;
}

export function prebuiltVectorKey(modelId: string, text: string): string {
  return createHash('sha256').update(modelId).update('\0').update(text).digest().subarray(0, KEY_BYTES).toString('hex');
}

/**
 * The file's vectors for `model`, or null when the file is missing, unreadable or built with another model
 * (the caller then embeds everything).
 */
export function readPrebuiltVectors(file: string, model: Pick<Embedder, 'id' | 'dimensions'>): PrebuiltVectors | null {
  let data: Buffer;
  try {
    data = fs.readFileSync(file);
  } catch {
    return null;
  }
  const headerLength = data.length >= 4 ? data.readUInt32LE(0) : 0;
  let header: { magic?: string; modelId?: string; dimensions?: number; count?: number };
  try {
    header = JSON.parse(data.subarray(4, 4 + headerLength).toString('utf8'));
  } catch {
    return null;
  }
  const { modelId, dimensions, count } = header;
  if (header.magic !== MAGIC || modelId !== model.id || dimensions !== model.dimensions || !Number.isInteger(count)) return null;
  const record = KEY_BYTES + 4 * dimensions;
  const body = 4 + headerLength;
  if (data.length !== body + record * (count as number)) return null;
  const offsets = new Map<string, number>();
  for (let i = 0; i < (count as number); i++) {
    const at = body + i * record;
    offsets.set(data.subarray(at, at + KEY_BYTES).toString('hex'), at + KEY_BYTES);
  }
  return {
    modelId,
    dimensions,
    size: offsets.size,
    get(text) {
      const at = offsets.get(prebuiltVectorKey(modelId, text));
      if (at === undefined) return undefined;
      const vector = new Array<number>(dimensions);
      for (let d = 0; d < dimensions; d++) vector[d] = data.readFloatLE(at + 4 * d);
      return vector;
    },
  };
}

/** Writes `vectors` (text -> vector of `model`) in the format readPrebuiltVectors reads. */
export function writePrebuiltVectors(
  file: string,
  model: Pick<Embedder, 'id' | 'dimensions'>,
  vectors: ReadonlyMap<string, readonly number[]>,
): void {
  const header = Buffer.from(
    JSON.stringify({ magic: MAGIC, modelId: model.id, dimensions: model.dimensions, count: vectors.size }),
    'utf8',
  );
  const record = KEY_BYTES + 4 * model.dimensions;
  const out = Buffer.alloc(4 + header.length + record * vectors.size);
  out.writeUInt32LE(header.length, 0);
  header.copy(out, 4);
  // Sorted by key: the file's bytes depend only on its content, so a rebuild that changes nothing is no diff.
  const rows = [...vectors]
    .map(([text, vector]) => ({ key: prebuiltVectorKey(model.id, text), vector }))
    .sort((a, b) => a.key.localeCompare(b.key));
  rows.forEach(({ key, vector }, i) => {
    if (vector.length !== model.dimensions) throw new Error(`a vector of ${vector.length} dimensions; the model has ${model.dimensions}`);
    const at = 4 + header.length + i * record;
    Buffer.from(key, 'hex').copy(out, at);
    vector.forEach((v, d) => out.writeFloatLE(v, at + KEY_BYTES + 4 * d));
  });
  fs.writeFileSync(file, out);
}

/** `embedder` answering from `prebuilt` where it can: only the texts the file lacks reach the model. */
export function withPrebuiltVectors(
  embedder: Embedder,
  prebuilt: PrebuiltVectors | null,
): Embedder & { readonly hits: number; readonly misses: number } {
  let hits = 0;
  let misses = 0;
  return {
    id: embedder.id,
    dimensions: embedder.dimensions,
    get hits() {
      return hits;
    },
    get misses() {
      return misses;
    },
    async embed(texts) {
      const out: Array<number[] | undefined> = texts.map((text) => prebuilt?.get(text));
      const missing = texts.map((text, i) => (out[i] ? null : { text, i })).filter((x): x is { text: string; i: number } => x !== null);
      hits += texts.length - missing.length;
      misses += missing.length;
      if (missing.length > 0) {
        const vectors = await embedder.embed(missing.map((m) => m.text));
        missing.forEach((m, j) => (out[m.i] = vectors[j]));
      }
      return out as number[][];
    },
  };
}
