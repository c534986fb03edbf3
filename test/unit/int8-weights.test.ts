// Which 8-bit form the model's int8 kernels take (src/embedding/int8-weights.ts, decision 0048): signed weights only on
// x64 CPUs with VNNI, where they were measured; unsigned ones (no 16-bit saturation) everywhere else.
import { int8WeightType } from '../../src/embedding/int8-weights';

const cpuinfo = (flags: string) =>
  `processor\t: 0\nvendor_id\t: AuthenticAMD\nflags\t\t: fpu vme sse2 ${flags} rdpid\nbugs\t\t: sysret_ss_attrs\n`;

describe('int8WeightType', () => {
  it('takes signed weights on x64 with AVX-512 VNNI or AVX-VNNI', () => {
    expect(int8WeightType('x64', cpuinfo('avx2 avx512f avx512_vnni'))).toBe('int8');
    expect(int8WeightType('x64', cpuinfo('avx2 avx_vnni'))).toBe('int8');
  });

  it('takes unsigned weights on x64 without VNNI, where U8S8 kernels sum pairs in 16 bits', () => {
    expect(int8WeightType('x64', cpuinfo('avx2 avx512f avx512bw'))).toBe('uint8');
    // A flag that only contains the name does not count, nor does one outside the flags line.
    expect(int8WeightType('x64', cpuinfo('avx2 xavx512_vnni'))).toBe('uint8');
    expect(int8WeightType('x64', `${cpuinfo('avx2')}notes\t: avx512_vnni\n`)).toBe('uint8');
  });

  it('takes unsigned weights where the flags cannot be read or the CPU is not x64', () => {
    expect(int8WeightType('x64', '')).toBe('uint8');
    expect(int8WeightType('arm64', cpuinfo('avx512_vnni'))).toBe('uint8');
  });
});
