/**
 * The reversible mapping between an Alexandria schema v1 record and an ARD catalog entry.
 *
 * Invariant (tested for every record of the shipped library): for every valid record r,
 *   catalogEntryToRecord(recordToCatalogEntry(r)) deep-equals r,
 * and every produced entry validates against `$defs/catalogEntry` of ai-catalog.schema.json.
 * The full table of fields lives in docs/alexandria.md; keep the two in step.
 *
 * Identifier scheme: urn:air:alexandria.ard-registry.dev:<kind>:<segment>[:<segment>]
 *   paper  arxiv:<id>            -> ...:paper:<esc(id)>
 *   repo   github:<owner>/<repo> -> ...:repo:<esc(owner)>:<esc(repo)>
 *   post   post:<host>/<slug>    -> ...:post:<esc(host)>:<esc(slug)>
 * The publisher is a domain of the library's own, so no Alexandria URN can equal an MCP-server URN of the
 * other corpora (those are urn:air:github.com:<owner>:<repo>, and github:mem0ai/mem0 is in both worlds).
 *
 * esc(): URN segments may only hold [A-Za-z0-9._-] (the catalog schema's pattern). Letters, digits, '.' and
 * '-' are kept; every other character, '_' included, becomes '_' followed by the two uppercase hex digits of
 * each of its UTF-8 bytes (percent-encoding with '_' for '%'). Escaping '_' itself is what makes the scheme
 * reversible; decoding accepts only this canonical form, so each id has exactly one URN.
 *   github:run-llama/llama_index -> urn:air:alexandria.ard-registry.dev:repo:run-llama:llama_5Findex
 */
import type { CatalogEntry, CatalogMetadataValue } from './catalog-entry';
import { CatalogEntryMappingError, InvalidLibraryError, MalformedResourceIdError } from './errors';
import {
  ALEXANDRIA_SCHEMA_VERSION,
  type AlexandriaRecord,
  formatAlexandriaId,
  type ParsedAlexandriaId,
  parseAlexandriaId,
  recordProblems,
  RESOURCE_KINDS,
  type ResourceKind,
  type SourceType,
} from './record';

/** The URN publisher: a domain the library controls, distinct from every publisher of the other corpora. */
export const ALEXANDRIA_URN_PUBLISHER = 'alexandria.ard-registry.dev';
export const ALEXANDRIA_URN_PREFIX = `urn:air:${ALEXANDRIA_URN_PUBLISHER}:`;

/**
 * The ARD `type` of every Alexandria entry. A library resource is neither an MCP server card nor an A2A agent
 * card, so it gets a vendor-tree media type of its own; `+json` because its full description is the JSON
 * v1 record that `get_resource` returns. One type for all kinds: the kind is a filterable metadata value.
 */
export const ALEXANDRIA_MEDIA_TYPE = 'application/vnd.alexandria.resource+json';

/** Metadata keys. Flat snake_case names (no dots), so a filter path such as `metadata.kind` is unambiguous. */
export const METADATA_KEYS = {
  alexandriaId: 'alexandria_id',
  kind: 'kind',
  date: 'date',
  authors: 'authors',
  licenseNote: 'license_note',
  sponsored: 'sponsored',
  sourceType: 'source_type',
  sourceFetchedAt: 'source_fetched_at',
  sourceVia: 'source_via',
} as const;

/** Filter paths (ARD QueryModel field paths) under which Alexandria fields are searchable. */
export const FILTER_PATHS = {
  type: 'type',
  topic: 'tags',
  useCase: 'capabilities',
  kind: `metadata.${METADATA_KEYS.kind}`,
} as const;

// ---------------------------------------------------------------------------------------------------------
// URN escaping
// ---------------------------------------------------------------------------------------------------------

const KEPT = /^[A-Za-z0-9.-]$/;
const utf8 = new TextEncoder();
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** Escapes one id component into a URN segment (see the module comment). */
export function escapeUrnSegment(component: string): string {
  let out = '';
  for (const ch of component) {
    if (KEPT.test(ch)) out += ch;
    else for (const byte of utf8.encode(ch)) out += `_${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Inverse of `escapeUrnSegment`; returns null for anything that is not a canonical escaped segment. */
export function unescapeUrnSegment(segment: string): string | null {
  if (segment.length === 0 || !/^[A-Za-z0-9._-]+$/.test(segment)) return null;
  const bytes: number[] = [];
  for (let i = 0; i < segment.length;) {
    const ch = segment[i] as string;
    if (ch === '_') {
      const hex = segment.slice(i + 1, i + 3);
      if (!/^[0-9A-F]{2}$/.test(hex)) return null;
      bytes.push(parseInt(hex, 16));
      i += 3;
    } else {
      bytes.push(ch.charCodeAt(0));
      i += 1;
    }
  }
  let decoded: string;
  try {
    decoded = strictUtf8.decode(Uint8Array.from(bytes));
  } catch {
    return null;
  }
  // Canonical form only: '_41' for 'A' or lowercase hex would decode, but would give one id two URNs.
  return escapeUrnSegment(decoded) === segment ? decoded : null;
}

export function alexandriaIdToUrn(id: string): string {
  const parsed = parseAlexandriaId(id);
  return `${ALEXANDRIA_URN_PREFIX}${urnSegments(parsed).map(escapeUrnSegment).join(':')}`;
}

function urnSegments(parsed: ParsedAlexandriaId): string[] {
  switch (parsed.kind) {
    case 'paper':
      return ['paper', parsed.arxivId];
    case 'repo':
      return ['repo', parsed.owner, parsed.repo];
    case 'post':
      return ['post', parsed.host, parsed.slug];
    default: {
      const unreachable: never = parsed;
      throw new Error(`unhandled id ${JSON.stringify(unreachable)}`);
    }
  }
}

export function isAlexandriaUrn(urn: string): boolean {
  return typeof urn === 'string' && urn.startsWith(ALEXANDRIA_URN_PREFIX);
}

/**
 * Inverse of `alexandriaIdToUrn`. Only the canonical spelling is accepted (lowercase `urn:air:` and
 * publisher); anything else throws `MalformedResourceIdError` carrying the URN and the reason.
 */
export function urnToAlexandriaId(urn: string): string {
  if (!isAlexandriaUrn(urn)) {
    throw new MalformedResourceIdError(urn, `not an Alexandria URN (expected the prefix ${ALEXANDRIA_URN_PREFIX})`);
  }
  const segments = urn.slice(ALEXANDRIA_URN_PREFIX.length).split(':');
  const [kind, ...escaped] = segments;
  const expected: Record<ResourceKind, number> = { paper: 1, repo: 2, post: 2 };
  if (!(RESOURCE_KINDS as readonly string[]).includes(kind ?? '')) {
    throw new MalformedResourceIdError(urn, 'the segment after the publisher must be paper, repo or post');
  }
  const k = kind as ResourceKind;
  if (escaped.length !== expected[k]) {
    throw new MalformedResourceIdError(urn, `a ${k} URN has ${expected[k]} segment(s) after the kind`);
  }
  const parts = escaped.map(unescapeUrnSegment);
  if (parts.some((p) => p === null)) throw new MalformedResourceIdError(urn, 'a segment is not canonically escaped');
  const [a, b] = parts as string[];
  let parsed: ParsedAlexandriaId;
  switch (k) {
    case 'paper':
      parsed = { kind: k, arxivId: a as string };
      break;
    case 'repo':
      parsed = { kind: k, owner: a as string, repo: b as string };
      break;
    case 'post':
      parsed = { kind: k, host: a as string, slug: b as string };
      break;
    default: {
      const unreachable: never = k;
      throw new Error(`unhandled kind ${String(unreachable)}`);
    }
  }
  const id = formatAlexandriaId(parsed);
  // Re-parse: the components must be valid for their kind (e.g. no '/' inside a repo name), and the result
  // must map back to this very URN, or two URNs could name one resource.
  try {
    parseAlexandriaId(id);
  } catch (err) {
    if (err instanceof MalformedResourceIdError) throw new MalformedResourceIdError(urn, `decodes to ${err.message}`);
    throw err;
  }
  if (alexandriaIdToUrn(id) !== urn) throw new MalformedResourceIdError(urn, 'not the canonical URN of its id');
  return id;
}

// ---------------------------------------------------------------------------------------------------------
// Record <-> entry
// ---------------------------------------------------------------------------------------------------------

/** An entry produced by `recordToCatalogEntry`: always `url`, never `data`. */
export type AlexandriaCatalogEntry = CatalogEntry & {
  url: string;
  description: string;
  tags: string[];
  capabilities: string[];
  version: string;
  updatedAt: string;
  metadata: Record<string, CatalogMetadataValue>;
};

/** Maps a valid v1 record to its catalog entry. Throws `InvalidLibraryError` for an invalid record. */
export function recordToCatalogEntry(record: AlexandriaRecord): AlexandriaCatalogEntry {
  const problems = recordProblems(record);
  if (problems.length > 0) throw new InvalidLibraryError(problems);

  const metadata: Record<string, CatalogMetadataValue> = {
    [METADATA_KEYS.alexandriaId]: record.id,
    [METADATA_KEYS.kind]: record.kind,
  };
  if (record.date !== undefined) metadata[METADATA_KEYS.date] = record.date;
  // Metadata values must be scalars; JSON keeps the list exact (order, and names containing ';' or ',').
  if (record.authors !== undefined) metadata[METADATA_KEYS.authors] = JSON.stringify(record.authors);
  if (record.license_note !== undefined) metadata[METADATA_KEYS.licenseNote] = record.license_note;
  if (record.sponsored !== undefined) metadata[METADATA_KEYS.sponsored] = record.sponsored;
  metadata[METADATA_KEYS.sourceType] = record.source.type;
  metadata[METADATA_KEYS.sourceFetchedAt] = record.source.fetched_at;
  metadata[METADATA_KEYS.sourceVia] = record.source.via;

  return {
    identifier: alexandriaIdToUrn(record.id),
    displayName: record.title,
    type: ALEXANDRIA_MEDIA_TYPE,
    url: record.url,
    description: record.description,
    tags: [...record.tags],
    capabilities: [...record.use_cases],
    version: String(record.schema_version),
    // Derived copy for the registry's recency sorting; the reverse mapping reads metadata.source_fetched_at.
    updatedAt: record.source.fetched_at,
    metadata,
  };
}

export function isAlexandriaEntry(entry: Pick<CatalogEntry, 'type' | 'identifier'>): boolean {
  return entry.type === ALEXANDRIA_MEDIA_TYPE && isAlexandriaUrn(entry.identifier);
}

/**
 * Rebuilds the v1 record from an entry made by `recordToCatalogEntry` (fields in the library file's order).
 * Fields the registry may add on its own (representativeQueries, trustManifest, other metadata keys) are
 * ignored; anything missing or inconsistent throws `CatalogEntryMappingError`.
 */
export function catalogEntryToRecord(entry: CatalogEntry): AlexandriaRecord {
  const problems: string[] = [];
  const fail = (): never => {
    throw new CatalogEntryMappingError(entry?.identifier, problems);
  };
  if (typeof entry !== 'object' || entry === null) {
    problems.push('not an object');
    return fail();
  }
  if (entry.type !== ALEXANDRIA_MEDIA_TYPE) problems.push(`type must be ${ALEXANDRIA_MEDIA_TYPE}`);

  let id: string | undefined;
  try {
    id = urnToAlexandriaId(entry.identifier);
  } catch (err) {
    if (!(err instanceof MalformedResourceIdError)) throw err;
    problems.push(`identifier: ${err.reason}`);
  }
  if (entry.data !== undefined) problems.push('an Alexandria entry carries url, never data');
  if (entry.version !== String(ALEXANDRIA_SCHEMA_VERSION)) {
    problems.push(`version must be "${ALEXANDRIA_SCHEMA_VERSION}" (schema v1)`);
  }
  const metadata = entry.metadata ?? {};
  const str = (key: string, required: boolean): string | undefined => {
    const v = metadata[key];
    if (v === undefined && !required) return undefined;
    if (typeof v !== 'string') {
      problems.push(`metadata.${key} must be a string`);
      return undefined;
    }
    return v;
  };
  const metadataId = str(METADATA_KEYS.alexandriaId, true);
  if (id !== undefined && metadataId !== undefined && metadataId !== id) {
    problems.push(`metadata.${METADATA_KEYS.alexandriaId} (${metadataId}) disagrees with the identifier (${id})`);
  }
  const kind = str(METADATA_KEYS.kind, true);
  const date = str(METADATA_KEYS.date, false);
  const authorsJson = str(METADATA_KEYS.authors, false);
  const licenseNote = str(METADATA_KEYS.licenseNote, false);
  const sourceType = str(METADATA_KEYS.sourceType, true);
  const fetchedAt = str(METADATA_KEYS.sourceFetchedAt, true);
  const via = str(METADATA_KEYS.sourceVia, true);
  const sponsored = metadata[METADATA_KEYS.sponsored];
  if (sponsored !== undefined && typeof sponsored !== 'boolean') {
    problems.push(`metadata.${METADATA_KEYS.sponsored} must be a boolean`);
  }
  let authors: unknown;
  if (authorsJson !== undefined) {
    try {
      authors = JSON.parse(authorsJson);
    } catch {
      problems.push(`metadata.${METADATA_KEYS.authors} must be a JSON array of strings`);
    }
  }
  if (problems.length > 0) return fail();

  const candidate: Record<string, unknown> = {
    id,
    schema_version: ALEXANDRIA_SCHEMA_VERSION,
    kind,
    title: entry.displayName,
    url: entry.url,
  };
  if (authors !== undefined) candidate.authors = authors;
  if (date !== undefined) candidate.date = date;
  candidate.tags = Array.isArray(entry.tags) ? [...entry.tags] : entry.tags;
  if (licenseNote !== undefined) candidate.license_note = licenseNote;
  candidate.description = entry.description;
  candidate.use_cases = Array.isArray(entry.capabilities) ? [...entry.capabilities] : entry.capabilities;
  if (sponsored !== undefined) candidate.sponsored = sponsored;
  candidate.source = { type: sourceType as SourceType, fetched_at: fetchedAt, via };

  problems.push(...recordProblems(candidate));
  if (problems.length > 0) return fail();
  return candidate as unknown as AlexandriaRecord;
}
