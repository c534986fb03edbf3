/**
 * The Alexandria MCP server: three tools (search, get_resource, list_topics) over AlexandriaLibraryService, and
 * with a registry service the registry's two (search_registry, get_registry_entry; registry-tools.ts).
 * Shapes are the FROZEN contract's (docs/reference/alexandria-api-contract-v0.txt); docs/alexandria.md has examples.
 *
 * Errors fail closed. A client mistake (bad argument, malformed id, unknown id) comes back as a tool result
 * with `isError: true` and a message written by the domain. Anything else becomes
 * "internal error (request id <uuid>)" and is logged with that id: the SDK would otherwise echo a thrown
 * error's message (SQL, file paths, stack details) to the client.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { pino } from 'pino';
import { z } from 'zod';

import {
  AlexandriaClientError,
  type AlexandriaLibraryService,
  DEFAULT_SEARCH_LIMIT,
  MAX_SEARCH_LIMIT,
  RESOURCE_KINDS,
  SOURCE_TYPES,
} from '../alexandria';
import { registerRegistryTools, type RegistryToolsService } from './registry-tools';
import { runTool, type ToolErrorLogger } from './tool-result';

export type { ToolErrorLogger } from './tool-result';

export interface AlexandriaMcpServerOptions {
  /** Where internal errors are logged. Defaults to pino on stderr (stdout is the stdio transport's channel). */
  logger?: ToolErrorLogger;
  /** Reported in the MCP handshake. */
  version?: string;
  /** The registry's search: when given, the server also offers search_registry and get_registry_entry (registry-tools.ts). */
  registry?: RegistryToolsService;
}

export const ALEXANDRIA_MCP_SERVER_NAME = 'alexandria';
export const ALEXANDRIA_TOOL_NAMES = ['search', 'get_resource', 'list_topics'] as const;

// The contract's request example sends `"kind": null` for "no filter": null means "not given". Wrapping in
// z.preprocess keeps the advertised JSON Schema exactly the sketch's (the SDK renders a preprocess as its
// target schema), while still accepting those requests.
const nullAsAbsent = (value: unknown): unknown => (value === null ? undefined : value);

const kindEnum = z.enum(RESOURCE_KINDS, {
  error: (issue) => `kind must be one of: ${RESOURCE_KINDS.join(', ')} (got ${JSON.stringify(issue.input)})`,
});
const limitMessage = `limit must be an integer from 1 to ${MAX_SEARCH_LIMIT}`;

/** Input of `search`: the contract's tool-definition sketch; limit additionally bounded to 1..50. */
export const searchInputShape = {
  query: z.string({ error: 'query is required and must be a string' }),
  topic: z.preprocess(nullAsAbsent, z.string({ error: 'topic must be a string' }).optional()),
  kind: z.preprocess(nullAsAbsent, kindEnum.optional()),
  limit: z
    .preprocess(
      nullAsAbsent,
      z
        .number({ error: limitMessage })
        .int({ error: limitMessage })
        .min(1, { error: limitMessage })
        .max(MAX_SEARCH_LIMIT, { error: limitMessage })
        .default(DEFAULT_SEARCH_LIMIT),
    )
    .describe(`Maximum number of results, 1 to ${MAX_SEARCH_LIMIT} (default ${DEFAULT_SEARCH_LIMIT}).`),
};

export const getResourceInputShape = {
  id: z
    .string({ error: 'id is required and must be a string' })
    .describe('A stable resource id: arxiv:<id>, github:<owner>/<repo> or post:<host>/<slug>.'),
};

// Output schemas are open (looseObject): the contract evolves additively, so clients must accept new fields.
const searchResultSchema = z.looseObject({
  id: z.string(),
  kind: z.enum(RESOURCE_KINDS),
  title: z.string(),
  url: z.string(),
  tags: z.array(z.string()),
  date: z.string().optional(),
  description: z.string(),
  score: z.number().min(0).max(1),
  sponsored: z.literal(true).optional(),
});

export const searchOutputSchema = z.looseObject({
  results: z.array(searchResultSchema),
  total: z.number().int().min(0),
  query_id: z.string(),
});

export const recordOutputSchema = z.looseObject({
  id: z.string(),
  schema_version: z.literal(1),
  kind: z.enum(RESOURCE_KINDS),
  title: z.string(),
  url: z.string(),
  authors: z.array(z.string()).optional(),
  date: z.string().optional(),
  tags: z.array(z.string()),
  license_note: z.string().optional(),
  description: z.string(),
  use_cases: z.array(z.string()),
  sponsored: z.boolean().optional(),
  source: z.looseObject({ type: z.enum(SOURCE_TYPES), fetched_at: z.string(), via: z.string() }),
});

export const listTopicsOutputSchema = z.looseObject({
  topics: z.array(z.looseObject({ topic: z.string(), entries: z.number().int().min(0) })),
});

const READ_ONLY = { readOnlyHint: true, idempotentHint: true, openWorldHint: false } as const;

export function createAlexandriaMcpServer(service: AlexandriaLibraryService, options: AlexandriaMcpServerOptions = {}): McpServer {
  const logger = options.logger ?? defaultLogger();
  const server = new McpServer(
    { name: ALEXANDRIA_MCP_SERVER_NAME, version: options.version ?? '0.2.0' },
    {
      instructions:
        'Alexandria is a curated library of papers, repositories and posts about building LLM agents. ' +
        'Call list_topics first to see the taxonomy, search to find resources, get_resource for a full citable record. ' +
        'Sponsored results are marked "sponsored": true and never outrank editorial results.' +
        (options.registry
          ? ' To find agents, MCP servers and skills that can do a job, call search_registry; get_registry_entry returns one by identifier.'
          : ''),
    },
  );
  if (options.registry) registerRegistryTools(server, options.registry, logger);

  server.registerTool(
    'search',
    {
      title: 'Search the Alexandria library',
      description: "Search Alexandria's curated agent-library index",
      inputSchema: searchInputShape,
      outputSchema: searchOutputSchema,
      annotations: READ_ONLY,
    },
    (args) => runTool('search', searchOutputSchema, logger, isAlexandriaClientError, () => service.searchLibrary(args)),
  );

  server.registerTool(
    'get_resource',
    {
      title: 'Get one Alexandria record',
      description:
        'Return the complete schema v1 record for a stable id (arxiv:<id>, github:<owner>/<repo>, post:<host>/<slug>). ' +
        'An unknown id is an error; there are no partial guesses.',
      inputSchema: getResourceInputShape,
      outputSchema: recordOutputSchema,
      annotations: READ_ONLY,
    },
    (args) => runTool('get_resource', recordOutputSchema, logger, isAlexandriaClientError, () => service.getResource(args.id)),
  );

  server.registerTool(
    'list_topics',
    {
      title: 'List Alexandria topics',
      description: 'Return the topic taxonomy with live entry counts, most populated first.',
      outputSchema: listTopicsOutputSchema,
      annotations: READ_ONLY,
    },
    () => runTool('list_topics', listTopicsOutputSchema, logger, isAlexandriaClientError, () => service.listTopics()),
  );

  return server;
}

function isAlexandriaClientError(err: unknown): boolean {
  return err instanceof AlexandriaClientError;
}

function defaultLogger(): ToolErrorLogger {
  return pino({ name: 'alexandria-mcp' }, pino.destination(2));
}
