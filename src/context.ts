// Wires everything once from the configuration; `destroy()` closes what it opened, in reverse.
import type { Kysely } from 'kysely';
import type { RegistryConfig } from './config';
import { connectDatabase, type DatabaseHandle } from './db/connect';
import { migrateToLatest } from './db/migrate';
import type { Database } from './db/schema';
import { getOrCreateSetting, randomSecret } from './db/settings';
import { withQueryCache } from './embedding/embedder';
import { EmbeddingModels } from './embedding/model-switch';
import { loadOnnxEmbedder } from './embedding/onnx-embedder';
import { UseLiteEmbedder } from './embedding/use-lite-embedder';
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
    const models = options.embedder ? null : await embeddingModels(config, database.db, logger);
    const embedder = options.embedder ?? (models as EmbeddingModels).embedder;
    return {
      config,
      logger,
      database,
      db: database.db,
      embedder,
      pageTokens: createPageTokenCodec(secret),
      async destroy() {
        models?.stop();
        await database.close();
      },
    };
  } catch (error) {
    await database.close().catch(() => undefined);
    throw error;
  }
}

/**
 * The bundled model, plus the operator's ONNX model when EMBEDDING_MODEL_DIR is set. Search keeps using
 * the active model while the other one's vectors are filled in the background, then switches
 * (src/embedding/model-switch.ts); a missing package or model folder fails the start with its name.
 */
async function embeddingModels(config: RegistryConfig, db: Kysely<Database>, logger: Logger): Promise<EmbeddingModels> {
  const bundled = withQueryCache(new UseLiteEmbedder());
  const target = config.embeddingModelDir ? withQueryCache(await loadOnnxEmbedder(config.embeddingModelDir)) : null;
  const models = new EmbeddingModels(db, bundled, target);
  const active = (await models.refresh()).id;
  if (active !== models.goalId()) {
    logger.info({ from: active, to: models.goalId() }, 're-embedding the index in the background; search keeps the current model until it is complete');
    void models
      .reembed({ onBatch: (done) => logger.debug({ done }, 're-embedding progress') })
      .then((switched) => switched && logger.info({ model: models.goalId() }, 'embedding model switched'))
      .catch((error: unknown) => logger.error({ err: error }, 're-embedding failed; search keeps the current model'));
  }
  return models;
}
