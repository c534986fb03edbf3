// Peers' answers are untrusted input: each is checked against the SearchResponse schema of the ARD
// OpenAPI document (openapi/ard.openapi.yaml, the same file requests are validated against), with
// Ajv 2020-12 and formats. Rule: a response whose envelope is wrong (not an object, `results` not an
// array, unknown top-level fields, a non-string pageToken) is dropped whole; a response whose only
// problems are inside some results keeps the valid results and drops the invalid ones.
import fs from 'node:fs';
import path from 'node:path';
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { parse as parseYaml } from 'yaml';
import type { CatalogEntry } from '../catalog/catalog-entry';
import { CATALOG_SCHEMA_PATH, OPENAPI_DIR } from '../catalog/catalog-validator';

const BASE = 'https://ard-registry.invalid/openapi/';

export interface PeerResultItem extends CatalogEntry {
  score: number;
  source: string;
}

export interface ValidatedPeerResponse {
  results: PeerResultItem[];
  pageToken?: string;
  /** Results dropped for failing the schema. */
  dropped: number;
}

export class InvalidPeerResponseError extends Error {
  override name = 'InvalidPeerResponseError';
}

let validator: ValidateFunction | null = null;

/** Compiles the validator (~once per process); called at start so no search pays for it. */
export function searchResponseValidator(): ValidateFunction {
  if (validator) return validator;
  const catalog = JSON.parse(fs.readFileSync(CATALOG_SCHEMA_PATH, 'utf8')) as Record<string, unknown>;
  const openapi = parseYaml(fs.readFileSync(path.join(OPENAPI_DIR, 'ard.openapi.yaml'), 'utf8')) as Record<string, unknown>;
  const ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: true });
  addFormats(ajv);
  // Both documents under one base, so the OpenAPI file's relative './ai-catalog.schema.json' resolves.
  ajv.addSchema({ ...catalog, $id: `${BASE}ai-catalog.schema.json` });
  ajv.addSchema({ $id: `${BASE}ard.openapi.yaml`, components: openapi.components });
  validator = ajv.getSchema(`${BASE}ard.openapi.yaml#/components/schemas/SearchResponse`) as ValidateFunction;
  return validator;
}

function isAbsoluteUri(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  try {
    return new URL(value).protocol.length > 1;
  } catch {
    return false;
  }
}

/**
 * Validates a peer's JSON. A result whose `source` is missing or not an absolute URI gets the
 * peer's base URL as its source before validation: the peer is where we found it.
 */
export function validatePeerResponse(json: unknown, peerBaseUrl: string): ValidatedPeerResponse {
  if (json && typeof json === 'object' && Array.isArray((json as { results?: unknown }).results)) {
    for (const item of (json as { results: unknown[] }).results) {
      if (item && typeof item === 'object' && !isAbsoluteUri((item as { source?: unknown }).source)) {
        (item as { source: string }).source = peerBaseUrl;
      }
    }
  }
  const validate = searchResponseValidator();
  if (validate(json)) {
    const body = json as { results: PeerResultItem[]; pageToken?: string };
    return { results: body.results, ...(body.pageToken ? { pageToken: body.pageToken } : {}), dropped: 0 };
  }
  const errors = validate.errors ?? [];
  const badItems = new Set<number>();
  for (const e of errors) {
    const index = itemIndex(e);
    if (index === null) {
      throw new InvalidPeerResponseError(`not a SearchResponse: ${e.instancePath || 'response'} ${e.message ?? 'is invalid'}`);
    }
    badItems.add(index);
  }
  const body = json as { results: PeerResultItem[]; pageToken?: string };
  return {
    results: body.results.filter((_r, i) => !badItems.has(i)),
    ...(body.pageToken ? { pageToken: body.pageToken } : {}),
    dropped: badItems.size,
  };
}

function itemIndex(e: ErrorObject): number | null {
  const match = /^\/results\/(\d+)(\/|$)/.exec(e.instancePath);
  return match ? Number(match[1]) : null;
}
