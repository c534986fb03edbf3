// Peers' answers are untrusted input, read liberally and believed strictly (docs/federation.md,
// "Reading a peer's answer"). The answer is read result by result: a valid result is used whatever its
// neighbours or the envelope around it look like. Only an answer that is not an object with a
// `results` array is refused whole. Tolerated and counted (never a reason to drop an answer): unknown
// top-level fields (`total`, `@context`, ...), a null or non-string `pageToken` (no next page), null
// optional fields of a result (read as absent), a missing or non-numeric score.
// Each result is one of:
// - complete: a catalog entry valid to this registry's own catalog schema (ai-catalog.schema.json);
// - partial: the v0.91 shape (ARD v0.91 §5.3.2: only `identifier` required), every field it carries
//   valid to the catalog schema; completed later through the peer's GET /agents/{identifier};
// - dropped, with a reason: not an object, no valid identifier, a field failing the catalog schema,
//   both `url` and `data`, or an identifier already seen earlier in the same answer.
import fs from 'node:fs';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { isValidIdentifier, type CatalogEntry } from '../catalog/catalog-entry';
import { CATALOG_SCHEMA_PATH, validateCatalogEntry } from '../catalog/catalog-validator';
import { bindingProblem } from '../trust/trust-domain';

/** An entry as a peer sent it: at least a valid identifier. */
export type PeerEntry = Partial<CatalogEntry> & { identifier: string };

export interface PeerResult {
  entry: PeerEntry;
  /** True when `entry` is a complete catalog entry (valid to the catalog schema). */
  complete: boolean;
  /** The score as sent, when it is a finite number (any range: calibration reads it). */
  rawScore: number | undefined;
  /** The `source` as sent, believed only when it names a registry this one knows. */
  claimedSource: string | undefined;
}

/** What was tolerated in a peer's answer, by kind. */
export const TOLERATED_KINDS = [
  'unknown_top_level_field',
  'null_page_token',
  'invalid_page_token',
  'null_field',
  'missing_score',
  'score_out_of_range',
  'misordered_score',
] as const;
export type ToleratedKind = (typeof TOLERATED_KINDS)[number];

/** Why a peer's result was dropped. */
export const DROP_REASONS = [
  'not_an_object',
  'invalid_identifier',
  'fails_catalog_schema',
  'unbound_trust_identity',
  'duplicate',
  'completion_invalid',
] as const;
export type DropReason = (typeof DROP_REASONS)[number];

export interface DroppedResult {
  reason: DropReason;
  identifier: string | null;
  detail: string;
}

export interface PeerAnswer {
  results: PeerResult[];
  pageToken?: string;
  tolerated: Partial<Record<ToleratedKind, number>>;
  dropped: DroppedResult[];
}

export class InvalidPeerResponseError extends Error {
  override name = 'InvalidPeerResponseError';
}

const ENVELOPE_FIELDS = new Set(['results', 'referrals', 'pageToken']);
/** Search-only fields of a result, not part of the entry. */
const RESULT_ONLY_FIELDS = new Set(['score', 'source']);

let partialValidator: ValidateFunction | null = null;

/**
 * The catalog schema's field definitions with only `identifier` required and `url`/`data` exclusive
 * (ARD v0.91 §5.3.2). Compiled once per process; called at start so no search pays for it.
 */
export function partialEntryValidator(): ValidateFunction {
  if (partialValidator) return partialValidator;
  const schema = JSON.parse(fs.readFileSync(CATALOG_SCHEMA_PATH, 'utf8')) as {
    $defs: { catalogEntry: { properties: Record<string, unknown> } };
  };
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  addFormats(ajv);
  ajv.addSchema(schema, 'ai-catalog');
  const fields = Object.keys(schema.$defs.catalogEntry.properties);
  partialValidator = ajv.compile({
    type: 'object',
    required: ['identifier'],
    not: { required: ['url', 'data'] },
    properties: Object.fromEntries(fields.map((f) => [f, { $ref: `ai-catalog#/$defs/catalogEntry/properties/${f}` }])),
  });
  return partialValidator;
}

function count(tolerated: PeerAnswer['tolerated'], kind: ToleratedKind, n = 1): void {
  tolerated[kind] = (tolerated[kind] ?? 0) + n;
}

/** Reads a peer's POST /search answer (any of the v0.9, OpenAPI 0.5.0 and v0.91 shapes). */
export function readPeerAnswer(json: unknown): PeerAnswer {
  if (!json || typeof json !== 'object' || Array.isArray(json))
    throw new InvalidPeerResponseError('not a SearchResponse: the answer is not a JSON object');
  const body = json as Record<string, unknown>;
  if (!Array.isArray(body.results)) throw new InvalidPeerResponseError('not a SearchResponse: results is missing or not an array');
  const tolerated: PeerAnswer['tolerated'] = {};
  const unknown = Object.keys(body).filter((k) => !ENVELOPE_FIELDS.has(k));
  if (unknown.length > 0) count(tolerated, 'unknown_top_level_field', unknown.length);
  let pageToken: string | undefined;
  if (typeof body.pageToken === 'string' && body.pageToken !== '') pageToken = body.pageToken;
  else if (body.pageToken === null) count(tolerated, 'null_page_token');
  else if (body.pageToken !== undefined && body.pageToken !== '') count(tolerated, 'invalid_page_token');

  const results: PeerResult[] = [];
  const dropped: DroppedResult[] = [];
  const seen = new Set<string>();
  for (const raw of body.results) {
    const read = readResult(raw, tolerated);
    if ('reason' in read) {
      dropped.push(read);
    } else if (seen.has(read.entry.identifier)) {
      dropped.push({
        reason: 'duplicate',
        identifier: read.entry.identifier,
        detail: 'identifier already sent earlier in the same answer',
      });
    } else {
      seen.add(read.entry.identifier);
      results.push(read);
    }
  }
  return { results, ...(pageToken ? { pageToken } : {}), tolerated, dropped };
}

function readResult(raw: unknown, tolerated: PeerAnswer['tolerated']): PeerResult | DroppedResult {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw))
    return { reason: 'not_an_object', identifier: null, detail: 'result is not a JSON object' };
  const item = raw as Record<string, unknown>;
  if (typeof item.identifier !== 'string' || !isValidIdentifier(item.identifier)) {
    return {
      reason: 'invalid_identifier',
      identifier: typeof item.identifier === 'string' ? item.identifier.slice(0, 200) : null,
      detail: 'identifier is missing or not an ARD URN (ARD Appendix C)',
    };
  }
  const entry: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(item)) {
    if (RESULT_ONLY_FIELDS.has(key)) continue;
    if (value === null) count(tolerated, 'null_field');
    else entry[key] = value;
  }
  let rawScore: number | undefined;
  if (typeof item.score === 'number' && Number.isFinite(item.score)) {
    rawScore = item.score;
    if (rawScore < 0 || rawScore > 100) count(tolerated, 'score_out_of_range');
  } else {
    count(tolerated, 'missing_score');
  }
  const claimedSource = typeof item.source === 'string' ? item.source : undefined;
  const checked = checkPeerEntry(entry);
  if (typeof checked === 'string') return { reason: 'fails_catalog_schema', identifier: item.identifier, detail: checked };
  // The same publisher binding as ingestion's (ARD v0.91 §4.5.1): a peer cannot lend an entry a trust identity
  // its publisher does not hold.
  const unbound = bindingProblem(entry as PeerEntry);
  if (unbound) return { reason: 'unbound_trust_identity', identifier: item.identifier, detail: unbound };
  return { entry: entry as PeerEntry, complete: checked.complete, rawScore, claimedSource };
}

/**
 * A peer's entry against this registry's catalog schema: complete when it carries every required
 * field and passes; partial when it lacks some required field but every field it carries passes.
 * A string says why it fails.
 */
export function checkPeerEntry(entry: Record<string, unknown>): { complete: boolean } | string {
  const looksComplete = 'displayName' in entry && 'type' in entry && ('url' in entry || 'data' in entry);
  if (looksComplete) {
    const problems = validateCatalogEntry(entry);
    return problems.length === 0 ? { complete: true } : problems.join('; ');
  }
  const validate = partialEntryValidator();
  if (validate(entry)) return { complete: false };
  return (validate.errors ?? []).map((e) => `entry${e.instancePath.replace(/\//g, '.')} ${e.message ?? 'is invalid'}`).join('; ');
}
