import { readFile } from 'node:fs/promises';

import { InvalidLibraryError, MalformedResourceIdError } from '../../src/alexandria/errors';
import {
  type AlexandriaRecord,
  formatAlexandriaId,
  parseAlexandriaId,
  recordProblems,
  validateAlexandriaLibrary,
} from '../../src/alexandria/record';
import { LIBRARY_PATH, loadShippedLibrary } from './alexandria-test-double';

describe('parseAlexandriaId', () => {
  it.each([
    ['arxiv:2210.03629', { kind: 'paper', arxivId: '2210.03629' }],
    ['arxiv:2004.12832', { kind: 'paper', arxivId: '2004.12832' }],
    ['arxiv:1410.3629', { kind: 'paper', arxivId: '1410.3629' }],
    ['arxiv:hep-th/9901001', { kind: 'paper', arxivId: 'hep-th/9901001' }],
    ['arxiv:math.GT/0309136', { kind: 'paper', arxivId: 'math.GT/0309136' }],
    ['github:letta-ai/letta', { kind: 'repo', owner: 'letta-ai', repo: 'letta' }],
    ['github:run-llama/llama_index', { kind: 'repo', owner: 'run-llama', repo: 'llama_index' }],
    ['github:567-labs/instructor', { kind: 'repo', owner: '567-labs', repo: 'instructor' }],
    ['post:anthropic.com/building-effective-agents', { kind: 'post', host: 'anthropic.com', slug: 'building-effective-agents' }],
    [
      'post:modelcontextprotocol.io/specification-2025-06-18',
      { kind: 'post', host: 'modelcontextprotocol.io', slug: 'specification-2025-06-18' },
    ],
  ])('parses %s', (id, expected) => {
    expect(parseAlexandriaId(id)).toEqual(expected);
    expect(formatAlexandriaId(parseAlexandriaId(id))).toBe(id);
  });

  it('parses every id of the shipped library, with the kind the record states', async () => {
    const library = await loadShippedLibrary();
    for (const record of library.records) {
      const parsed = parseAlexandriaId(record.id);
      expect(parsed.kind).toBe(record.kind);
      expect(formatAlexandriaId(parsed)).toBe(record.id);
    }
  });

  it.each([
    ['', /empty/],
    ['2210.03629', /expected arxiv:<id>/],
    ['ARXIV:2210.03629', /unknown id prefix "ARXIV"/],
    ['doi:10.1000/182', /unknown id prefix "doi"/],
    ['arxiv:2210.03629v2', /without a version suffix/],
    ['arxiv:2210.0362', /expected arxiv:<YYMM.NNNNN>/],
    ['arxiv:2213.03629', /expected arxiv:<YYMM.NNNNN>/],
    ['arxiv:1410.36290', /expected arxiv:<YYMM.NNNNN>/],
    ['arxiv: 2210.03629', /expected arxiv:<YYMM.NNNNN>/],
    ['arxiv:2210.03629 ', /expected arxiv:<YYMM.NNNNN>/],
    ['github:letta-ai', /expected github:<owner>\/<repo>/],
    ['github:letta-ai/letta/tree', /expected github:<owner>\/<repo>/],
    ['github:-bad/repo', /GitHub owner/],
    ['github:owner_x/repo', /GitHub owner/],
    ['github:letta-ai/..', /repository name/],
    ['github:letta-ai/le tta', /repository name/],
    ['post:anthropic.com', /expected post:<host>\/<slug>/],
    ['post:www.anthropic.com/building-effective-agents', /without a leading "www."/],
    ['post:Anthropic.com/x', /lowercase DNS name/],
    ['post:localhost/x', /lowercase DNS name/],
    ['post:anthropic.com/a/b', /single path segment/],
    ['post:anthropic.com/', /slug is 1\+/],
    ['post:anthropic.com/a%20b', /slug is 1\+/],
    ['x'.repeat(301), /at most 300 characters/],
  ])('rejects %j with a reason', (id, reason) => {
    let error: unknown;
    try {
      parseAlexandriaId(id);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(MalformedResourceIdError);
    expect((error as MalformedResourceIdError).id).toBe(id);
    expect((error as MalformedResourceIdError).reason).toMatch(reason);
    expect((error as MalformedResourceIdError).code).toBe('MALFORMED_RESOURCE_ID');
  });
});

describe('loadAlexandriaLibrary', () => {
  it('loads the shipped file: 180 records, 24 topics, 13 use cases, 92/65/23 by kind, 3 sponsored', async () => {
    const library = await loadShippedLibrary();
    expect(library.records).toHaveLength(180);
    expect(library.topics).toHaveLength(24);
    expect(library.topics.slice(0, 5)).toEqual(['agents', 'memory', 'evals', 'tool-use', 'retrieval']);
    expect(library.use_cases).toHaveLength(13);
    const byKind = (k: string) => library.records.filter((r) => r.kind === k).length;
    expect([byKind('paper'), byKind('repo'), byKind('post')]).toEqual([92, 65, 23]);
    expect(
      library.records
        .filter((r) => r.sponsored === true)
        .map((r) => r.id)
        .sort(),
    ).toEqual(['github:AgentOps-AI/agentops', 'github:ComposioHQ/composio', 'github:mem0ai/mem0']);
    const react = library.records.find((r) => r.id === 'arxiv:2210.03629');
    expect(react?.title).toBe('ReAct: Synergizing Reasoning and Acting in Language Models');
    expect(react?.source.type).toBe('arxiv');
  });

  async function shippedDocument(): Promise<{
    schema_version: number;
    topics: string[];
    use_cases: string[];
    records: Record<string, unknown>[];
  }> {
    return JSON.parse(await readFile(LIBRARY_PATH, 'utf8'));
  }

  function problemsOf(document: unknown): readonly string[] {
    try {
      validateAlexandriaLibrary(document);
    } catch (err) {
      if (err instanceof InvalidLibraryError) return err.problems;
      throw err;
    }
    return [];
  }

  it.each<[string, (doc: Awaited<ReturnType<typeof shippedDocument>>) => void, RegExp]>([
    [
      'an unknown record field',
      (d) => {
        d.records[0]!.citations = 5;
      },
      /records\[0\]\.citations: unknown field/,
    ],
    [
      'a tag outside the topics',
      (d) => {
        d.records[1]!.tags = ['agents', 'vibes'];
      },
      /records\[1\]\.tags: "vibes" is not in/,
    ],
    [
      'a use case outside the use cases',
      (d) => {
        d.records[2]!.use_cases = ['dance'];
      },
      /records\[2\]\.use_cases: "dance"/,
    ],
    [
      'a duplicate id',
      (d) => {
        d.records[3]!.id = d.records[0]!.id;
      },
      /records\[3\]\.id: duplicate id arxiv:2210\.03629/,
    ],
    [
      'a kind that contradicts the id',
      (d) => {
        d.records[0]!.kind = 'repo';
      },
      /records\[0\]\.kind: repo does not match/,
    ],
    [
      'schema_version 2 on a record',
      (d) => {
        d.records[0]!.schema_version = 2;
      },
      /records\[0\]\.schema_version: must be 1/,
    ],
    [
      'schema_version 2 on the library',
      (d) => {
        d.schema_version = 2;
      },
      /library\.schema_version: must be 1/,
    ],
    [
      'an impossible date',
      (d) => {
        d.records[0]!.date = '2023-02-30';
      },
      /records\[0\]\.date/,
    ],
    [
      'a null optional field',
      (d) => {
        d.records[0]!.license_note = null;
      },
      /records\[0\]\.license_note/,
    ],
    [
      'a sponsored string',
      (d) => {
        d.records[0]!.sponsored = 'yes';
      },
      /records\[0\]\.sponsored/,
    ],
    [
      'a bad fetched_at',
      (d) => {
        (d.records[0]!.source as Record<string, unknown>).fetched_at = 'yesterday';
      },
      /source\.fetched_at/,
    ],
    [
      'an unknown source field',
      (d) => {
        (d.records[0]!.source as Record<string, unknown>).etag = 'x';
      },
      /source\.etag: unknown field/,
    ],
    [
      'a malformed id',
      (d) => {
        d.records[0]!.id = 'arxiv:2210.03629v1';
      },
      /records\[0\]\.id: arXiv ids are stored without/,
    ],
  ])('rejects %s', async (_label, mutate, expected) => {
    const document = await shippedDocument();
    mutate(document);
    const problems = problemsOf(document);
    expect(problems.some((p) => expected.test(p))).toBe(true);
  });

  it('accepts the shipped document unchanged (no false positives)', async () => {
    expect(problemsOf(await shippedDocument())).toEqual([]);
  });

  it('checks shape without a vocabulary (used by the catalog mapping)', () => {
    const record: AlexandriaRecord = {
      id: 'github:example-org/example',
      schema_version: 1,
      kind: 'repo',
      title: 'Example',
      url: 'https://github.com/example-org/example',
      tags: ['not-a-topic'],
      description: 'd',
      use_cases: ['u'],
      source: { type: 'github', fetched_at: '2026-10-01T09:00:00Z', via: 'https://api.github.com/repos/example-org/example' },
    };
    expect(recordProblems(record)).toEqual([]);
    expect(recordProblems(record, { topics: ['agents'], use_cases: ['u'] })).toEqual([
      'record.tags: "not-a-topic" is not in the library\'s tags',
    ]);
  });
});
