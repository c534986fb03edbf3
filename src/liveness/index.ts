// Liveness: whether what the registry lists answers (docs/liveness.md).
export * from './liveness-state';
export { probeTargetOf, type ProbeTarget } from './probe-target';
export { probe, ProbeFailedError, A2A_CARD_REQUIRED_FIELDS, type McpHandshake, type ProbeDeps } from './probes';
export { nextLiveness, type LivenessTimes } from './next-liveness';
export { currentLiveness, entriesDueForProbe, recordLiveness, type StoredLiveness, type LivenessRecord } from './liveness-repository';
export {
  probeDueEntries,
  startLivenessUpkeep,
  interleaveHosts,
  type LivenessUpkeep,
  type LivenessUpkeepDeps,
  type LivenessCounts,
} from './liveness-upkeep';
