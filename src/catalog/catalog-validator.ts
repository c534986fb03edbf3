// Validates manifests and entries against openapi/ai-catalog.schema.json (JSON Schema 2020-12),
// and turns Ajv's errors into messages that name the entry and the field.
import fs from 'node:fs';
import path from 'node:path';
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { findJsonProblem } from '../storable-text';
import { entrySizeProblem, hostSizeProblem } from './entry-limits';

export const OPENAPI_DIR = resolveOpenapiDir();
export const CATALOG_SCHEMA_PATH = path.join(OPENAPI_DIR, 'ai-catalog.schema.json');

export interface EntryProblem {
  /** Position of the entry in the manifest's `entries` array. */
  index: number;
  identifier: string | null;
  reason: string;
}

let validators: { manifestShape: ValidateFunction; entry: ValidateFunction; host: ValidateFunction } | null = null;

function load() {
  if (validators) return validators;
  const schema = JSON.parse(fs.readFileSync(CATALOG_SCHEMA_PATH, 'utf8'));
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  addFormats(ajv);
  ajv.addSchema(schema, 'ai-catalog');
  // The manifest without its entries: entries are validated one by one so a bad one never blocks the rest.
  const manifestShape = ajv.compile({
    type: 'object',
    required: ['specVersion', 'entries'],
    properties: {
      specVersion: schema.properties.specVersion,
      host: { $ref: 'ai-catalog#/properties/host' },
      // A number or a string where an entry belongs is a broken catalog, not an entry to reject: the
      // crawler then changes nothing, rather than remove every entry it can no longer identify.
      entries: { type: 'array', items: { type: 'object' } },
    },
    additionalProperties: false,
  });
  validators = {
    manifestShape,
    entry: ajv.getSchema('ai-catalog#/$defs/catalogEntry') as ValidateFunction,
    host: ajv.getSchema('ai-catalog#/properties/host') as ValidateFunction,
  };
  return validators;
}

/** Problems with the manifest itself (not its entries); empty when the envelope is valid. */
export function validateManifestEnvelope(manifest: unknown): string[] {
  const { manifestShape } = load();
  const host = (manifest as { host?: unknown } | null)?.host;
  const tooLarge = hostSizeProblem(host);
  if (tooLarge) return [tooLarge];
  if (!manifestShape(manifest)) return (manifestShape.errors ?? []).slice(0, 5).map((e) => describeError(e, 'manifest'));
  return unstorable(host, 'manifest.host');
}

export function validateCatalogEntry(entry: unknown): string[] {
  const { entry: validate } = load();
  // Before the schema, which would scan every character of a 10 MB description.
  const tooLarge = entrySizeProblem(entry);
  if (tooLarge) return [tooLarge];
  if (!validate(entry)) return summarise(validate.errors ?? []).map((e) => describeError(e, 'entry'));
  return unstorable(entry, 'entry');
}

/** Text valid to the schema that PostgreSQL cannot store as sent (storable-text.ts). */
function unstorable(value: unknown, root: string): string[] {
  const found = findJsonProblem(value, root);
  return found ? [`${found.at} ${found.problem}, which cannot be stored`] : [];
}

/** Ajv reports each failed oneOf branch; keep the one error a publisher needs to read. */
function summarise(errors: ErrorObject[]): ErrorObject[] {
  const oneOf = errors.find((e) => e.keyword === 'oneOf' && e.instancePath === '');
  const rest = errors.filter((e) => e.schemaPath.indexOf('/oneOf/') === -1 && e.keyword !== 'oneOf');
  if (oneOf) {
    return [...rest, { ...oneOf, message: 'must have exactly one of "url" or "data" (ARD §3.4)' }];
  }
  return rest;
}

function describeError(e: ErrorObject, root: string): string {
  const at = e.instancePath ? `${root}${e.instancePath.replace(/\//g, '.')}` : root;
  if (e.keyword === 'additionalProperties') {
    return `${at} has an unknown field '${(e.params as { additionalProperty: string }).additionalProperty}'`;
  }
  if (e.keyword === 'required') {
    return `${at} is missing required field '${(e.params as { missingProperty: string }).missingProperty}'`;
  }
  if (e.keyword === 'pattern' && e.instancePath === '/identifier') {
    return `${at} must be a URN of the form urn:air:<publisher>:<namespace>:<name> (ARD §4.2.1)`;
  }
  return `${at} ${e.message ?? 'is invalid'}`;
}

function resolveOpenapiDir(): string {
  for (const candidate of [path.resolve(__dirname, '..', '..', 'openapi'), path.resolve(__dirname, '..', '..', '..', 'openapi')]) {
    if (fs.existsSync(path.join(candidate, 'ai-catalog.schema.json'))) return candidate;
  }
  throw new Error(`openapi/ai-catalog.schema.json not found from ${__dirname}`);
}
