// One handler per operationId of openapi/ard.openapi.yaml (a test checks none is missing).
import type { Handler } from '../handler';
import { exploreRegistry } from './explore-registry';
import { getArdEntry } from './get-ard-entry';
import { listAgents } from './list-agents';
import { searchAgents } from './search-agents';

export const operationHandlers: Record<string, Handler> = {
  searchAgents,
  exploreRegistry,
  getArdEntry,
  listAgents,
};
