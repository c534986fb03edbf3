// Jest's node environment, with the main realm's typed-array constructors. onnxruntime-node's native
// binding builds its output tensors' typed arrays in the main realm, and onnxruntime-common checks them with
// instanceof against the test's own (vm context) constructors, which fails ("A float32 tensor's data must be
// type of Float32Array"). Outside Jest there is one realm and nothing to fix. Every test file runs in it
// (jest.config.js): the bundled model runs on onnxruntime-node wherever a test embeds.
const { TestEnvironment } = require('jest-environment-node');

const SHARED = [
  'ArrayBuffer',
  'Float32Array',
  'Float64Array',
  'Int8Array',
  'Uint8Array',
  'Int16Array',
  'Uint16Array',
  'Int32Array',
  'Uint32Array',
  'BigInt64Array',
  'BigUint64Array',
];

class NativeTypedArraysEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    for (const name of SHARED) this.global[name] = globalThis[name];
  }
}

module.exports = NativeTypedArraysEnvironment;
