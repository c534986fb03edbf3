// The only reader of process.env. `readEnv()` only reads; `envToConfig()` applies defaults and
// rejects bad values with a message naming the variable, so a misconfigured registry fails at start.
import path from 'node:path';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

/** Where the bundled model computes (src/embedding/use-lite-embedder.ts); 'auto' = onnxruntime, else tfjs. */
export const EMBEDDING_RUNTIMES = ['auto', 'onnxruntime', 'tfjs'] as const;
export type EmbeddingRuntime = (typeof EMBEDDING_RUNTIMES)[number];

export interface RegistryConfig {
  port: number;
  host: string;
  /** Unset: the embedded database (PGlite) in `dataDir`. */
  databaseUrl: string | null;
  /** Read-only replica for queries; writes always go to `databaseUrl`. */
  databaseReplicaUrl: string | null;
  /** Send the search path's fixed statements as named prepared statements (src/db/prepared-statements.ts). */
  databasePreparedStatements: boolean;
  dataDir: string;
  /** This registry's public base URL: the `source` of its own results. */
  publicUrl: string;
  logLevel: LogLevel;
  /** Load the bundled demo corpus when the index is empty (default: on for the embedded database). */
  loadDemoCorpus: boolean;
  /** Signs search page tokens; unset = a key generated once and kept in the database. */
  pageTokenSecret: string | null;
  /** Bearer token for /admin routes; unset = admin routes are off (401). */
  adminToken: string | null;
  /** Peer registries' base URLs for federation. */
  peers: string[];
  /** Time budget of a federated search, in milliseconds. */
  federationBudgetMs: number;
  /** How many registry-to-registry hops a federated search may take from here (1 = direct peers only). */
  federationMaxHops: number;
  /** Peer searches in flight at once across all requests (more wait for a slot, within the budget). */
  federationMaxConcurrency: number;
  /** Consecutive failures after which a peer is skipped (circuit open). */
  federationBreakerThreshold: number;
  /** How long an open circuit skips its peer before one trial request is let through. */
  federationBreakerCooldownMs: number;
  crawlAllowPrivate: boolean;
  /** Web ingestion (ARD §6): see docs/ingestion.md. */
  crawl: CrawlConfig;
  /** Reads per client per minute; 0 = no limit. */
  rateLimitPerMinute: number;
  /** Redis shared by every registry process for rate-limit counters; unset = counted in-process. */
  redisUrl: string | null;
  /** Proxy hops in front of the registry whose X-Forwarded-For is trusted for the client address; 0 = none. */
  trustProxy: number;
  /** Hard limit on one request's duration. */
  requestTimeoutMs: number;
  /** Largest accepted request body. */
  maxBodyBytes: number;
  /** A local ONNX sentence-embedding model folder; unset = the bundled model. */
  embeddingModelDir: string | null;
  /** The bundled model's runtime: onnxruntime-node (native, the default) or TF.js (WASM). */
  embeddingRuntime: EmbeddingRuntime;
  /**
   * Search rank weights by entry `type` (media type), applied when a search does not filter on `type`
   * (docs/relevance.md "Type weights"); a type not listed weighs 1.
   */
  searchTypeWeights: Readonly<Record<string, number>>;
  /** JSON files extending the bundled synonyms / related words (src/search/query-vocabulary.ts); null = none. */
  searchSynonymsFile: string | null;
  searchRelatedWordsFile: string | null;
  /** A JSON file extending the bundled product glossary (src/catalog/product-glossary.ts); null = none. */
  searchGlossaryFile: string | null;
  /** Facet fields the portal's search page asks POST /explore for, in the order it shows them (docs/portal.md). */
  portalFacets: string[];
}

export interface CrawlConfig {
  /** Default re-crawl interval of a source, in seconds. */
  intervalSeconds: number;
  /** Sent on every crawl request; robots.txt groups match its product token. */
  userAgent: string;
  /** Most entries one source may list, nested catalogs included; more and the crawl fails, changing nothing. */
  maxEntries: number;
  /** How deep nested catalogs are followed (the root catalog is depth 0). */
  maxDepth: number;
  /** Largest catalog body accepted, in bytes. */
  maxBytes: number;
  /** Deadline for one catalog request (all redirects and the whole body), in ms. */
  timeoutMs: number;
  /** Minimum spacing between two requests to one host, in ms. */
  hostDelayMs: number;
  /** Sources crawled at once by one registry process. */
  concurrency: number;
  /** Run the scheduler that re-crawls due sources (off: only admin/CLI-triggered crawls). */
  schedulerEnabled: boolean;
  /** How often the scheduler looks for due sources, in ms. */
  pollMs: number;
}

/**
 * The Alexandria library's records (papers, repositories and posts about agents) rank at 0.9 of their
 * relevance in a search that does not pick types: the registry answers "what can do this job?", and the
 * library's own tools always filter on its type. The literal is ALEXANDRIA_MEDIA_TYPE (checked by a test).
 */
export const DEFAULT_SEARCH_TYPE_WEIGHTS: Readonly<Record<string, number>> = { 'application/vnd.alexandria.resource+json': 0.9 };

export const DEFAULT_CRAWL_USER_AGENT = 'ard-registry/0.1 (+https://github.com/ard-registry/ard-registry; ARD crawler)';

export type Env = Record<string, string | undefined>;

export function readEnv(env: NodeJS.ProcessEnv = process.env): Env {
  const names = [
    'PORT', 'HOST', 'DATABASE_URL', 'DATABASE_REPLICA_URL', 'DATABASE_PREPARED_STATEMENTS', 'DATA_DIR', 'PUBLIC_URL', 'LOG_LEVEL',
    'LOAD_DEMO_CORPUS', 'PAGE_TOKEN_SECRET', 'ADMIN_TOKEN', 'PEERS', 'FEDERATION_BUDGET_MS',
    'FEDERATION_MAX_HOPS', 'FEDERATION_MAX_CONCURRENCY', 'FEDERATION_BREAKER_THRESHOLD', 'FEDERATION_BREAKER_COOLDOWN_MS',
    'CRAWL_ALLOW_PRIVATE', 'RATE_LIMIT_PER_MINUTE', 'REDIS_URL', 'REQUEST_TIMEOUT_MS', 'MAX_BODY_BYTES',
    'EMBEDDING_MODEL_DIR', 'EMBEDDING_RUNTIME', 'TRUST_PROXY', 'CRAWL_INTERVAL_SECONDS', 'CRAWL_USER_AGENT', 'CRAWL_MAX_ENTRIES', 'CRAWL_MAX_DEPTH',
    'CRAWL_MAX_BYTES', 'CRAWL_TIMEOUT_MS', 'CRAWL_HOST_DELAY_MS', 'CRAWL_CONCURRENCY', 'CRAWL_SCHEDULER', 'CRAWL_POLL_MS',
    'SEARCH_TYPE_WEIGHTS', 'SEARCH_SYNONYMS_FILE', 'SEARCH_RELATED_WORDS_FILE', 'SEARCH_GLOSSARY_FILE',
    'PORTAL_FACETS',
  ];
  const out: Env = {};
  for (const name of names) {
    const value = env[name];
    if (value !== undefined && value.trim() !== '') out[name] = value.trim();
  }
  return out;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export function envToConfig(env: Env): RegistryConfig {
  const port = integer(env, 'PORT', 8080, 0, 65535);
  const host = env.HOST ?? '0.0.0.0';
  const databaseUrl = env.DATABASE_URL ?? null;
  const publicUrl = url(env, 'PUBLIC_URL', `http://localhost:${port}`);
  const logLevel = oneOf<LogLevel>(env, 'LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info');
  const peers = (env.PEERS ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)
    .map((p) => {
      try {
        return new URL(p).toString();
      } catch {
        throw new ConfigError(`PEERS must be a comma-separated list of absolute URLs; '${p}' is not one`);
      }
    });
  if (env.DATABASE_REPLICA_URL && !databaseUrl) {
    throw new ConfigError('DATABASE_REPLICA_URL needs DATABASE_URL: the embedded database has no replicas');
  }
  return {
    port,
    host,
    databaseUrl,
    databaseReplicaUrl: env.DATABASE_REPLICA_URL ?? null,
    databasePreparedStatements: boolean(env, 'DATABASE_PREPARED_STATEMENTS', true),
    dataDir: path.resolve(env.DATA_DIR ?? '.data'),
    publicUrl,
    logLevel,
    loadDemoCorpus: boolean(env, 'LOAD_DEMO_CORPUS', databaseUrl === null),
    pageTokenSecret: env.PAGE_TOKEN_SECRET ?? null,
    adminToken: env.ADMIN_TOKEN ?? null,
    peers,
    federationBudgetMs: integer(env, 'FEDERATION_BUDGET_MS', 1500, 50, 60000),
    federationMaxHops: integer(env, 'FEDERATION_MAX_HOPS', 1, 0, 8),
    federationMaxConcurrency: integer(env, 'FEDERATION_MAX_CONCURRENCY', 32, 1, 1024),
    federationBreakerThreshold: integer(env, 'FEDERATION_BREAKER_THRESHOLD', 3, 1, 1000),
    federationBreakerCooldownMs: integer(env, 'FEDERATION_BREAKER_COOLDOWN_MS', 30000, 10, 3_600_000),
    crawlAllowPrivate: boolean(env, 'CRAWL_ALLOW_PRIVATE', false),
    crawl: {
      intervalSeconds: integer(env, 'CRAWL_INTERVAL_SECONDS', 3600, 1, 30 * 86400),
      userAgent: env.CRAWL_USER_AGENT ?? DEFAULT_CRAWL_USER_AGENT,
      maxEntries: integer(env, 'CRAWL_MAX_ENTRIES', 10000, 1, 1_000_000),
      maxDepth: integer(env, 'CRAWL_MAX_DEPTH', 3, 0, 10),
      maxBytes: integer(env, 'CRAWL_MAX_BYTES', 10 * 1024 * 1024, 1024, 100 * 1024 * 1024),
      timeoutMs: integer(env, 'CRAWL_TIMEOUT_MS', 30000, 100, 600000),
      hostDelayMs: integer(env, 'CRAWL_HOST_DELAY_MS', 1000, 0, 600000),
      concurrency: integer(env, 'CRAWL_CONCURRENCY', 2, 1, 64),
      schedulerEnabled: boolean(env, 'CRAWL_SCHEDULER', true),
      pollMs: integer(env, 'CRAWL_POLL_MS', 15000, 50, 3600000),
    },
    rateLimitPerMinute: integer(env, 'RATE_LIMIT_PER_MINUTE', 600, 0, 1_000_000),
    redisUrl: env.REDIS_URL ?? null,
    trustProxy: integer(env, 'TRUST_PROXY', 0, 0, 10),
    requestTimeoutMs: integer(env, 'REQUEST_TIMEOUT_MS', 10000, 100, 600000),
    maxBodyBytes: integer(env, 'MAX_BODY_BYTES', 64 * 1024, 1024, 10 * 1024 * 1024),
    embeddingModelDir: env.EMBEDDING_MODEL_DIR ?? null,
    embeddingRuntime: oneOf(env, 'EMBEDDING_RUNTIME', EMBEDDING_RUNTIMES, 'auto'),
    searchTypeWeights: typeWeights(env),
    searchSynonymsFile: env.SEARCH_SYNONYMS_FILE ? path.resolve(env.SEARCH_SYNONYMS_FILE) : null,
    searchRelatedWordsFile: env.SEARCH_RELATED_WORDS_FILE ? path.resolve(env.SEARCH_RELATED_WORDS_FILE) : null,
    searchGlossaryFile: env.SEARCH_GLOSSARY_FILE ? path.resolve(env.SEARCH_GLOSSARY_FILE) : null,
    portalFacets: portalFacets(env),
  };
}

export function loadConfig(overrides: Partial<RegistryConfig> = {}): RegistryConfig {
  return { ...envToConfig(readEnv()), ...overrides };
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined) return fallback;
  if (!/^-?\d+$/.test(raw)) throw new ConfigError(`${name} must be an integer; got '${raw}'`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}; got ${value}`);
  return value;
}

function oneOf<T extends string>(env: Env, name: string, values: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined) return fallback;
  if (!(values as readonly string[]).includes(raw)) throw new ConfigError(`${name} must be one of ${values.join(', ')}; got '${raw}'`);
  return raw as T;
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined) return fallback;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new ConfigError(`${name} must be true or false; got '${raw}'`);
}

/** SEARCH_TYPE_WEIGHTS: `none`, or comma-separated `media/type=weight` with 0 < weight <= 1. */
function typeWeights(env: Env): Record<string, number> {
  const raw = env.SEARCH_TYPE_WEIGHTS;
  if (raw === undefined) return { ...DEFAULT_SEARCH_TYPE_WEIGHTS };
  if (raw.toLowerCase() === 'none') return {};
  const out: Record<string, number> = {};
  for (const item of raw.split(',').map((s) => s.trim()).filter(Boolean)) {
    const at = item.lastIndexOf('=');
    const type = at > 0 ? item.slice(0, at).trim() : '';
    const weight = at > 0 ? item.slice(at + 1).trim() : '';
    if (!/^[\w.+-]+\/[\w.+-]+$/.test(type) || !/^\d*\.?\d+$/.test(weight)) {
      throw new ConfigError(`SEARCH_TYPE_WEIGHTS must be 'none' or a comma-separated list of media/type=weight; '${item}' is not one`);
    }
    const value = Number(weight);
    if (!(value > 0 && value <= 1)) throw new ConfigError(`SEARCH_TYPE_WEIGHTS: the weight of ${type} must be greater than 0 and at most 1; got ${weight}`);
    if (type in out) throw new ConfigError(`SEARCH_TYPE_WEIGHTS names ${type} twice`);
    out[type] = value;
  }
  return out;
}

/** The portal's facets by default: the kinds of entry, their topics, who publishes them, what they attest. */
export const DEFAULT_PORTAL_FACETS = ['type', 'tags', 'publisher', 'trustManifest.attestations.type'];
/** POST /explore answers at most 20 facets a request (MAX_FACETS of src/search/explore-service.ts). */
const MAX_PORTAL_FACETS = 20;

/** PORTAL_FACETS: comma-separated facet field paths (`type,tags,metadata.transport`); POST /explore judges each. */
function portalFacets(env: Env): string[] {
  const raw = env.PORTAL_FACETS;
  if (raw === undefined) return [...DEFAULT_PORTAL_FACETS];
  const fields = raw.split(',').map((s) => s.trim()).filter(Boolean);
  for (const field of fields) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z0-9_-]+)*$/.test(field)) throw new ConfigError(`PORTAL_FACETS: '${field}' is not a field path (letters, digits, _ and -, dot-separated)`);
  }
  if (new Set(fields).size !== fields.length) throw new ConfigError('PORTAL_FACETS names a field twice');
  if (fields.length === 0 || fields.length > MAX_PORTAL_FACETS) throw new ConfigError(`PORTAL_FACETS must name 1 to ${MAX_PORTAL_FACETS} fields; got ${fields.length}`);
  return fields;
}

function url(env: Env, name: string, fallback: string): string {
  const raw = env[name] ?? fallback;
  try {
    const parsed = new URL(raw);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('scheme');
    return parsed.toString();
  } catch {
    throw new ConfigError(`${name} must be an absolute http(s) URL; got '${raw}'`);
  }
}
