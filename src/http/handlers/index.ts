// One handler per operationId of openapi/ard.openapi.yaml (a test checks none is missing).
import type { Handler } from '../handler';
import { exploreRegistry } from './explore-registry';
import { notImplemented } from './not-implemented';
import { searchAgents } from './search-agents';

export const operationHandlers: Record<string, Handler> = {
  searchAgents,
  exploreRegistry,
  listAgents: notImplemented('GET /agents'),
};
