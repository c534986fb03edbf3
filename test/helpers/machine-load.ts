// A time budget for tests that measure speed on a shared machine: the target as stated for an idle
// machine, stretched by how many runnable processes each core has (the 1-minute load average), so a
// busy machine slows the measurement without failing it, and an idle one holds the stated target.
import os from 'node:os';

export function loadScaledBudgetMs(targetMs: number): number {
  const perCore = os.loadavg()[0] / Math.max(1, os.cpus().length);
  return Math.round(targetMs * Math.max(1, perCore));
}

export function machineLoad(): string {
  return `load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores`;
}
