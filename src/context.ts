// Wires everything once from the configuration; `destroy()` closes what it opened, in reverse.
import type { Kysely } from 'kysely';
import { loadAlexandriaLibrary } from './alexandria/record';
import { registryLibrary, type RegistryLibrary } from './alexandria/registry-resource-index';
import { loadProductGlossary, type ProductGlossary } from './catalog/product-glossary';
import { publicUrlHasIpHost } from './catalog/registry-manifest';
import type { RegistryConfig } from './config';
import { createWebCrawler } from './crawl';
import type { Crawler } from './crawl';
import { connectDatabase, type DatabaseHandle } from './db/connect';
import { connectRedis, type RedisHandle } from './db/redis';
import { migrateToLatest } from './db/migrate';
import type { Database } from './db/schema';
import { getOrCreateSetting, randomSecret } from './db/settings';
import { withQueryCache } from './embedding/embedder';
import { startIndexUpkeep, type IndexUpkeep } from './embedding/index-upkeep';
import { findPreparedDemoFolder } from './ingest/prepared-demo-database';
import { EmbeddingModels } from './embedding/model-switch';
import { loadOnnxEmbedder } from './embedding/onnx-embedder';
import { UseLiteEmbedder } from './embedding/use-lite-embedder';
import { createFederation, type Federation } from './federation/federation-service';
import { createMirrorFollower, type MirrorFollower } from './federation/mirror-follower';
import { mirroredBases } from './federation/peer-directory';
import type { FederatedSearchDeps } from './federation/federated-search';
import { ALEXANDRIA_LIBRARY_FILE } from './ingest/alexandria-corpus';
import { startLivenessUpkeep, type LivenessUpkeep } from './liveness';
import { createLogger, type Logger } from './logger';
import { mcpLivenessHandshake } from './mcp/liveness-probe';
import { registerReadPoolMetrics } from './observability/database-metrics';
import { registerFederationMetrics } from './observability/federation-metrics';
import { registerMatchCacheMetrics } from './observability/search-metrics';
import { createMetrics, type RegistryMetrics } from './observability/metrics';
import type { HttpClient } from './outbound';
import { createPageTokenCodec, type PageTokenCodec } from './search/paging';
import { loadQueryVocabulary, type QueryVocabulary } from './search/query-vocabulary';
import { entryStateRanking, MatchCache, type QueryEmbedder } from './search/relevance';
import { createSearchService, type SearchService } from './search/search-service';
import { startTrustUpkeep, type TrustUpkeep } from './trust';

export interface AppContext {
  config: RegistryConfig;
  logger: Logger;
  database: DatabaseHandle;
  /** The primary: writes. */
  db: Kysely<Database>;
  /** Queries: a healthy replica (DATABASE_REPLICA_URL) when configured, else the primary (src/db/read-pool.ts). */
  readDb: Kysely<Database>;
  /** Shared rate-limit counters (REDIS_URL); null = counted in this process. */
  redis: RedisHandle | null;
  metrics: RegistryMetrics;
  embedder: QueryEmbedder;
  /** The synonyms and related words that expand queries: the bundled tables and the operator's files. */
  vocabulary: QueryVocabulary;
  /** The product glossary entries are indexed with: the bundled one, extended by SEARCH_GLOSSARY_FILE. */
  glossary: ProductGlossary;
  pageTokens: PageTokenCodec;
  /**
   * Search over this registry's index on the read pool, with the context's embedder, vocabulary, type weights
   * (SEARCH_TYPE_WEIGHTS) and stage timings: POST /search and /explore, federation and the Alexandria tools call it.
   */
  search: SearchService;
  /** The Alexandria library (its file's taxonomy) and the three tools' service over the registry's search. */
  library: RegistryLibrary;
  /** Web ingestion (src/crawl): crawls registered sources on demand; the scheduler lives in server.ts. */
  crawler: Crawler;
  /** Peer clients, circuit breakers and counters of federated search. */
  federation: Federation;
  /** Checks entries' trust manifests in the background (src/trust, TRUST_POLL_MS). */
  trust: TrustUpkeep;
  /** The start's background index jobs (tag vectors, glosses, model switch): `done` settles when they end. */
  indexUpkeep: IndexUpkeep;
  /** Probes what the registry lists in the background (src/liveness, LIVENESS_POLL_MS); tick() probes what is due now. */
  liveness: LivenessUpkeep;
  /** Follows the change feeds of PEERS_MIRROR (every MIRROR_POLL_SECONDS once server.ts starts it; docs/federation.md "Mirroring"). */
  mirror: MirrorFollower;
  destroy(): Promise<void>;
}

/** A DID document or JWKS is a few keys: 64 KiB is generous, and a larger one is refused ('did-document-too-large'). */
export const TRUST_DOCUMENT_MAX_BYTES = 64 * 1024;
/** Deadline for fetching one DID document or JWKS. */
export const TRUST_FETCH_TIMEOUT_MS = 10_000;

export interface ContextOptions {
  logger?: Logger;
  embedder?: QueryEmbedder;
  /** The crawler's HTTP client (tests inject one with a fake resolver); default from the crawl config. */
  crawlHttp?: HttpClient;
  /** Recorded in the embedded folder's lock: the command, and a server's local URL and admin token. */
  owner?: { command: string; url?: string; adminToken?: string };
}

export async function createContext(config: RegistryConfig, options: ContextOptions = {}): Promise<AppContext> {
  const logger = options.logger ?? createLogger(config.logLevel, {}, 'stdout', config.logFormat);
  if (publicUrlHasIpHost(config.publicUrl)) {
    logger.warn(
      { publicUrl: config.publicUrl },
      "PUBLIC_URL's host is an IP address: this registry's own entries get an IP as their URN publisher, which is not a domain (ARD Appendix C); set PUBLIC_URL to the registry's domain name",
    );
  }
  // Before anything is opened: a bad vocabulary file stops the start with nothing to close.
  const vocabulary = await loadQueryVocabulary({
    synonymsFile: config.searchSynonymsFile,
    relatedWordsFile: config.searchRelatedWordsFile,
  });
  const glossary = await loadProductGlossary(config.searchGlossaryFile);
  const alexandria = await loadAlexandriaLibrary(ALEXANDRIA_LIBRARY_FILE);
  const database = await connectDatabase({
    databaseUrl: config.databaseUrl,
    databaseReplicaUrls: config.databaseReplicaUrls,
    replicaMaxLagSeconds: config.databaseReplicaMaxLagSeconds,
    replicaCheckMs: config.databaseReplicaCheckMs,
    logger,
    dataDir: config.dataDir,
    preparedStatements: config.databasePreparedStatements,
    owner: options.owner,
    seedFolder: () => (config.loadDemoCorpus && config.preparedDemoDatabase ? findPreparedDemoFolder() : null),
  });
  if (database.seeded) logger.info({ dataDir: config.dataDir }, 'new folder: copied from the prepared demo database');
  let redis: RedisHandle | null = null;
  try {
    const applied = await migrateToLatest(database.db);
    if (applied.length > 0) logger.info({ applied }, 'database migrated');
    const secret = config.pageTokenSecret ?? (await getOrCreateSetting(database.db, 'page_token_secret', randomSecret));
    // Redis before the embedding models: a failure after this point would leak what is opened below.
    if (config.redisUrl) redis = await connectRedis(config.redisUrl, logger);
    const opened = redis;
    const bundled = options.embedder ? null : await embeddingModels(config, database.db, logger);
    const models = bundled?.models ?? null;
    const embedder = options.embedder ?? (models as EmbeddingModels).embedder;
    // Tag vectors, glosses of another product glossary, then the goal embedding model: in the background,
    // in that order (src/embedding/index-upkeep.ts); destroy() stops them and waits.
    const upkeep = startIndexUpkeep({ db: database.db, embedder, models, glossary, logger });
    const crawler = createWebCrawler({ db: database.db, embedder, config, logger, glossary }, options.crawlHttp);
    const federation = createFederation(config);
    const trust = startTrustUpkeep(
      {
        db: database.db,
        // The crawler's client: its User-Agent, address policy (CRAWL_ALLOW_PRIVATE) and deadlines.
        keys: {
          http: crawler.http,
          timeoutMs: Math.min(config.crawl.timeoutMs, TRUST_FETCH_TIMEOUT_MS),
          maxBytes: TRUST_DOCUMENT_MAX_BYTES,
        },
        recheckSeconds: config.trustRecheckSeconds,
        logger,
        exclusive: database.exclusive,
      },
      config.trustPollMs,
    );
    // Started by a serving registry (server.ts); one-shot commands leave it idle.
    const mirror = createMirrorFollower({
      db: database.db,
      embedder,
      glossary,
      binding: config.trustBinding,
      peers: mirroredBases(config.peersMirror, config.publicUrl),
      maxEntries: config.mirrorMaxEntries,
      logger,
      exclusive: database.exclusive,
    });
    const metrics = createMetrics();
    // The crawler's client and host limiter: its User-Agent, address policy, and one spacing per host for
    // crawls and probes together (CRAWL_HOST_DELAY_MS, raised by robots.txt Crawl-delay).
    const liveness = startLivenessUpkeep(
      {
        db: database.db,
        http: crawler.http,
        limiter: crawler.limiter,
        mcpHandshake: mcpLivenessHandshake(crawler.http),
        timeoutMs: config.liveness.timeoutMs,
        intervalSeconds: config.liveness.intervalSeconds,
        deadAfterSeconds: config.liveness.deadAfterSeconds,
        budget: config.liveness.budget,
        concurrency: config.liveness.concurrency,
        counter: metrics.probeCounter,
        logger,
        exclusive: database.exclusive,
      },
      config.liveness.probes ? config.liveness.pollMs : 0,
    );
    if (bundled) metrics.bundledEmbeddingRuntime.set({ runtime: bundled.runtime }, 1);
    registerFederationMetrics(metrics, federation, mirror);
    if (database.readPool) registerReadPoolMetrics(metrics, database.readPool);
    const pageTokens = createPageTokenCodec(secret);
    const matchCache = config.searchMatchCacheSize > 0 ? new MatchCache(config.searchMatchCacheSize) : undefined;
    if (matchCache) registerMatchCacheMetrics(metrics, matchCache);
    const search = createSearchService({
      db: database.readDb,
      embedder,
      vocabulary,
      typeWeights: config.searchTypeWeights,
      entryStates: entryStateRanking(config),
      pageTokens,
      publicUrl: config.publicUrl,
      timings: metrics.searchTimings,
      matchCache,
    });
    const library = registryLibrary(alexandria, { db: database.readDb, search });
    return {
      config,
      logger,
      database,
      db: database.db,
      readDb: database.readDb,
      redis,
      metrics,
      embedder,
      vocabulary,
      glossary,
      pageTokens,
      search,
      library,
      crawler,
      federation,
      trust,
      indexUpkeep: upkeep,
      liveness,
      mirror,
      async destroy() {
        await mirror.stop();
        await liveness.stop();
        await trust.stop();
        await crawler.close();
        await federation.close();
        await opened?.close();
        upkeep.stop();
        await upkeep.done;
        await database.close();
      },
    };
  } catch (error) {
    await redis?.close().catch(() => undefined);
    await database.close().catch(() => undefined);
    throw error;
  }
}

/**
 * The bundled model, plus the operator's ONNX model when EMBEDDING_MODEL_DIR is set. Search keeps using
 * the active model while the other one's vectors are filled in the background (the index upkeep's last job,
 * src/embedding/index-upkeep.ts), then switches (src/embedding/model-switch.ts); a missing package or model folder fails the start with its name, as does
 * EMBEDDING_RUNTIME=onnxruntime when onnxruntime-node cannot be loaded ('auto' falls back to TF.js with a warning).
 */
async function embeddingModels(
  config: RegistryConfig,
  db: Kysely<Database>,
  logger: Logger,
): Promise<{ models: EmbeddingModels; runtime: 'onnxruntime' | 'tfjs' }> {
  const useLite = new UseLiteEmbedder({
    runtime: config.embeddingRuntime,
    itemTimeoutMs: config.embeddingItemTimeoutMs,
    precision: config.embeddingPrecision,
    onFallback: (error) =>
      logger.warn({ err: error }, 'the bundled model runs on TF.js, ~8x slower per query: onnxruntime-node did not load'),
  });
  // Loaded at start: EMBEDDING_RUNTIME=onnxruntime without a working onnxruntime-node fails here, by name.
  const runtime = await useLite.runtime();
  logger.info(
    { model: useLite.id, runtime, ...(runtime === 'onnxruntime' ? { precision: config.embeddingPrecision } : {}) },
    'bundled embedding model loaded',
  );
  const bundled = withQueryCache(useLite);
  const target = config.embeddingModelDir ? withQueryCache(await loadOnnxEmbedder(config.embeddingModelDir)) : null;
  const models = new EmbeddingModels(db, bundled, target);
  // Search starts on the active model; the switch to the goal one is the index upkeep's last job.
  await models.refresh();
  return { models, runtime };
}

/** What POST /search's federated search runs on, from the context: its handler and the registry's MCP tools. */
export function federatedSearchDeps(ctx: AppContext): FederatedSearchDeps {
  return {
    search: ctx.search,
    db: ctx.readDb,
    publicUrl: ctx.config.publicUrl,
    vocabulary: ctx.vocabulary,
    configuredPeers: ctx.config.peers,
    mirroredPeers: ctx.config.peersMirror,
    federation: ctx.federation,
    logger: ctx.logger,
  };
}
