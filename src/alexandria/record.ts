/**
 * Alexandria schema v1: the record type, its stable ids, and loading the library file.
 *
 * The record shape is FROZEN by the API contract (docs/reference/alexandria-api-contract-v0.txt): v2 may add fields,
 * never change these. The loader is strict on purpose: a v1 record with an unknown field is rejected rather
 * than silently dropped, because `getResource` promises the record "exactly as ingested" and the catalog
 * mapping (mapping.ts) only carries the fields listed here.
 */
import { readFile } from 'node:fs/promises';

import { InvalidLibraryError, MalformedResourceIdError } from './errors';

export { MalformedResourceIdError } from './errors';

export const ALEXANDRIA_SCHEMA_VERSION = 1 as const;

export const RESOURCE_KINDS = ['paper', 'repo', 'post'] as const;
export type ResourceKind = (typeof RESOURCE_KINDS)[number];

export const SOURCE_TYPES = ['arxiv', 'github', 'web'] as const;
export type SourceType = (typeof SOURCE_TYPES)[number];

export interface AlexandriaSource {
  /** Which upstream the record was (or would be) fetched from. */
  type: SourceType;
  /** RFC 3339 timestamp (UTC) of the fetch. */
  fetched_at: string;
  /** The API or page a live ingester calls for this record. */
  via: string;
}

/** One schema v1 record. Optional fields are absent (never null) when unknown. */
export interface AlexandriaRecord {
  id: string;
  schema_version: typeof ALEXANDRIA_SCHEMA_VERSION;
  kind: ResourceKind;
  title: string;
  url: string;
  authors?: string[];
  /** `YYYY-MM-DD`. */
  date?: string;
  /** Topic tags, each one of the library's topics. */
  tags: string[];
  license_note?: string;
  description: string;
  /** Use-case tags, each one of the library's use cases. */
  use_cases: string[];
  /** Present (and true) only on sponsored records; absent on editorial ones. */
  sponsored?: boolean;
  source: AlexandriaSource;
}

/** The field order of the shipped library file; `catalogEntryToRecord` rebuilds records in this order. */
export const RECORD_FIELDS = [
  'id',
  'schema_version',
  'kind',
  'title',
  'url',
  'authors',
  'date',
  'tags',
  'license_note',
  'description',
  'use_cases',
  'sponsored',
  'source',
] as const satisfies readonly (keyof AlexandriaRecord)[];

export interface AlexandriaLibrary {
  schema_version: typeof ALEXANDRIA_SCHEMA_VERSION;
  /** The topic taxonomy, in the library's editorial order. */
  topics: string[];
  use_cases: string[];
  records: AlexandriaRecord[];
}

// ---------------------------------------------------------------------------------------------------------
// Resource ids
// ---------------------------------------------------------------------------------------------------------

export type ParsedAlexandriaId =
  { kind: 'paper'; arxivId: string } | { kind: 'repo'; owner: string; repo: string } | { kind: 'post'; host: string; slug: string };

/** Upper bound on an id; the longest real one is ~70 characters. Bounds work done on hostile input. */
export const MAX_RESOURCE_ID_LENGTH = 300;

const ID_PREFIX_TO_KIND: Readonly<Record<string, ResourceKind>> = { arxiv: 'paper', github: 'repo', post: 'post' };
const KIND_TO_ID_PREFIX: Readonly<Record<ResourceKind, string>> = { paper: 'arxiv', repo: 'github', post: 'post' };

// arXiv identifier schemes (https://info.arxiv.org/help/arxiv_identifier.html): YYMM.NNNN(N) since 2007,
// archive(.SUBJ)/YYMMNNN before. The library stores ids without a version suffix.
const ARXIV_NEW = /^\d{4}\.\d{4,5}$/;
const ARXIV_OLD = /^[a-z]+(?:-[a-z]+)*(?:\.[A-Z]{2})?\/\d{7}$/;
const ARXIV_VERSIONED = /^(?:\d{4}\.\d{4,5}|[a-z]+(?:-[a-z]+)*(?:\.[A-Z]{2})?\/\d{7})v\d+$/;
/** YYMM.NNNN from 2007-04 to 2014-12, YYMM.NNNNN since 2015-01; months 01-12. */
function isArxivNewStyle(value: string): boolean {
  if (!ARXIV_NEW.test(value)) return false;
  const yymm = Number(value.slice(0, 4));
  const month = yymm % 100;
  if (month < 1 || month > 12 || yymm < 704) return false;
  const digits = value.length - 5;
  return yymm >= 1501 ? digits === 5 : digits === 4;
}
// GitHub: owners are alphanumerics and hyphens (max 39, no leading hyphen); repos [A-Za-z0-9._-] (max 100).
const GITHUB_OWNER = /^[A-Za-z0-9][A-Za-z0-9-]{0,38}$/;
const GITHUB_REPO = /^[A-Za-z0-9._-]{1,100}$/;
// Post hosts are lowercase DNS names without a leading `www.`; the slug is the URL's last path segment
// (RFC 3986 unreserved characters only, so it never needs percent-decoding to compare).
const DNS_LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const POST_HOST = new RegExp(`^${DNS_LABEL}(?:\\.${DNS_LABEL})+$`);
const POST_SLUG = /^[A-Za-z0-9._~-]+$/;

/**
 * Parses a stable resource id. Throws `MalformedResourceIdError` with a reason for anything else; no
 * normalisation is applied (no trimming, no case folding), so a near miss is an error, never a match.
 */
export function parseAlexandriaId(id: string): ParsedAlexandriaId {
  if (typeof id !== 'string') throw new MalformedResourceIdError(String(id), 'an id must be a string');
  if (id.length === 0) throw new MalformedResourceIdError(id, 'the id is empty');
  if (id.length > MAX_RESOURCE_ID_LENGTH) {
    throw new MalformedResourceIdError(id, `ids are at most ${MAX_RESOURCE_ID_LENGTH} characters`);
  }
  const colon = id.indexOf(':');
  if (colon < 0) {
    throw new MalformedResourceIdError(id, 'expected arxiv:<id>, github:<owner>/<repo> or post:<host>/<slug>');
  }
  const prefix = id.slice(0, colon);
  const rest = id.slice(colon + 1);
  const kind = Object.prototype.hasOwnProperty.call(ID_PREFIX_TO_KIND, prefix) ? ID_PREFIX_TO_KIND[prefix] : undefined;
  if (kind === undefined) {
    throw new MalformedResourceIdError(id, `unknown id prefix ${JSON.stringify(prefix)}; expected one of arxiv, github, post (lowercase)`);
  }
  switch (kind) {
    case 'paper':
      if (isArxivNewStyle(rest) || ARXIV_OLD.test(rest)) return { kind, arxivId: rest };
      if (ARXIV_VERSIONED.test(rest)) {
        throw new MalformedResourceIdError(id, 'arXiv ids are stored without a version suffix (drop the trailing vN)');
      }
      throw new MalformedResourceIdError(id, 'expected arxiv:<YYMM.NNNNN> or arxiv:<archive>/<YYMMNNN>');
    case 'repo': {
      const parts = rest.split('/');
      if (parts.length !== 2) throw new MalformedResourceIdError(id, 'expected github:<owner>/<repo>');
      const [owner, repo] = parts as [string, string];
      if (!GITHUB_OWNER.test(owner)) {
        throw new MalformedResourceIdError(id, 'a GitHub owner is 1-39 letters, digits or hyphens, not starting with a hyphen');
      }
      if (!GITHUB_REPO.test(repo) || repo === '.' || repo === '..') {
        throw new MalformedResourceIdError(id, 'a GitHub repository name is 1-100 letters, digits, ".", "_" or "-"');
      }
      return { kind, owner, repo };
    }
    case 'post': {
      const slash = rest.indexOf('/');
      if (slash < 0) throw new MalformedResourceIdError(id, 'expected post:<host>/<slug>');
      const host = rest.slice(0, slash);
      const slug = rest.slice(slash + 1);
      if (host.startsWith('www.')) {
        throw new MalformedResourceIdError(id, 'post hosts are stored without a leading "www."');
      }
      if (!POST_HOST.test(host)) {
        throw new MalformedResourceIdError(id, 'a post host is a lowercase DNS name such as anthropic.com');
      }
      if (slug.includes('/')) {
        throw new MalformedResourceIdError(id, 'a post slug is a single path segment (no "/")');
      }
      if (!POST_SLUG.test(slug) || slug === '.' || slug === '..') {
        throw new MalformedResourceIdError(id, 'a post slug is 1+ letters, digits, ".", "_", "~" or "-"');
      }
      return { kind, host, slug };
    }
    default: {
      const unreachable: never = kind;
      throw new Error(`unhandled kind ${String(unreachable)}`);
    }
  }
}

/** Inverse of `parseAlexandriaId`. */
export function formatAlexandriaId(parsed: ParsedAlexandriaId): string {
  switch (parsed.kind) {
    case 'paper':
      return `arxiv:${parsed.arxivId}`;
    case 'repo':
      return `github:${parsed.owner}/${parsed.repo}`;
    case 'post':
      return `post:${parsed.host}/${parsed.slug}`;
    default: {
      const unreachable: never = parsed;
      throw new Error(`unhandled id ${JSON.stringify(unreachable)}`);
    }
  }
}

export function isResourceKind(value: unknown): value is ResourceKind {
  return typeof value === 'string' && (RESOURCE_KINDS as readonly string[]).includes(value);
}

// ---------------------------------------------------------------------------------------------------------
// Validation
// ---------------------------------------------------------------------------------------------------------

const CALENDAR_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
// RFC 3339 date-time, the `format: date-time` the catalog schema applies to updatedAt (which carries fetched_at).
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/;

export function isCalendarDate(value: string): boolean {
  const m = CALENDAR_DATE.exec(value);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const t = new Date(Date.UTC(y, mo - 1, d));
  return t.getUTCFullYear() === y && t.getUTCMonth() === mo - 1 && t.getUTCDate() === d;
}

export function isRfc3339Timestamp(value: string): boolean {
  return RFC3339.test(value) && !Number.isNaN(Date.parse(value)) && isCalendarDate(value.slice(0, 10));
}

function isHttpUrl(value: string): boolean {
  try {
    const u = new URL(value);
    return (u.protocol === 'https:' || u.protocol === 'http:') && u.hostname.length > 0;
  } catch {
    return false;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.trim().length > 0;
}

export interface RecordVocabulary {
  topics: readonly string[];
  use_cases: readonly string[];
}

const KNOWN_RECORD_FIELDS: ReadonlySet<string> = new Set(RECORD_FIELDS);
const KNOWN_SOURCE_FIELDS: ReadonlySet<string> = new Set(['type', 'fetched_at', 'via']);

/**
 * Problems that make `value` not a schema v1 record (empty when valid). With a vocabulary, tags and use
 * cases must also belong to it; without one only their shape is checked (the catalog mapping uses that).
 */
export function recordProblems(value: unknown, vocabulary?: RecordVocabulary, where = 'record'): string[] {
  const problems: string[] = [];
  const bad = (field: string, message: string): void => {
    problems.push(`${where}.${field}: ${message}`);
  };
  if (!isPlainObject(value)) return [`${where}: must be an object`];

  for (const key of Object.keys(value)) {
    if (!KNOWN_RECORD_FIELDS.has(key)) bad(key, 'unknown field in a schema v1 record');
  }
  if (value.schema_version !== ALEXANDRIA_SCHEMA_VERSION) bad('schema_version', 'must be 1');

  let parsed: ParsedAlexandriaId | undefined;
  if (typeof value.id !== 'string') bad('id', 'must be a string');
  else {
    try {
      parsed = parseAlexandriaId(value.id);
    } catch (err) {
      if (!(err instanceof MalformedResourceIdError)) throw err;
      bad('id', err.reason);
    }
  }
  if (!isResourceKind(value.kind)) bad('kind', 'must be one of paper, repo, post');
  else if (parsed && parsed.kind !== value.kind) {
    bad('kind', `${value.kind} does not match the id prefix (${KIND_TO_ID_PREFIX[parsed.kind]}: is a ${parsed.kind})`);
  }
  if (!isNonEmptyString(value.title)) bad('title', 'must be a non-empty string');
  if (typeof value.url !== 'string' || !isHttpUrl(value.url)) bad('url', 'must be an absolute http(s) URL');
  if (value.authors !== undefined) {
    if (!Array.isArray(value.authors) || value.authors.length === 0 || !value.authors.every(isNonEmptyString)) {
      bad('authors', 'when present, must be a non-empty array of non-empty strings');
    }
  }
  if (value.date !== undefined && (typeof value.date !== 'string' || !isCalendarDate(value.date))) {
    bad('date', 'when present, must be a calendar date YYYY-MM-DD');
  }
  checkTagList(value.tags, 'tags', vocabulary?.topics, bad);
  if (value.license_note !== undefined && !isNonEmptyString(value.license_note)) {
    bad('license_note', 'when present, must be a non-empty string');
  }
  if (!isNonEmptyString(value.description)) bad('description', 'must be a non-empty string');
  checkTagList(value.use_cases, 'use_cases', vocabulary?.use_cases, bad);
  if (value.sponsored !== undefined && typeof value.sponsored !== 'boolean') {
    bad('sponsored', 'when present, must be a boolean');
  }

  const source = value.source;
  if (!isPlainObject(source)) bad('source', 'must be an object {type, fetched_at, via}');
  else {
    for (const key of Object.keys(source)) {
      if (!KNOWN_SOURCE_FIELDS.has(key)) bad(`source.${key}`, 'unknown field in a schema v1 source');
    }
    if (typeof source.type !== 'string' || !(SOURCE_TYPES as readonly string[]).includes(source.type)) {
      bad('source.type', 'must be one of arxiv, github, web');
    }
    if (typeof source.fetched_at !== 'string' || !isRfc3339Timestamp(source.fetched_at)) {
      bad('source.fetched_at', 'must be an RFC 3339 timestamp');
    }
    if (typeof source.via !== 'string' || !isHttpUrl(source.via)) bad('source.via', 'must be an absolute http(s) URL');
  }
  return problems;
}

function checkTagList(
  value: unknown,
  field: string,
  allowed: readonly string[] | undefined,
  bad: (field: string, message: string) => void,
): void {
  if (!Array.isArray(value) || value.length === 0 || !value.every(isNonEmptyString)) {
    bad(field, 'must be a non-empty array of strings');
    return;
  }
  if (new Set(value).size !== value.length) bad(field, 'must not repeat a value');
  if (allowed) {
    for (const v of value) if (!allowed.includes(v)) bad(field, `${JSON.stringify(v)} is not in the library's ${field}`);
  }
}

/** Validates a parsed library document; throws `InvalidLibraryError` listing every problem found. */
export function validateAlexandriaLibrary(document: unknown): AlexandriaLibrary {
  if (!isPlainObject(document)) throw new InvalidLibraryError(['library: must be a JSON object']);
  const problems: string[] = [];
  if (document.schema_version !== ALEXANDRIA_SCHEMA_VERSION) {
    problems.push(`library.schema_version: must be 1, got ${JSON.stringify(document.schema_version)}`);
  }
  const vocabulary = (field: 'topics' | 'use_cases'): string[] => {
    const v = document[field];
    if (!Array.isArray(v) || v.length === 0 || !v.every(isNonEmptyString)) {
      problems.push(`library.${field}: must be a non-empty array of strings`);
      return [];
    }
    if (new Set(v).size !== v.length) problems.push(`library.${field}: must not repeat a value`);
    return v;
  };
  const topics = vocabulary('topics');
  const useCases = vocabulary('use_cases');
  for (const key of Object.keys(document)) {
    if (!['schema_version', 'topics', 'use_cases', 'records'].includes(key)) {
      problems.push(`library.${key}: unknown top-level field`);
    }
  }
  if (!Array.isArray(document.records)) {
    problems.push('library.records: must be an array');
    throw new InvalidLibraryError(problems);
  }
  const seen = new Set<string>();
  document.records.forEach((record: unknown, i: number) => {
    problems.push(...recordProblems(record, { topics, use_cases: useCases }, `records[${i}]`));
    if (isPlainObject(record) && typeof record.id === 'string') {
      if (seen.has(record.id)) problems.push(`records[${i}].id: duplicate id ${record.id}`);
      seen.add(record.id);
    }
  });
  if (problems.length > 0) throw new InvalidLibraryError(problems);
  return {
    schema_version: ALEXANDRIA_SCHEMA_VERSION,
    topics,
    use_cases: useCases,
    records: document.records as AlexandriaRecord[],
  };
}

/** Reads and validates the library file (`data/corpus/alexandria-library.json`). */
export async function loadAlexandriaLibrary(path: string): Promise<AlexandriaLibrary> {
  const text = await readFile(path, 'utf8');
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (err) {
    throw new InvalidLibraryError([`${path}: not valid JSON`], { cause: err });
  }
  return validateAlexandriaLibrary(document);
}
