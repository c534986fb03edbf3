// Wires everything once from the configuration; `destroy()` closes what it opened, in reverse.
import type { Kysely } from 'kysely';
import type { RegistryConfig } from './config';
import { connectDatabase, type DatabaseHandle } from './db/connect';
import { migrateToLatest } from './db/migrate';
import type { Database } from './db/schema';
import { getOrCreateSetting, randomSecret } from './db/settings';
import { withQueryCache } from './embedding/embedder';
import { UseLiteEmbedder } from './embedding/use-lite-embedder';
import { createFederation, type Federation } from './federation/federation-service';
import { createLogger, type Logger } from './logger';
import { createPageTokenCodec, type PageTokenCodec } from './search/page-token';
import type { QueryEmbedder } from './search/relevance';

export interface AppContext {
  config: RegistryConfig;
  logger: Logger;
  database: DatabaseHandle;
  db: Kysely<Database>;
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
  const database = await connectDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    const applied = await migrateToLatest(database.db);
    if (applied.length > 0) logger.info({ applied }, 'database migrated');
    const secret = config.pageTokenSecret ?? (await getOrCreateSetting(database.db, 'page_token_secret', randomSecret));
    const embedder = options.embedder ?? withQueryCache(new UseLiteEmbedder());
    const federation = createFederation(config);
    return {
      config,
      logger,
      database,
      db: database.db,
      embedder,
      pageTokens: createPageTokenCodec(secret),
      federation,
      async destroy() {
        await federation.close();
        await database.close();
      },
    };
  } catch (error) {
    await database.close().catch(() => undefined);
    throw error;
  }
}
