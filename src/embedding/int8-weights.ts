// Which 8-bit form the bundled model's int8 kernels take on this CPU (decision 0048). onnxruntime multiplies the
// uint8-quantized input by signed int8 weights (U8S8) with VNNI's vpdpbusd on x86 CPUs that have it; on x86 CPUs
// without VNNI its U8S8 kernels sum pairs of products in 16 bits (vpmaddubsw), which saturates when both are large
// (the input's zero point sits near 128, so its values often are), and onnxruntime's own quantization guide points
// to unsigned weights (U8U8) or 7-bit weights there. Unsigned weights with a zero point of 128 keep the 8 bits and
// never saturate; measured on this project's VNNI machine they give the same vectors (cosine to float32 0.9982 at
// the lowest, 0.9995 at the median) at 42 µs per token against 26 for signed weights and 72 for float32. So signed
// weights only where they were measured (x64 with VNNI), unsigned everywhere else.
import fs from 'node:fs';

export type Int8WeightType = 'int8' | 'uint8';

/** The CPU's feature flags as Linux lists them (/proc/cpuinfo), or '' where they cannot be read. */
function cpuFlags(): string {
  try {
    return fs.readFileSync('/proc/cpuinfo', 'utf8');
  } catch {
    return '';
  }
}

/** 'int8' on an x64 CPU with AVX-512 VNNI or AVX-VNNI, else 'uint8'. */
export function int8WeightType(arch: string = process.arch, cpuinfo: string = arch === 'x64' ? cpuFlags() : ''): Int8WeightType {
  return arch === 'x64' && /^flags\s*:.*\b(avx512_vnni|avx_vnni)\b/mu.test(cpuinfo) ? 'int8' : 'uint8';
}
