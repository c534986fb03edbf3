// GET / names the registry, its version, its routes and its docs as JSON; a client preferring HTML never gets
// here: the portal (src/portal/), mounted before, answers it.
// GET /openapi.yaml and /openapi.json serve the ARD OpenAPI document that requests are validated against (its external
// $refs stay relative: ai-catalog.schema.json is beside it).
import fs from 'node:fs';
import type express from 'express';
import YAML from 'yaml';
import { REGISTRY_PACKAGE } from '../version';
import { OPENAPI_PATH } from './openapi';

export interface RegistryHome {
  name: string;
  version: string;
  description: string;
  routes: Array<{ method: string; path: string; what: string }>;
  openapi: { yaml: string; json: string };
  docs: string;
}

const DOCS_URL = 'https://github.com/ard-registry/ard-registry#readme';

export const REGISTRY_ROUTES: RegistryHome['routes'] = [
  { method: 'POST', path: '/search', what: 'natural-language search with filters (ARD §7.2)' },
  { method: 'POST', path: '/explore', what: 'facet counts over the matched set of a query (ARD §7.3)' },
  { method: 'GET', path: '/agents', what: 'deterministic listing with a filter language (ARD §7.4)' },
  { method: 'GET', path: '/agents/{identifier}', what: 'one entry by its URN' },
  { method: 'GET', path: '/changes', what: 'the change feed, for registries that mirror this one (registry extension)' },
  { method: 'POST', path: '/mcp', what: 'the Alexandria MCP tools (Streamable HTTP)' },
  { method: 'GET', path: '/.well-known/ai-catalog.json', what: "this registry's own ARD manifest" },
  { method: 'GET', path: '/llms.txt', what: 'the Alexandria library as text' },
  { method: 'GET', path: '/openapi.yaml', what: 'the OpenAPI document (also /openapi.json)' },
  { method: 'GET', path: '/healthz', what: 'liveness' },
  { method: 'GET', path: '/readyz', what: 'readiness' },
  { method: 'GET', path: '/metrics', what: 'Prometheus metrics' },
];

export function registryHome(): RegistryHome {
  return {
    name: REGISTRY_PACKAGE.name,
    version: REGISTRY_PACKAGE.version,
    description: 'An ARD-compliant federated registry of agents, MCP servers and skills.',
    routes: REGISTRY_ROUTES,
    openapi: { yaml: '/openapi.yaml', json: '/openapi.json' },
    docs: DOCS_URL,
  };
}

export function mountHomeRoutes(app: express.Express): void {
  const home = registryHome();
  const yamlText = fs.readFileSync(OPENAPI_PATH, 'utf8');
  const jsonText = JSON.stringify(YAML.parse(yamlText));
  app.get('/', (_req, res) => {
    res.vary('Accept');
    // Curl's */*, no Accept, application/json: the portal left these to this route.
    res.json(home);
  });
  app.get('/openapi.yaml', (_req, res) => {
    res.type('application/yaml').set('Cache-Control', 'public, max-age=300').send(yamlText);
  });
  app.get('/openapi.json', (_req, res) => {
    res.type('application/json').set('Cache-Control', 'public, max-age=300').send(jsonText);
  });
}
