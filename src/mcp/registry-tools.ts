/**
 * Registry search over MCP (docs/mcp.md): `search_registry` finds agents, MCP servers and skills with the ranking,
 * filters and federation of POST /search (ARD §7.2, §8), `get_registry_entry` returns one entry by identifier
 * (ARD v0.91 §5.3.4's GET /agents/{identifier}). Results are shaped for a model to act on: identifier, name,
 * type, what it does, how to connect, score.
 *
 * Errors fail closed as the library's tools do (alexandria-mcp-server.ts): a client mistake (an ApiError under
 * 500: bad filter, bad page token, unknown identifier) comes back as `isError: true` with the domain's message;
 * anything else as "internal error (request id ...)", logged.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

import type { CatalogEntry } from '../catalog/catalog-entry';
import { MEDIA_TYPES } from '../catalog/catalog-entry';
import { mcpClientConfig } from '../catalog/mcp-client-config';
import { ApiError } from '../errors';
import { federatedSearchDeps, type AppContext } from '../context';
import { federatedSearch, type FederatedSearchOutput, type FederationMode } from '../federation/federated-search';
import { readFederationHop } from '../federation/loop-guard';
import { retrieveEntry } from '../listing/retrieve-entry';
import { resolveFilterKeys } from '../search/query-context';
import { MAX_PAGE_SIZE } from '../search/paging';
import type { QueryFilter } from '../search/query-filter';
import { searchedQueryText } from '../search/query-text';
import { RELEVANT_SCORE } from '../search/relevance';
import { runTool, type ToolErrorLogger } from './tool-result';

export const REGISTRY_TOOL_NAMES = ['search_registry', 'get_registry_entry'] as const;

/** What the registry tools call: POST /search's federated search and GET /agents/{identifier}'s read. */
export interface RegistryToolsService {
  search(input: {
    text: string;
    filter?: QueryFilter;
    federation: FederationMode;
    pageSize: number;
    pageToken?: string;
    /** One result per product (default); false lists every entry (docs/api.md "One product, one result"). */
    collapse?: boolean;
  }): Promise<FederatedSearchOutput>;
  getEntry(identifier: string): Promise<CatalogEntry>;
}

/**
 * The registry tools over a context: POST /search's federated search as its handler calls it (a request of
 * this registry's own, so the whole hop and time budget), GET /agents/{identifier}'s read.
 */
export function registryToolsOf(ctx: AppContext): RegistryToolsService {
  const { config } = ctx;
  return {
    search: (input) =>
      federatedSearch(federatedSearchDeps(ctx), {
        mode: input.federation,
        text: input.text,
        filter: resolveFilterKeys(input.filter, undefined),
        pageSize: input.pageSize,
        pageToken: input.pageToken,
        collapse: input.collapse,
        hop: readFederationHop({}, { maxHops: config.federationMaxHops, budgetMs: config.federationBudgetMs }),
      }),
    getEntry: async (identifier) => (await retrieveEntry(ctx.readDb, identifier)).entry,
  };
}

/** The kinds a model asks for, as the media types they filter on. */
export const REGISTRY_KINDS = {
  'mcp-server': [MEDIA_TYPES.mcpServer],
  agent: [MEDIA_TYPES.a2aAgent, 'application/agent+json'],
  skill: [MEDIA_TYPES.skill],
} as const satisfies Record<string, readonly string[]>;
type RegistryKind = keyof typeof REGISTRY_KINDS;
const KIND_NAMES = Object.keys(REGISTRY_KINDS) as [RegistryKind, ...RegistryKind[]];

export const DEFAULT_REGISTRY_LIMIT = 10;

const nullAsAbsent = (value: unknown): unknown => (value === null ? undefined : value);
const limitMessage = `limit must be an integer from 1 to ${MAX_PAGE_SIZE}`;

export const searchRegistryInputShape = {
  query: z.string({ error: 'query is required and must be a string' }).describe('What the agent, MCP server or skill must do, in words.'),
  kind: z.preprocess(
    nullAsAbsent,
    z
      .enum(KIND_NAMES, { error: (issue) => `kind must be one of: ${KIND_NAMES.join(', ')} (got ${JSON.stringify(issue.input)})` })
      .optional()
      .describe('Only this kind of entry; all kinds when absent.'),
  ),
  filter: z.preprocess(
    nullAsAbsent,
    z
      .record(z.string(), z.union([z.string(), z.array(z.string())]), {
        error: 'filter must be an object of field paths to a value or a list of values',
      })
      .optional()
      .describe('POST /search filter (ARD §7.1): field path -> value or values, e.g. {"tags": "database", "publisher": "example.com"}.'),
  ),
  federation: z.preprocess(
    nullAsAbsent,
    z
      .enum(['auto', 'referrals', 'none'], { error: 'federation must be one of: auto, referrals, none' })
      .default('auto')
      .describe('auto (default): this registry and its peers; referrals: this registry, plus peers to ask; none: this registry alone.'),
  ),
  limit: z.preprocess(
    nullAsAbsent,
    z
      .number({ error: limitMessage })
      .int({ error: limitMessage })
      .min(1, { error: limitMessage })
      .max(MAX_PAGE_SIZE, { error: limitMessage })
      .default(DEFAULT_REGISTRY_LIMIT)
      .describe(`Results per page, 1 to ${MAX_PAGE_SIZE} (default ${DEFAULT_REGISTRY_LIMIT}).`),
  ),
  pageToken: z.preprocess(
    nullAsAbsent,
    z.string({ error: 'pageToken must be a string' }).optional().describe("The previous answer's nextPageToken, for the next page."),
  ),
  collapse: z.preprocess(
    nullAsAbsent,
    z
      .boolean({ error: 'collapse must be true or false' })
      .default(true)
      .describe(
        'true (default): entries that are the same product (same repository, package or remote endpoint) give one result, ' +
          'the best, naming the others in its `collapsed`; false: every entry.',
      ),
  ),
};

export const getRegistryEntryInputShape = {
  identifier: z.string({ error: 'identifier is required and must be a string' }).describe('An ARD identifier, urn:air:<publisher>:...'),
};

const connectSchema = z.looseObject({
  url: z.string().optional(),
  mcpServers: z.record(z.string(), z.unknown()).optional(),
  readFrom: z.string().optional(),
});

const resultSchema = z.looseObject({
  identifier: z.string(),
  name: z.string(),
  type: z.string(),
  kind: z.string(),
  description: z.string(),
  tags: z.array(z.string()),
  capabilities: z.array(z.string()),
  connect: connectSchema,
  matchedTools: z.array(z.string()),
  /** Identifiers of the entries of the same product this result stands for. */
  collapsed: z.array(z.string()).optional(),
  score: z.number().min(0).max(100),
  source: z.string(),
});

export const searchRegistryOutputSchema = z.looseObject({
  results: z.array(resultSchema),
  nextPageToken: z.string().optional(),
  referrals: z.array(z.looseObject({ identifier: z.string(), displayName: z.string(), type: z.string(), url: z.string() })).optional(),
  /** A query longer than SEARCHED_QUERY_LENGTH: the characters searched (its first part) and its whole length. */
  queryCut: z.object({ searched: z.number().int(), length: z.number().int() }).optional(),
});

export const registryEntryOutputSchema = z.looseObject({
  entry: z.looseObject({ identifier: z.string(), displayName: z.string(), type: z.string() }),
  connect: connectSchema,
});

const READ_ONLY = { readOnlyHint: true, idempotentHint: true, openWorldHint: true } as const;

export function registerRegistryTools(server: McpServer, service: RegistryToolsService, logger: ToolErrorLogger): void {
  server.registerTool(
    'search_registry',
    {
      title: 'Search the registry',
      description:
        'Find agents, MCP servers and skills that can do a job, best first (score 0-100: ' +
        `${RELEVANT_SCORE} and above a relevant match, below it a partial or weak one), ` +
        "with the ranking, filters and federation of the registry's POST /search. Each result says how to connect.",
      inputSchema: searchRegistryInputShape,
      outputSchema: searchRegistryOutputSchema,
      annotations: READ_ONLY,
    },
    (args) =>
      runTool('search_registry', searchRegistryOutputSchema, logger, isClientError, async () => {
        const filter: QueryFilter = { ...(args.filter ?? {}), ...(args.kind ? { type: [...REGISTRY_KINDS[args.kind]] } : {}) };
        const answer = await service.search({
          text: args.query,
          filter: Object.keys(filter).length > 0 ? filter : undefined,
          federation: args.federation,
          pageSize: args.limit,
          pageToken: args.pageToken,
          collapse: args.collapse,
        });
        const { text: searched, cutFrom } = searchedQueryText(args.query);
        return {
          results: answer.results.map(toResult),
          ...(answer.pageToken ? { nextPageToken: answer.pageToken } : {}),
          ...(answer.referrals && answer.referrals.length > 0 ? { referrals: answer.referrals } : {}),
          ...(cutFrom === undefined ? {} : { queryCut: { searched: searched.length, length: cutFrom } }),
        };
      }),
  );

  server.registerTool(
    'get_registry_entry',
    {
      title: 'Get one registry entry',
      description:
        'Return the complete ARD catalog entry for an identifier (urn:air:...), with how to connect to it. An unknown identifier is an error.',
      inputSchema: getRegistryEntryInputShape,
      outputSchema: registryEntryOutputSchema,
      annotations: READ_ONLY,
    },
    (args) =>
      runTool('get_registry_entry', registryEntryOutputSchema, logger, isClientError, async () => {
        const entry = await service.getEntry(args.identifier);
        return { entry, connect: connectionOf(entry) };
      }),
  );
}

function isClientError(err: unknown): boolean {
  return err instanceof ApiError && err.status < 500;
}

function kindOf(type: string): string {
  const found = KIND_NAMES.find((kind) => (REGISTRY_KINDS[kind] as readonly string[]).includes(type));
  return found ?? 'other';
}

/** How to reach an entry: its url, and for an MCP server the `mcpServers` block its card or metadata states. */
export function connectionOf(entry: Partial<CatalogEntry>): z.infer<typeof connectSchema> {
  const config = entry.type && entry.displayName ? mcpClientConfig(entry as CatalogEntry) : null;
  return {
    ...(typeof entry.url === 'string' ? { url: entry.url } : {}),
    ...(config ? { mcpServers: { [config.serverKey]: config.launch }, readFrom: config.readFrom } : {}),
  };
}

/** A result as a model reads it; a peer's result sent incomplete (ARD v0.91 shape) keeps what it has. */
function toResult(result: FederatedSearchOutput['results'][number]): z.infer<typeof resultSchema> {
  const type = result.type ?? '';
  return {
    identifier: result.identifier,
    name: result.displayName ?? result.identifier,
    type,
    kind: kindOf(type),
    description: result.description ?? '',
    tags: result.tags ?? [],
    capabilities: result.capabilities ?? [],
    connect: connectionOf(result),
    // This registry's results carry the tools the text matched (@matchedTools); a peer's result what the peer sent.
    matchedTools: Array.isArray(result['@matchedTools']) ? (result['@matchedTools'] as string[]) : [],
    ...(Array.isArray(result['@collapsed']) ? { collapsed: result['@collapsed'] as string[] } : {}),
    score: result.score,
    source: result.source,
  };
}
