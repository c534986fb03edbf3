// One handler per operationId of openapi/ard.openapi.yaml (a test checks none is missing).
import type { Handler } from '../handler';
import { notImplemented } from './not-implemented';
import { searchAgents } from './search-agents';

export const operationHandlers: Record<string, Handler> = {
  searchAgents,
  exploreRegistry: notImplemented('POST /explore'),
  listAgents: notImplemented('GET /agents'),
};
