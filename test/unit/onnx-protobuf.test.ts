import {
  floatAttribute,
  intAttribute,
  intsAttribute,
  model,
  node,
  ONNXRUNTIME_DOMAIN,
  tensor,
  tensorInfo,
  TENSOR_FLOAT,
  TENSOR_INT64,
} from '../../src/embedding/onnx-protobuf';

describe('the ONNX protobuf writer', () => {
  const minusOne = Buffer.alloc(8);
  minusOne.writeBigInt64LE(-1n);
  const bytes = model(
    {
      name: 'g',
      nodes: [
        node('Softmax', 's', ['x'], ['y'], [intAttribute('axis', -1), floatAttribute('epsilon', 0.5), intsAttribute('perm', [1, 0, 2])]),
      ],
      initializers: [tensor('c', TENSOR_INT64, [1], minusOne)],
      inputs: [tensorInfo('x', TENSOR_FLOAT, ['tokens', 3])],
      outputs: [tensorInfo('y', TENSOR_FLOAT, [1, 3])],
    },
    'p',
    17,
  );

  it('writes onnx.proto field by field: ascending field numbers, unpacked repeated ints, int64 -1 in ten bytes', () => {
    // The bytes onnxruntime-node loads (test/unit/embedding-onnx-loader.test.ts runs a graph written the same way).
    expect(bytes.toString('hex')).toBe(
      [
        '0808', // ir_version 8
        '120170', // producer_name "p"
        '3a9401', // graph, 148 bytes
        '0a4c', // node, 76 bytes
        '0a0178',
        '120179',
        '1a0173',
        '2207536f66746d6178', // input x, output y, name s, op_type Softmax
        '2a140a0461786973',
        '18ffffffffffffffffff01',
        'a00102', // attribute axis: i = -1, type INT
        '2a110a07657073696c6f6e',
        '150000003f',
        'a00101', // attribute epsilon: f = 0.5, type FLOAT
        '2a0f0a047065726d',
        '400140004002',
        'a00107', // attribute perm: ints 1 0 2 (unpacked), type INTS
        '120167', // graph name g
        '2a11',
        '0801',
        '1007',
        '420163',
        '4a08ffffffffffffffff', // initializer: dims [1], INT64, name c, raw_data
        '5a190a0178',
        '12140a120801120e0a081206746f6b656e730a020803', // input x: FLOAT [tokens, 3]
        '62130a0179',
        '120e0a0c080112080a0208010a020803', // output y: FLOAT [1, 3]
        '42040a001011', // opset_import: domain "", version 17
      ].join(''),
    );
  });

  it('hands back a Buffer over the encoded bytes', () => {
    expect(Buffer.isBuffer(bytes)).toBe(true);
    expect(bytes.length).toBe(162);
  });

  it("writes a node of onnxruntime's own operators with its domain, and imports that domain only when a node uses it", () => {
    const graph = (domain?: string) => ({
      name: 'g',
      nodes: [node('DynamicQuantizeMatMul', 'q', ['x', 'w', 's'], ['y'], [], domain)],
      initializers: [],
      inputs: [tensorInfo('x', TENSOR_FLOAT, [1, 3])],
      outputs: [tensorInfo('y', TENSOR_FLOAT, [1, 3])],
    });
    const domain = Buffer.from(ONNXRUNTIME_DOMAIN).toString('hex');
    const contrib = model(graph(ONNXRUNTIME_DOMAIN), 'p', 17).toString('hex');
    // In the node: field 7 (domain), 13 bytes. In the model: opset_import { domain, version 1 } after the default one.
    expect(contrib).toContain(`3a0d${domain}`);
    expect(contrib.endsWith(`42040a001011` + `42110a0d${domain}1001`)).toBe(true);
    const plain = model(graph(), 'p', 17).toString('hex');
    expect(plain).not.toContain(domain);
    expect(plain.endsWith('42040a001011')).toBe(true);
  });
});
