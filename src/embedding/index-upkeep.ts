// The index's background upkeep at start, in the order that keeps it consistent: the tags that have no
// vector are embedded, then the tools of entries that have no tool vector (a database from before migration
// 0023); the glosses written with another product glossary are rewritten (gloss-refresh.ts); only then is the
// index re-embedded with the goal model when it is not the active one (model-switch.ts).
// The switch embeds each entry's stored gloss: started before the rewrite was over, it could read a gloss
// the rewrite was replacing and store the new model's vector of it after the rewrite had passed, a vector
// of the old gloss that nothing would replace. Search answers throughout, on the active model.
import type { Kysely } from 'kysely';
import type { ProductGlossary } from '../catalog/product-glossary';
import type { Database } from '../db/schema';
import type { Logger } from '../logger';
import type { Embedder } from './embedder';
import { refreshGlosses } from './gloss-refresh';
import type { EmbeddingModels } from './model-switch';
import { fillTagVectors } from './tag-vectors';
import { fillToolVectors } from './tool-vectors';

export interface IndexUpkeepDeps {
  db: Kysely<Database>;
  /** The active model (search's embedder). */
  embedder: Embedder;
  /** The bundled and configured models; null when the embedder was given (tests). */
  models: EmbeddingModels | null;
  glossary: ProductGlossary;
  logger: Logger;
  /** Entries per batch of the gloss rewrite and of the re-embedding (their defaults when unset). */
  batchSize?: number;
}

export interface IndexUpkeep {
  /** Settles when every job has finished or stopped; a job's failure is logged, not thrown. */
  done: Promise<void>;
  /** Stops the jobs after their current batch (shutdown). */
  stop(): void;
}

export function startIndexUpkeep(deps: IndexUpkeepDeps): IndexUpkeep {
  const { db, embedder, models, glossary, logger } = deps;
  let stopping = false;
  // Tags stored before migration 0010, or by an ingest that stopped before embedding them: search's topic
  // labels skip a tag without a vector until then.
  const tags = fillTagVectors(db, embedder)
    .then((added) => {
      if (added > 0) logger.info({ added, model: embedder.id }, 'embedded the tags that had no vector');
    })
    .catch((error: unknown) => logger.error({ err: error }, 'embedding tags failed; search ranks without those topic labels'))
    .then(() => (stopping ? 0 : fillToolVectors(db, embedder, { onBatch: () => !stopping })))
    .then((filled) => {
      if (filled > 0) logger.info({ entries: filled, model: embedder.id }, 'embedded the tools of the entries that had no tool vector');
    })
    .catch((error: unknown) =>
      logger.error({ err: error }, "embedding tools failed; search ranks those entries without their tools' vectors"),
    );
  const glossesThenModel = refreshGlosses(db, embedder, { glossary, batchSize: deps.batchSize, onBatch: () => !stopping })
    .then((result) => {
      if (result.changed > 0)
        logger.info(
          { changed: result.changed, read: result.read, glossary: glossary.version },
          'rewrote the product glossary of the entries whose gloss changed',
        );
    })
    .catch((error: unknown) =>
      logger.error({ err: error }, 'refreshing the product glossary failed; entries keep their previous glosses until the next start'),
    )
    .then(() => (models && !stopping ? switchModel(models, logger, deps.batchSize) : undefined));
  return {
    done: Promise.all([tags, glossesThenModel]).then(() => undefined),
    stop() {
      stopping = true;
      models?.stop();
    },
  };
}

async function switchModel(models: EmbeddingModels, logger: Logger, batchSize: number | undefined): Promise<void> {
  const active = (await models.refresh()).id;
  if (active === models.goalId()) return;
  logger.info(
    { from: active, to: models.goalId() },
    're-embedding the index in the background; search keeps the current model until it is complete',
  );
  try {
    const switched = await models.reembed({ batchSize, onBatch: (done) => logger.debug({ done }, 're-embedding progress') });
    if (switched) logger.info({ model: models.goalId() }, 'embedding model switched');
  } catch (error) {
    logger.error({ err: error }, 're-embedding failed; search keeps the current model');
  }
}
