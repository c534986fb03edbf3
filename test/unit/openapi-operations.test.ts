import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { createOpenApiBackend, OPENAPI_PATH } from '../../src/http/openapi';
import { operationHandlers } from '../../src/http/handlers';

describe('OpenAPI operations', () => {
  const doc = YAML.parse(fs.readFileSync(OPENAPI_PATH, 'utf8')) as { paths: Record<string, Record<string, { operationId?: string }>> };
  const operationIds = Object.values(doc.paths).flatMap((item) =>
    Object.values(item)
      .map((op) => op.operationId)
      .filter(Boolean),
  );

  it('every operationId of the document has a handler, and every handler an operation', () => {
    expect(operationIds.sort()).toEqual(Object.keys(operationHandlers).sort());
  });

  it('keeps the 0.5.0 operations and adds GET /agents/{identifier} as getArdEntry (ARD v0.91 §5.3.4)', () => {
    expect(operationIds).toEqual(expect.arrayContaining(['searchAgents', 'exploreRegistry', 'listAgents', 'getArdEntry']));
    expect(doc.paths['/agents/{identifier}'].get.operationId).toBe('getArdEntry');
  });

  it('adds the change feed GET /changes as listChanges, a registry extension (docs/api.md "Change feed")', () => {
    expect(doc.paths['/changes'].get.operationId).toBe('listChanges');
  });
});

describe('the document the server routes and validates by', () => {
  it('is valid OpenAPI (the server starts in quick mode and does not check it itself)', async () => {
    const api = createOpenApiBackend();
    await api.init();
    expect(() => api.validateDefinition()).not.toThrow();
    expect(api.getOperations().length).toBe(operationIdsOf().length);
  });
});

function operationIdsOf(): string[] {
  const doc = YAML.parse(fs.readFileSync(OPENAPI_PATH, 'utf8')) as { paths: Record<string, Record<string, { operationId?: string }>> };
  return Object.values(doc.paths).flatMap((item) => Object.values(item).flatMap((op) => (op.operationId ? [op.operationId] : [])));
}

describe('the served document extends ARD 0.5.0 without changing it', () => {
  type Doc = {
    paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    components: Record<string, Record<string, unknown>>;
  };
  const ours = YAML.parse(fs.readFileSync(OPENAPI_PATH, 'utf8')) as Doc;
  // The ARD 0.5.0 document as published (a verbatim copy, test/fixtures/ard-spec/, Apache-2.0).
  const upstream = YAML.parse(
    fs.readFileSync(path.resolve(__dirname, '..', 'fixtures', 'ard-spec', 'ard.openapi.0.5.0.yaml'), 'utf8'),
  ) as Doc;
  it('every 0.5.0 path, operation and component is unchanged; only responses (304), query @context, search collapse and result extensions are added', () => {
    for (const [path, item] of Object.entries(upstream.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const served = structuredClone(ours.paths[path][method]) as { responses: Record<string, unknown>; parameters?: unknown };
        // POST /search's optional `collapse` query parameter (docs/api.md "One product, one result"): a 0.5.0 request never sends it.
        if (path === '/search') {
          expect(served.parameters).toEqual([expect.objectContaining({ name: 'collapse', in: 'query', required: false })]);
          delete served.parameters;
        }
        for (const code of Object.keys(served.responses)) if (!(code in operation.responses)) delete served.responses[code];
        expect({ path, method, operation: served }).toEqual({ path, method, operation });
      }
    }
    // ARD v0.91 §5.3.1: the query model gains the optional `@context` member (a 0.5.0 query never sends it).
    const components = structuredClone(ours.components) as Record<string, Record<string, { properties?: Record<string, unknown> }>>;
    expect(components.schemas.QueryModel.properties?.['@context']).toBeDefined();
    delete components.schemas.QueryModel.properties?.['@context'];
    // Registry extensions beside a result's terms (docs/api.md "Registry extensions"), optional: a 0.5.0 client ignores them.
    for (const extension of ['@matchedTools', '@collapsed']) {
      expect(components.schemas.SearchResultItem.properties?.[extension]).toMatchObject({ type: 'array' });
      delete components.schemas.SearchResultItem.properties?.[extension];
    }
    for (const [kind, members] of Object.entries(upstream.components)) {
      for (const [name, value] of Object.entries(members))
        expect({ kind, name, value: components[kind][name] }).toEqual({ kind, name, value });
    }
  });
});
