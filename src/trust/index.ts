// Trust manifests (ARD v0.91 §4.5): the publisher binding, verification, the stored outcome. docs/trust.md.
export { bindingProblem, identityAnchor, isSameOrParentDomain, partitionByBinding } from './trust-domain';
export { verifyEntry, signedPayload, entryWithoutSignature, JWS_ALGORITHMS } from './verify-entry';
export { didWebDocumentUrl, type KeyFetchOptions } from './key-sources';
export { verifyDueEntries, startTrustUpkeep, type TrustUpkeep, type VerificationCounts } from './trust-upkeep';
export { currentVerification, type StoredVerification } from './verification-repository';
export * from './verification-outcome';
