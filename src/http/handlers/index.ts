// One handler per operationId of openapi/ard.openapi.yaml (a test checks none is missing).
import type { Handler } from '../handler';
import { exploreRegistry } from './explore-registry';
import { getArdEntry } from './get-ard-entry';
import { listAgents } from './list-agents';
import { listChanges } from './list-changes';
import { searchAgents } from './search-agents';

export const operationHandlers: Record<string, Handler> = {
  searchAgents,
  exploreRegistry,
  getArdEntry,
  listAgents,
  listChanges,
};
