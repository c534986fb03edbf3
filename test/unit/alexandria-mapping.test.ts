import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import fc from 'fast-check';

import type { CatalogEntry } from '../../src/alexandria/catalog-entry';
import { CatalogEntryMappingError, InvalidLibraryError, MalformedResourceIdError } from '../../src/alexandria/errors';
import {
  ALEXANDRIA_MEDIA_TYPE,
  alexandriaIdToUrn,
  catalogEntryToRecord,
  escapeUrnSegment,
  recordToCatalogEntry,
  unescapeUrnSegment,
  urnToAlexandriaId,
} from '../../src/alexandria/mapping';
import type { AlexandriaLibrary, AlexandriaRecord } from '../../src/alexandria/record';
import { loadShippedLibrary } from './alexandria-test-double';

const ROOT = path.join(__dirname, '..', '..');
const SCHEMA_PATH = existsSync(path.join(ROOT, 'openapi', 'ai-catalog.schema.json'))
  ? path.join(ROOT, 'openapi', 'ai-catalog.schema.json')
  : '/work/shared/ard-spec/ai-catalog.schema.json';
const URN_PATTERN = /^urn:air:[a-zA-Z0-9.-]+(:[a-zA-Z0-9._-]+)+$/;

let library: AlexandriaLibrary;
beforeAll(async () => {
  library = await loadShippedLibrary();
});

describe('URN scheme', () => {
  it.each([
    ['arxiv:2210.03629', 'urn:air:alexandria.ard-registry.dev:paper:2210.03629'],
    ['arxiv:hep-th/9901001', 'urn:air:alexandria.ard-registry.dev:paper:hep-th_2F9901001'],
    ['github:letta-ai/letta', 'urn:air:alexandria.ard-registry.dev:repo:letta-ai:letta'],
    ['github:run-llama/llama_index', 'urn:air:alexandria.ard-registry.dev:repo:run-llama:llama_5Findex'],
    ['github:OpenHands/OpenHands', 'urn:air:alexandria.ard-registry.dev:repo:OpenHands:OpenHands'],
    ['post:anthropic.com/building-effective-agents', 'urn:air:alexandria.ard-registry.dev:post:anthropic.com:building-effective-agents'],
    ['post:example.org/~alice', 'urn:air:alexandria.ard-registry.dev:post:example.org:_7Ealice'],
  ])('%s <-> %s', (id, urn) => {
    expect(alexandriaIdToUrn(id)).toBe(urn);
    expect(urnToAlexandriaId(urn)).toBe(id);
    expect(urn).toMatch(URN_PATTERN);
  });

  it('gives every shipped record a distinct, pattern-valid URN that maps back to its id', () => {
    const urns = library.records.map((r) => alexandriaIdToUrn(r.id));
    expect(new Set(urns).size).toBe(180);
    for (const [i, urn] of urns.entries()) {
      expect(urn).toMatch(URN_PATTERN);
      expect(urnToAlexandriaId(urn)).toBe(library.records[i]!.id);
    }
  });

  it('cannot collide with the identifiers of the other shipped corpora', () => {
    const ours = new Set(library.records.map((r) => alexandriaIdToUrn(r.id)));
    const corpusDir = path.join(ROOT, 'data', 'corpus');
    const others = ['docker-mcp-ai-catalog.json', 'toolhive-ai-catalog.json', 'agentfinder-sample-ai-catalog.first33.normalised.json']
      .filter((f) => existsSync(path.join(corpusDir, f)))
      .flatMap((f) => (JSON.parse(readFileSync(path.join(corpusDir, f), 'utf8')) as { entries: CatalogEntry[] }).entries);
    expect(others.length).toBeGreaterThan(0);
    for (const entry of others) {
      expect(ours.has(entry.identifier)).toBe(false);
      expect(entry.identifier.startsWith('urn:air:alexandria.ard-registry.dev:')).toBe(false);
    }
    // The same GitHub repo as an MCP server and as a library resource: two different identities.
    expect(alexandriaIdToUrn('github:mem0ai/mem0')).not.toBe('urn:air:github.com:mem0ai:mem0');
  });

  it('escapes any string into a pattern-valid segment and back (property)', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 40, unit: 'binary' }), (s) => {
        const segment = escapeUrnSegment(s);
        expect(segment).toMatch(/^[A-Za-z0-9._-]+$/);
        expect(unescapeUrnSegment(segment)).toBe(s);
      }),
      { numRuns: 500 },
    );
  });

  it.each([
    ['llama_5findex', 'lowercase hex'],
    ['llama_index', 'a bare underscore'],
    ['_41bc', 'an escaped character that needs no escaping'],
    ['abc_', 'a truncated escape'],
    ['_C3_28', 'invalid UTF-8'],
  ])('rejects the non-canonical segment %j (%s)', (segment) => {
    expect(unescapeUrnSegment(segment)).toBeNull();
  });

  it.each([
    ['urn:air:github.com:mem0ai:mem0', /not an Alexandria URN/],
    ['URN:AIR:alexandria.ard-registry.dev:paper:2210.03629', /not an Alexandria URN/],
    ['urn:air:alexandria.ard-registry.dev:book:x', /paper, repo or post/],
    ['urn:air:alexandria.ard-registry.dev:repo:letta-ai', /2 segment/],
    ['urn:air:alexandria.ard-registry.dev:paper:2210.03629:extra', /1 segment/],
    ['urn:air:alexandria.ard-registry.dev:repo:run-llama:llama_index', /not canonically escaped/],
    ['urn:air:alexandria.ard-registry.dev:repo:letta-ai:a_2Fb', /decodes to malformed resource id/],
    ['urn:air:alexandria.ard-registry.dev:paper:2210.03629v2', /decodes to malformed resource id/],
  ])('urnToAlexandriaId rejects %s', (urn, reason) => {
    let error: unknown;
    try {
      urnToAlexandriaId(urn);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(MalformedResourceIdError);
    expect((error as MalformedResourceIdError).reason).toMatch(reason);
  });
});

describe('recordToCatalogEntry / catalogEntryToRecord', () => {
  it('maps the ReAct record field by field', () => {
    const react = library.records.find((r) => r.id === 'arxiv:2210.03629')!;
    expect(recordToCatalogEntry(react)).toEqual({
      identifier: 'urn:air:alexandria.ard-registry.dev:paper:2210.03629',
      displayName: 'ReAct: Synergizing Reasoning and Acting in Language Models',
      type: 'application/vnd.alexandria.resource+json',
      url: 'https://arxiv.org/abs/2210.03629',
      description: react.description,
      tags: ['agents', 'reasoning', 'tool-use'],
      capabilities: ['plan-and-reason', 'tool-use-and-function-calling'],
      version: '1',
      updatedAt: '2026-10-01T09:00:00Z',
      metadata: {
        alexandria_id: 'arxiv:2210.03629',
        kind: 'paper',
        date: '2022-10-06',
        authors: JSON.stringify(react.authors),
        license_note: 'arXiv non-exclusive license',
        source_type: 'arxiv',
        source_fetched_at: '2026-10-01T09:00:00Z',
        source_via: 'https://export.arxiv.org/api/query',
      },
    });
  });

  it('marks sponsored records in metadata and leaves editorial ones without the key', () => {
    const mem0 = recordToCatalogEntry(library.records.find((r) => r.id === 'github:mem0ai/mem0')!);
    expect(mem0.metadata.sponsored).toBe(true);
    const letta = recordToCatalogEntry(library.records.find((r) => r.id === 'github:letta-ai/letta')!);
    expect('sponsored' in letta.metadata).toBe(false);
  });

  it('round-trips all 180 records exactly, including key order', () => {
    expect(library.records).toHaveLength(180);
    for (const record of library.records) {
      const back = catalogEntryToRecord(recordToCatalogEntry(record));
      expect(back).toStrictEqual(record);
      expect(JSON.stringify(back)).toBe(JSON.stringify(record));
    }
  });

  it('round-trips through JSON serialisation (what a store does)', () => {
    for (const record of library.records) {
      const stored = JSON.parse(JSON.stringify(recordToCatalogEntry(record))) as CatalogEntry;
      expect(catalogEntryToRecord(stored)).toStrictEqual(record);
    }
  });

  it('produces entries that validate against $defs/catalogEntry of ai-catalog.schema.json (all 180)', () => {
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    addFormats(ajv);
    const schema = JSON.parse(readFileSync(SCHEMA_PATH, 'utf8')) as { $id?: string };
    ajv.addSchema(schema, 'ai-catalog');
    const validate = ajv.getSchema('ai-catalog#/$defs/catalogEntry');
    if (!validate) throw new Error('catalogEntry definition not found');
    let validated = 0;
    for (const record of library.records) {
      const entry = recordToCatalogEntry(record);
      const ok = validate(entry);
      if (!ok) throw new Error(`${record.id}: ${ajv.errorsText(validate.errors)}`);
      for (const value of Object.values(entry.metadata)) expect(['string', 'number', 'boolean']).toContain(typeof value);
      expect(entry.type).toBe(ALEXANDRIA_MEDIA_TYPE);
      validated += 1;
    }
    expect(validated).toBe(180);
    // The validator is live: a broken entry fails.
    expect(validate({ ...recordToCatalogEntry(library.records[0]!), identifier: 'urn:air:x:a/b' })).toBe(false);
  });

  it('keeps authors exact through the scalar encoding, whatever they contain (property)', () => {
    const base = library.records[0]!;
    fc.assert(
      fc.property(
        fc.array(
          fc.string({ minLength: 1 }).filter((s) => s.trim().length > 0),
          { minLength: 1, maxLength: 6 },
        ),
        (authors) => {
          const record: AlexandriaRecord = { ...base, authors };
          expect(catalogEntryToRecord(recordToCatalogEntry(record))).toStrictEqual(record);
        },
      ),
    );
  });

  it('refuses to map an invalid record', () => {
    const bad = { ...library.records[0]!, title: '' };
    expect(() => recordToCatalogEntry(bad)).toThrow(InvalidLibraryError);
  });

  const tamper: Array<[string, (e: CatalogEntry) => void, RegExp]> = [
    [
      'another media type',
      (e) => {
        e.type = 'application/mcp-server-card+json';
      },
      /type must be/,
    ],
    [
      'a foreign identifier',
      (e) => {
        e.identifier = 'urn:air:github.com:letta-ai:letta';
      },
      /not an Alexandria URN/,
    ],
    [
      'a metadata id that disagrees',
      (e) => {
        e.metadata!.alexandria_id = 'arxiv:2302.04761';
      },
      /disagrees with the identifier/,
    ],
    [
      'authors that are not JSON',
      (e) => {
        e.metadata!.authors = 'Shunyu Yao; Jeffrey Zhao';
      },
      /JSON array of strings/,
    ],
    [
      'authors that are a JSON string',
      (e) => {
        e.metadata!.authors = '"Shunyu Yao"';
      },
      /authors/,
    ],
    [
      'a missing source_via',
      (e) => {
        delete e.metadata!.source_via;
      },
      /source_via must be a string/,
    ],
    [
      'version 2',
      (e) => {
        e.version = '2';
      },
      /version must be "1"/,
    ],
    [
      'inline data',
      (e) => {
        e.data = {};
      },
      /never data/,
    ],
    [
      'a sponsored string',
      (e) => {
        e.metadata!.sponsored = 'true';
      },
      /sponsored must be a boolean/,
    ],
    [
      'a kind that contradicts the URN',
      (e) => {
        e.metadata!.kind = 'repo';
      },
      /does not match the id prefix/,
    ],
  ];
  it.each(tamper)('rejects an entry with %s', (_label, mutate, reason) => {
    const entry = JSON.parse(JSON.stringify(recordToCatalogEntry(library.records[0]!))) as CatalogEntry;
    mutate(entry);
    let error: unknown;
    try {
      catalogEntryToRecord(entry);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(CatalogEntryMappingError);
    expect((error as CatalogEntryMappingError).problems.join('; ')).toMatch(reason);
  });

  it('ignores fields a registry may add on its own', () => {
    const record = library.records[5]!;
    const entry: CatalogEntry = {
      ...recordToCatalogEntry(record),
      representativeQueries: ['a', 'b'],
      metadata: { ...recordToCatalogEntry(record).metadata, ingested_by: 'crawler' },
    };
    expect(catalogEntryToRecord(entry)).toStrictEqual(record);
  });
});
