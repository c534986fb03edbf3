// Wires everything once from the configuration; `destroy()` closes what it opened, in reverse.
import type { Kysely } from 'kysely';
import type { RegistryConfig } from './config';
import { connectDatabase, type DatabaseHandle } from './db/connect';
import { connectRedis, type RedisHandle } from './db/redis';
import { migrateToLatest } from './db/migrate';
import type { Database } from './db/schema';
import { getOrCreateSetting, randomSecret } from './db/settings';
import { withQueryCache } from './embedding/embedder';
import { UseLiteEmbedder } from './embedding/use-lite-embedder';
import { createFederation, type Federation } from './federation/federation-service';
import { createLogger, type Logger } from './logger';
import { registerFederationMetrics } from './observability/federation-metrics';
import { createMetrics, type RegistryMetrics } from './observability/metrics';
import { createPageTokenCodec, type PageTokenCodec } from './search/page-token';
import type { QueryEmbedder } from './search/relevance';

export interface AppContext {
  config: RegistryConfig;
  logger: Logger;
  database: DatabaseHandle;
  /** The primary: writes. */
  db: Kysely<Database>;
  /** Queries: the read replica (DATABASE_REPLICA_URL) when configured, else the primary. */
  readDb: Kysely<Database>;
  /** Shared rate-limit counters (REDIS_URL); null = counted in this process. */
  redis: RedisHandle | null;
  metrics: RegistryMetrics;
  embedder: QueryEmbedder;
  pageTokens: PageTokenCodec;
  /** Peer clients, circuit breakers and counters of federated search. */
  federation: Federation;
  destroy(): Promise<void>;
}

export interface ContextOptions {
  logger?: Logger;
  embedder?: QueryEmbedder;
}

export async function createContext(config: RegistryConfig, options: ContextOptions = {}): Promise<AppContext> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const database = await connectDatabase({
    databaseUrl: config.databaseUrl,
    databaseReplicaUrl: config.databaseReplicaUrl,
    dataDir: config.dataDir,
  });
  let redis: RedisHandle | null = null;
  try {
    const applied = await migrateToLatest(database.db);
    if (applied.length > 0) logger.info({ applied }, 'database migrated');
    const secret = config.pageTokenSecret ?? (await getOrCreateSetting(database.db, 'page_token_secret', randomSecret));
    const embedder = options.embedder ?? withQueryCache(new UseLiteEmbedder());
    const federation = createFederation(config);
    if (config.redisUrl) redis = await connectRedis(config.redisUrl, logger);
    const opened = redis;
    const metrics = createMetrics();
    registerFederationMetrics(metrics, federation);
    return {
      config,
      logger,
      database,
      db: database.db,
      readDb: database.readDb,
      redis,
      metrics,
      embedder,
      pageTokens: createPageTokenCodec(secret),
      federation,
      async destroy() {
        await federation.close();
        await opened?.close();
        await database.close();
      },
    };
  } catch (error) {
    await redis?.close().catch(() => undefined);
    await database.close().catch(() => undefined);
    throw error;
  }
}
