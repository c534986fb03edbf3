// Reading a sample out of GET /metrics' Prometheus text.

/** The value of `series` (a metric name with its labels as exposed, e.g. `ard_x{result="hit"}`), or NaN when absent. */
export function sampleValue(metrics: string, series: string): number {
  const line = metrics.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? NaN : Number(line.slice(series.length + 1));
}
