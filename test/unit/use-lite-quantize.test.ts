// The int8 form of the bundled model's dense kernels (src/embedding/use-lite-graph.ts, decision 0048): one
// symmetric scale per output column, so each weight comes back within half a step of its column's scale.
import { quantizeColumns } from '../../src/embedding/use-lite-graph';

const floats = (values: number[]): Buffer => Buffer.from(Float32Array.from(values).buffer);

describe('quantizeColumns', () => {
  // A [3, 3] kernel, row-major: column 0 spans ±2.54, column 1 is all zeros, column 2 is tiny and one-signed.
  const kernel = [2.54, 0, 0.001, -1.3, 0, 0.0006, 0.3, 0, 0.00025];
  const { weights, scales, zeroPoints } = quantizeColumns(floats(kernel), 3, 3);
  const scale = (n: number) => scales.readFloatLE(n * 4);

  it("scales each column by its largest magnitude over 127, so that weight is ±127; a zero column's scale is 1", () => {
    expect(scale(0)).toBeCloseTo(2.54 / 127, 7);
    expect(scale(1)).toBe(1);
    expect(scale(2)).toBeCloseTo(0.001 / 127, 10);
    expect([weights.readInt8(0), weights.readInt8(3), weights.readInt8(6)]).toEqual([127, -65, 15]);
    expect([weights.readInt8(1), weights.readInt8(4), weights.readInt8(7)]).toEqual([0, 0, 0]);
    expect([weights.readInt8(2), weights.readInt8(5), weights.readInt8(8)]).toEqual([127, 76, 32]);
    expect([...zeroPoints]).toEqual([0, 0, 0]);
  });

  it('gives back every weight within half a step of its column', () => {
    kernel.forEach((w, i) => {
      const n = i % 3;
      expect(Math.abs(weights.readInt8(i) * scale(n) - w)).toBeLessThanOrEqual(scale(n) / 2 + 1e-6 * scale(n));
    });
  });

  it('reads the kernel from a Buffer at any offset (the weights are slices of one shard)', () => {
    const shard = Buffer.concat([Buffer.alloc(4), floats(kernel)]);
    expect(quantizeColumns(shard.subarray(4), 3, 3).weights).toEqual(weights);
  });

  it('as uint8, writes the same steps shifted by 128, with zero points of 128', () => {
    const unsigned = quantizeColumns(floats(kernel), 3, 3, 'uint8');
    expect([...unsigned.weights]).toEqual([...weights].map((b) => ((b << 24) >> 24) + 128));
    expect([...unsigned.zeroPoints]).toEqual([128, 128, 128]);
    expect(unsigned.scales).toEqual(scales);
  });
});
