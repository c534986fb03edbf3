// Every operation of the ARD OpenAPI document has a handler and is routed (ARD 0.5.0 contract).
import fs from 'node:fs';
import YAML from 'yaml';
import { operationHandlers } from '../../src/http/handlers';
import { OPENAPI_PATH } from '../../src/http/openapi';
import { startTestRegistry, type TestRegistry } from '../helpers/registry';

const document = YAML.parse(fs.readFileSync(OPENAPI_PATH, 'utf8')) as { paths: Record<string, Record<string, { operationId?: string }>> };
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head'];
const operations = Object.entries(document.paths).flatMap(([path, item]) =>
  Object.entries(item)
    .filter(([method]) => METHODS.includes(method))
    .map(([method, op]) => ({ path, method, operationId: op.operationId })),
);

let registry: TestRegistry;
beforeAll(async () => {
  registry = await startTestRegistry({ withDemoCorpus: false });
});
afterAll(async () => {
  await registry.close();
});

describe('OpenAPI compliance', () => {
  it('the document has operations, each with an operationId', () => {
    // listChanges: the change feed, a registry extension (docs/api.md "Change feed").
    expect(operations.map((o) => o.operationId).sort()).toEqual([
      'exploreRegistry',
      'getArdEntry',
      'listAgents',
      'listChanges',
      'searchAgents',
    ]);
  });

  it.each(operations.map((o) => [o.operationId, o]))('operation %s has a handler', (operationId) => {
    expect(typeof operationHandlers[operationId as string]).toBe('function');
  });

  it('no handler is registered for an operation the document does not have', () => {
    expect(Object.keys(operationHandlers).sort()).toEqual(operations.map((o) => o.operationId).sort());
  });

  it.each(operations.map((o) => [`${o.method.toUpperCase()} ${o.path}`, o]))('%s is routed (not 404)', async (_name, op) => {
    const { method, path } = op as (typeof operations)[number];
    const res = method === 'get' ? await registry.get(path) : await registry.post(path, {});
    expect(res.status).not.toBe(404);
    expect(res.status).not.toBe(405);
    if (res.status >= 400) expect(res.body).toEqual({ errorCode: expect.any(String), message: expect.any(String) });
  });
});
