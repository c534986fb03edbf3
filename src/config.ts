// The only reader of process.env. `readEnv()` only reads; `envToConfig()` applies defaults and
// rejects bad values with a message naming the variable, so a misconfigured registry fails at start.
// Each variable is one line of ENV_SCHEMA (zod): how it parses, its default and its bounds.
import { isIP } from 'node:net';
import path from 'node:path';
import { z } from 'zod';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
/** 'auto': pretty text when stdout is a terminal, JSON lines otherwise. */
const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** Where the bundled model computes (src/embedding/use-lite-embedder.ts); 'auto' = onnxruntime, else tfjs. */
export const EMBEDDING_RUNTIMES = ['auto', 'onnxruntime', 'tfjs'] as const;
export type EmbeddingRuntime = (typeof EMBEDDING_RUNTIMES)[number];

/** How the bundled model's dense layers compute on onnxruntime (src/embedding/use-lite-graph.ts, decision 0048). */
export const EMBEDDING_PRECISIONS = ['int8', 'float32'] as const;
export type EmbeddingPrecision = (typeof EMBEDDING_PRECISIONS)[number];

export interface RegistryConfig {
  port: number;
  host: string;
  /** Unset: the embedded database (PGlite) in `dataDir`. */
  databaseUrl: string | null;
  /** Streaming replicas of `databaseUrl` that serve queries (src/db/read-pool.ts); writes always go to `databaseUrl`. */
  databaseReplicaUrls: string[];
  /** A replica whose replay is further behind the primary than this is left out of reads until it catches up. */
  databaseReplicaMaxLagSeconds: number;
  /** How often each replica's reachability and lag are checked. */
  databaseReplicaCheckMs: number;
  /** Send the search path's fixed statements as named prepared statements (src/db/prepared-statements.ts). */
  databasePreparedStatements: boolean;
  dataDir: string;
  /** This registry's public base URL: the `source` of its own results. */
  publicUrl: string;
  logLevel: LogLevel;
  logFormat: LogFormat;
  /** Load the bundled demo corpus when the index is empty (default: on for the embedded database). */
  loadDemoCorpus: boolean;
  /** A new embedded folder with the demo corpus starts as a copy of the prepared demo database, when one matches. */
  preparedDemoDatabase: boolean;
  /** Signs search page tokens; unset = a key generated once and kept in the database. */
  pageTokenSecret: string | null;
  /** Bearer token for /admin routes; unset = admin routes are off (401). */
  adminToken: string | null;
  /** Failed admin authentications a client may make per minute before every admin request of it is a 429. */
  adminAuthFailuresPerMinute: number;
  /** Peer registries' base URLs for federation. */
  peers: string[];
  /** Peer registries followed through their change feed (GET /changes) and served locally, never asked live. */
  peersMirror: string[];
  /** Seconds between two reads of each mirrored peer's change feed; 0 = no background reads. */
  mirrorPollSeconds: number;
  /** Most live entries mirrored from one peer; changes past it are refused and reported. */
  mirrorMaxEntries: number;
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
  /** The bundled model's dense layers on onnxruntime: int8 (default, ~3× faster) or float32 (TF.js's vectors to ~1e-6). */
  embeddingPrecision: EmbeddingPrecision;
  /** Time limit of one text's tokenizing and embedding on the bundled model's worker thread. */
  embeddingItemTimeoutMs: number;
  /**
   * Search rank weights by entry `type` (media type), applied when a search does not filter on `type`
   * (docs/relevance.md "Type weights"); a type not listed weighs 1.
   */
  searchTypeWeights: Readonly<Record<string, number>>;
  /** An entry that says it is archived or deprecated ranks at (1 - this) of its rank (src/search/relevance/entry-state-adjustment.ts). */
  searchArchivedDemotion: number;
  /** Matches the search pipeline keeps in memory for texts asked again while the index does not change; 0 = none (src/search/relevance/match-cache.ts). */
  searchMatchCacheSize: number;
  /** JSON files extending the bundled synonyms / related words (src/search/query-vocabulary.ts); null = none. */
  searchSynonymsFile: string | null;
  searchRelatedWordsFile: string | null;
  /** A JSON file extending the bundled product glossary (src/catalog/product-glossary.ts); null = none. */
  searchGlossaryFile: string | null;
  /** A trust manifest whose identity does not bind to the publisher (ARD v0.91 §4.5.1): rejected, or stored and flagged 'failed'. */
  trustBinding: TrustBindingMode;
  /** Seconds until an entry's trust manifest is checked again (keys rotate). */
  trustRecheckSeconds: number;
  /** How often the trust upkeep looks for entries to check, in ms; 0 = never (docs/trust.md). */
  trustPollMs: number;
  /** Verified entries rank at relevance + boost x (1 - relevance) in search; 0 = off (docs/liveness.md "Ranking"). */
  trustRankBoost: number;
  /** Probing what the registry lists (docs/liveness.md). */
  liveness: LivenessConfig;
  /** Facet fields the portal's search page asks POST /explore for, in the order it shows them (docs/portal.md). */
  portalFacets: string[];
}

/** The portal's facets by default: the kinds of entry, their topics, who publishes them, what they attest, whether it was verified. */
export const DEFAULT_PORTAL_FACETS = ['type', 'tags', 'publisher', 'trustManifest.attestations.type', '@verification'];
/** POST /explore answers at most 20 facets a request (MAX_FACETS of src/search/explore-service.ts). */
const MAX_PORTAL_FACETS = 20;

export interface LivenessConfig {
  /** Run the probes (off: nothing is probed; stored states still count in search). */
  probes: boolean;
  /** How often the upkeep looks for due entries, in ms; 0 = never. */
  pollMs: number;
  /** Seconds until an entry is probed again. */
  intervalSeconds: number;
  /** Entries probed per tick at most. */
  budget: number;
  /** Probes running at once. */
  concurrency: number;
  /** Deadline of one probe, in ms. */
  timeoutMs: number;
  /** Failing this long makes an entry 'dead', in seconds. */
  deadAfterSeconds: number;
  /** Dead this long takes an entry out of POST /search's default results, in seconds. */
  dropAfterSeconds: number;
  /** Failing entries rank at relevance x (1 - demotion); 0 = off. */
  demotion: number;
}

export const TRUST_BINDING_MODES = ['reject', 'flag'] as const;
export type TrustBindingMode = (typeof TRUST_BINDING_MODES)[number];

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
  /**
   * Server and agent cards fetched per crawl for their tools (entries whose `url` references one); 0: none.
   * Each waits its turn in the host's queue (hostDelayMs apart): the bound on what cards add to a crawl.
   */
  maxCards: number;
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
  /** DNS discovery of a domain's entry source (SVCB, then TXT; docs/ingestion.md). */
  dns: {
    enabled: boolean;
    /** The resolver asked; null: the system's first (/etc/resolv.conf). */
    resolver: DnsServer | null;
    /** Deadline of one query attempt, in ms. */
    timeoutMs: number;
    /** Attempts per query when no answer arrives. */
    tries: number;
  };
}

/** A DNS server: an IPv4 or IPv6 address and a UDP port. */
export interface DnsServer {
  host: string;
  port: number;
}

/** `host:port`, `[v6]:port` or a bare address (port 53), host an IP address; null otherwise. The form of node:dns getServers(). */
export function parseDnsServer(text: string): DnsServer | null {
  const match = /^\[([^\]]+)\](?::(\d+))?$/.exec(text) ?? (isIP(text) === 6 ? [text, text] : /^([^:]+)(?::(\d+))?$/.exec(text));
  if (!match || isIP(match[1]) === 0) return null;
  const port = match[2] === undefined ? 53 : Number(match[2]);
  return Number.isInteger(port) && port > 0 && port < 65536 ? { host: match[1], port } : null;
}

/** SEARCH_MATCH_CACHE_SIZE's default: matches kept in all, each ~0.3 KB (~15 MB; docs/performance.md). */
export const DEFAULT_SEARCH_MATCH_CACHE_SIZE = 50_000;

/**
 * The Alexandria library's records (papers, repositories and posts about agents) rank at 0.9 of their
 * relevance in a search that does not pick types: the registry answers "what can do this job?", and the
 * library's own tools always filter on its type. The literal is ALEXANDRIA_MEDIA_TYPE (checked by a test).
 */
export const DEFAULT_SEARCH_TYPE_WEIGHTS: Readonly<Record<string, number>> = { 'application/vnd.alexandria.resource+json': 0.9 };

export const DEFAULT_CRAWL_USER_AGENT = 'ard-registry/0.1 (+https://github.com/ard-registry/ard-registry; ARD crawler)';

export type Env = Record<string, string | undefined>;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** An integer from `min` to `max`; `fallback` when unset. */
function integer(fallback: number, min: number, max: number) {
  return z
    .string()
    .regex(/^-?\d+$/, { error: (issue) => `must be an integer; got '${String(issue.input)}'` })
    .transform(Number)
    .refine((value) => value >= min && value <= max, { error: (issue) => `must be between ${min} and ${max}; got ${String(issue.input)}` })
    .default(fallback);
}

/** A number from 0 to 1; `fallback` when unset. */
function fraction(fallback: number) {
  return z
    .string()
    .regex(/^\d*\.?\d+$/, { error: (issue) => `must be a number from 0 to 1; got '${String(issue.input)}'` })
    .transform(Number)
    .refine((value) => value <= 1, { error: (issue) => `must be a number from 0 to 1; got ${String(issue.input)}` })
    .default(fallback);
}

/** 1/true/yes/on or 0/false/no/off, in any case. */
const flag = () =>
  z.stringbool({
    truthy: ['1', 'true', 'yes', 'on'],
    falsy: ['0', 'false', 'no', 'off'],
    case: 'insensitive',
    error: (issue) => `must be true or false; got '${String(issue.input)}'`,
  });

function oneOf<const T extends readonly [string, ...string[]]>(values: T, fallback: T[number]) {
  return z.enum(values, { error: (issue) => `must be one of ${values.join(', ')}; got '${String(issue.input)}'` }).default(fallback);
}

/** A free-form value; null when unset. */
const optionalText = () => z.string().nullable().default(null);

/** A file or folder, resolved from the working directory; null when unset. */
const optionalPath = () =>
  z
    .string()
    .transform((value) => path.resolve(value))
    .nullable()
    .default(null);

const httpUrl = () =>
  z.url({ protocol: /^https?$/, normalize: true, error: (issue) => `must be an absolute http(s) URL; got '${String(issue.input)}'` });

const commaList = (value: string): string[] =>
  value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

const peerUrls = () =>
  z
    .string()
    .transform(commaList)
    .pipe(
      z.array(
        z.url({
          normalize: true,
          error: (issue) => `must be a comma-separated list of absolute URLs; '${String(issue.input)}' is not one`,
        }),
      ),
    )
    .default(() => []);

/** SEARCH_TYPE_WEIGHTS: `none`, or comma-separated `media/type=weight` with 0 < weight <= 1. */
const typeWeights = () =>
  z
    .string()
    .transform((raw, ctx): Record<string, number> => {
      if (raw.toLowerCase() === 'none') return {};
      const out: Record<string, number> = {};
      const fail = (message: string): Record<string, number> => {
        ctx.issues.push({ code: 'custom', message, input: raw });
        return z.NEVER;
      };
      for (const item of commaList(raw)) {
        const at = item.lastIndexOf('=');
        const type = at > 0 ? item.slice(0, at).trim() : '';
        const weight = at > 0 ? item.slice(at + 1).trim() : '';
        if (!/^[\w.+-]+\/[\w.+-]+$/.test(type) || !/^\d*\.?\d+$/.test(weight)) {
          return fail(`must be 'none' or a comma-separated list of media/type=weight; '${item}' is not one`);
        }
        const value = Number(weight);
        if (!(value > 0 && value <= 1))
          return fail(`SEARCH_TYPE_WEIGHTS: the weight of ${type} must be greater than 0 and at most 1; got ${weight}`);
        if (type in out) return fail(`names ${type} twice`);
        out[type] = value;
      }
      return out;
    })
    .default(() => ({ ...DEFAULT_SEARCH_TYPE_WEIGHTS }));

/** CRAWL_DNS_RESOLVER: `address:port` of the DNS server discovery asks; unset: the system's. */
const dnsServer = () =>
  z
    .string()
    .transform((raw, ctx): DnsServer => {
      const server = parseDnsServer(raw.trim());
      if (server) return server;
      ctx.issues.push({
        code: 'custom',
        message: `must be an IP address with an optional port (10.0.0.53:53, [::1]:5353); got '${raw}'`,
        input: raw,
      });
      return z.NEVER;
    })
    .nullable()
    .default(null);

/** DATABASE_REPLICA_URL: comma-separated PostgreSQL URLs. */
const postgresUrls = () =>
  z
    .string()
    .transform(commaList)
    .pipe(
      z.array(
        z.string().refine((item) => URL.canParse(item) && ['postgres:', 'postgresql:'].includes(new URL(item).protocol), {
          error: (issue) => `must be a comma-separated list of postgres:// URLs; '${String(issue.input)}' is not one`,
        }),
      ),
    )
    .default(() => []);

/** PORTAL_FACETS: comma-separated facet field paths (`type,tags,metadata.transport`); POST /explore judges each. */
const portalFacets = () =>
  z
    .string()
    .transform(commaList)
    .pipe(
      z
        .array(
          z.string().regex(/^@?[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z0-9_-]+)*$/, {
            error: (issue) => `'${String(issue.input)}' is not a field path (letters, digits, _ and -, dot-separated)`,
          }),
        )
        .min(1, { error: `must name 1 to ${MAX_PORTAL_FACETS} fields` })
        .max(MAX_PORTAL_FACETS, { error: `must name 1 to ${MAX_PORTAL_FACETS} fields` })
        .refine((fields) => new Set(fields).size === fields.length, { error: 'names a field twice' }),
    )
    .default(() => [...DEFAULT_PORTAL_FACETS]);

/**
 * Every variable the registry reads, with its parser, default and bounds. A new setting is a line here,
 * a field of RegistryConfig filled in envToConfig, and a row of docs/configuration.md (a test checks the row).
 * Defaults that depend on another variable (PUBLIC_URL, LOAD_DEMO_CORPUS) are applied in envToConfig.
 */
const ENV_SCHEMA = z
  .object({
    PORT: integer(8080, 0, 65535),
    HOST: z.string().default('0.0.0.0'),
    DATABASE_URL: optionalText(),
    DATABASE_REPLICA_URL: postgresUrls(),
    DATABASE_REPLICA_MAX_LAG_SECONDS: integer(10, 0, 86400),
    DATABASE_REPLICA_CHECK_MS: integer(2000, 100, 600_000),
    DATABASE_PREPARED_STATEMENTS: flag().default(true),
    DATA_DIR: z
      .string()
      .default('.data')
      .transform((value) => path.resolve(value)),
    PUBLIC_URL: httpUrl().optional(),
    LOG_LEVEL: oneOf(LOG_LEVELS, 'info'),
    LOG_FORMAT: oneOf(LOG_FORMATS, 'auto'),
    LOAD_DEMO_CORPUS: flag().optional(),
    PREPARED_DEMO_DATABASE: flag().default(true),
    PAGE_TOKEN_SECRET: optionalText(),
    ADMIN_TOKEN: optionalText(),
    ADMIN_AUTH_FAILURES_PER_MINUTE: integer(10, 1, 100_000),
    PEERS: peerUrls(),
    PEERS_MIRROR: peerUrls(),
    MIRROR_POLL_SECONDS: integer(60, 0, 86400),
    MIRROR_MAX_ENTRIES: integer(100_000, 1, 10_000_000),
    FEDERATION_BUDGET_MS: integer(1500, 50, 60000),
    FEDERATION_MAX_HOPS: integer(1, 0, 8),
    FEDERATION_MAX_CONCURRENCY: integer(32, 1, 1024),
    FEDERATION_BREAKER_THRESHOLD: integer(3, 1, 1000),
    FEDERATION_BREAKER_COOLDOWN_MS: integer(30000, 10, 3_600_000),
    CRAWL_ALLOW_PRIVATE: flag().default(false),
    RATE_LIMIT_PER_MINUTE: integer(600, 0, 1_000_000),
    REDIS_URL: optionalText(),
    REQUEST_TIMEOUT_MS: integer(10000, 100, 600000),
    MAX_BODY_BYTES: integer(64 * 1024, 1024, 10 * 1024 * 1024),
    EMBEDDING_MODEL_DIR: optionalText(),
    EMBEDDING_RUNTIME: oneOf(EMBEDDING_RUNTIMES, 'auto'),
    EMBEDDING_PRECISION: oneOf(EMBEDDING_PRECISIONS, 'int8'),
    EMBEDDING_ITEM_TIMEOUT_MS: integer(5000, 100, 600_000),
    TRUST_PROXY: integer(0, 0, 10),
    CRAWL_INTERVAL_SECONDS: integer(3600, 1, 30 * 86400),
    CRAWL_USER_AGENT: z.string().default(DEFAULT_CRAWL_USER_AGENT),
    CRAWL_MAX_ENTRIES: integer(10000, 1, 1_000_000),
    CRAWL_MAX_DEPTH: integer(3, 0, 10),
    CRAWL_MAX_BYTES: integer(10 * 1024 * 1024, 1024, 100 * 1024 * 1024),
    CRAWL_MAX_CARDS: integer(200, 0, 100_000),
    CRAWL_TIMEOUT_MS: integer(30000, 100, 600000),
    CRAWL_HOST_DELAY_MS: integer(1000, 0, 600000),
    CRAWL_CONCURRENCY: integer(2, 1, 64),
    CRAWL_SCHEDULER: flag().default(true),
    CRAWL_POLL_MS: integer(15000, 50, 3600000),
    CRAWL_DNS_DISCOVERY: flag().default(true),
    CRAWL_DNS_RESOLVER: dnsServer(),
    CRAWL_DNS_TIMEOUT_MS: integer(2000, 50, 60000),
    CRAWL_DNS_TRIES: integer(2, 1, 5),
    SEARCH_TYPE_WEIGHTS: typeWeights(),
    SEARCH_SYNONYMS_FILE: optionalPath(),
    SEARCH_RELATED_WORDS_FILE: optionalPath(),
    SEARCH_GLOSSARY_FILE: optionalPath(),
    TRUST_BINDING: oneOf(TRUST_BINDING_MODES, 'reject'),
    TRUST_RECHECK_SECONDS: integer(86400, 60, 30 * 86400),
    TRUST_POLL_MS: integer(30000, 0, 3600000),
    TRUST_RANK_BOOST: fraction(0),
    SEARCH_ARCHIVED_DEMOTION: fraction(0.5),
    SEARCH_MATCH_CACHE_SIZE: integer(DEFAULT_SEARCH_MATCH_CACHE_SIZE, 0, 10_000_000),
    LIVENESS_PROBES: flag().default(true),
    LIVENESS_POLL_MS: integer(60000, 0, 3600000),
    LIVENESS_INTERVAL_SECONDS: integer(3600, 60, 30 * 86400),
    LIVENESS_ROUND_BUDGET: integer(2000, 1, 1_000_000),
    LIVENESS_CONCURRENCY: integer(4, 1, 1024),
    LIVENESS_TIMEOUT_MS: integer(10000, 100, 120000),
    LIVENESS_DEAD_AFTER_SECONDS: integer(3 * 86400, 0, 365 * 86400),
    LIVENESS_DROP_AFTER_SECONDS: integer(7 * 86400, 0, 365 * 86400),
    LIVENESS_DEMOTION: fraction(0.3),
    PORTAL_FACETS: portalFacets(),
  })
  .superRefine((env, ctx) => {
    if (env.DATABASE_REPLICA_URL.length > 0 && env.DATABASE_URL === null) {
      ctx.addIssue({
        code: 'custom',
        path: ['DATABASE_REPLICA_URL'],
        message: 'needs DATABASE_URL: the embedded database has no replicas',
      });
    }
  });

export function readEnv(env: NodeJS.ProcessEnv = process.env): Env {
  const out: Env = {};
  for (const name of Object.keys(ENV_SCHEMA.shape)) {
    const value = env[name];
    if (value !== undefined && value.trim() !== '') out[name] = value.trim();
  }
  return out;
}

/** "NAME must be ...": a message names its variable (one that already does is kept as it is). */
function describeIssue(issue: z.core.$ZodIssue): string {
  const name = String(issue.path[0] ?? 'configuration');
  return issue.message.startsWith(name) ? issue.message : `${name} ${issue.message}`;
}

export function envToConfig(env: Env): RegistryConfig {
  const parsed = ENV_SCHEMA.safeParse(env);
  if (!parsed.success) throw new ConfigError(parsed.error.issues.map(describeIssue).join('\n'));
  const e = parsed.data;
  return {
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    databaseReplicaUrls: e.DATABASE_REPLICA_URL,
    databaseReplicaMaxLagSeconds: e.DATABASE_REPLICA_MAX_LAG_SECONDS,
    databaseReplicaCheckMs: e.DATABASE_REPLICA_CHECK_MS,
    databasePreparedStatements: e.DATABASE_PREPARED_STATEMENTS,
    dataDir: e.DATA_DIR,
    publicUrl: e.PUBLIC_URL ?? new URL(`http://localhost:${e.PORT}`).href,
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
    loadDemoCorpus: e.LOAD_DEMO_CORPUS ?? e.DATABASE_URL === null,
    preparedDemoDatabase: e.PREPARED_DEMO_DATABASE,
    pageTokenSecret: e.PAGE_TOKEN_SECRET,
    adminToken: e.ADMIN_TOKEN,
    adminAuthFailuresPerMinute: e.ADMIN_AUTH_FAILURES_PER_MINUTE,
    peers: e.PEERS,
    peersMirror: e.PEERS_MIRROR,
    mirrorPollSeconds: e.MIRROR_POLL_SECONDS,
    mirrorMaxEntries: e.MIRROR_MAX_ENTRIES,
    federationBudgetMs: e.FEDERATION_BUDGET_MS,
    federationMaxHops: e.FEDERATION_MAX_HOPS,
    federationMaxConcurrency: e.FEDERATION_MAX_CONCURRENCY,
    federationBreakerThreshold: e.FEDERATION_BREAKER_THRESHOLD,
    federationBreakerCooldownMs: e.FEDERATION_BREAKER_COOLDOWN_MS,
    crawlAllowPrivate: e.CRAWL_ALLOW_PRIVATE,
    crawl: {
      intervalSeconds: e.CRAWL_INTERVAL_SECONDS,
      userAgent: e.CRAWL_USER_AGENT,
      maxEntries: e.CRAWL_MAX_ENTRIES,
      maxDepth: e.CRAWL_MAX_DEPTH,
      maxBytes: e.CRAWL_MAX_BYTES,
      maxCards: e.CRAWL_MAX_CARDS,
      timeoutMs: e.CRAWL_TIMEOUT_MS,
      hostDelayMs: e.CRAWL_HOST_DELAY_MS,
      concurrency: e.CRAWL_CONCURRENCY,
      schedulerEnabled: e.CRAWL_SCHEDULER,
      pollMs: e.CRAWL_POLL_MS,
      dns: { enabled: e.CRAWL_DNS_DISCOVERY, resolver: e.CRAWL_DNS_RESOLVER, timeoutMs: e.CRAWL_DNS_TIMEOUT_MS, tries: e.CRAWL_DNS_TRIES },
    },
    rateLimitPerMinute: e.RATE_LIMIT_PER_MINUTE,
    redisUrl: e.REDIS_URL,
    trustProxy: e.TRUST_PROXY,
    requestTimeoutMs: e.REQUEST_TIMEOUT_MS,
    maxBodyBytes: e.MAX_BODY_BYTES,
    embeddingModelDir: e.EMBEDDING_MODEL_DIR,
    embeddingRuntime: e.EMBEDDING_RUNTIME,
    embeddingPrecision: e.EMBEDDING_PRECISION,
    embeddingItemTimeoutMs: e.EMBEDDING_ITEM_TIMEOUT_MS,
    searchTypeWeights: e.SEARCH_TYPE_WEIGHTS,
    searchArchivedDemotion: e.SEARCH_ARCHIVED_DEMOTION,
    searchMatchCacheSize: e.SEARCH_MATCH_CACHE_SIZE,
    searchSynonymsFile: e.SEARCH_SYNONYMS_FILE,
    searchRelatedWordsFile: e.SEARCH_RELATED_WORDS_FILE,
    searchGlossaryFile: e.SEARCH_GLOSSARY_FILE,
    trustBinding: e.TRUST_BINDING,
    trustRecheckSeconds: e.TRUST_RECHECK_SECONDS,
    trustPollMs: e.TRUST_POLL_MS,
    trustRankBoost: e.TRUST_RANK_BOOST,
    liveness: {
      probes: e.LIVENESS_PROBES,
      pollMs: e.LIVENESS_POLL_MS,
      intervalSeconds: e.LIVENESS_INTERVAL_SECONDS,
      budget: e.LIVENESS_ROUND_BUDGET,
      concurrency: e.LIVENESS_CONCURRENCY,
      timeoutMs: e.LIVENESS_TIMEOUT_MS,
      deadAfterSeconds: e.LIVENESS_DEAD_AFTER_SECONDS,
      dropAfterSeconds: e.LIVENESS_DROP_AFTER_SECONDS,
      demotion: e.LIVENESS_DEMOTION,
    },
    portalFacets: e.PORTAL_FACETS,
  };
}

export function loadConfig(overrides: Partial<RegistryConfig> = {}): RegistryConfig {
  return { ...envToConfig(readEnv()), ...overrides };
}
