// Changing the embedding model without downtime. entry_vectors is keyed by model, so the new model's
// vectors are written beside the old ones while search keeps reading the old model (the ACTIVE one, kept
// in registry_settings). Once every live entry has the new model's vectors for every field and for its tools,
// the active model is switched in one write; every registry process on the database follows on its next refresh.
import { sql, type Kysely } from 'kysely';
import { deleteVectors, storeVectors } from '../catalog/entry-repository';
import type { Database } from '../db/schema';
import { getSetting, setSetting } from '../db/settings';
import type { Embedder } from './embedder';
import { withQueryCache } from './embedder';
import { ENTRY_VECTOR_FIELDS, entryEmbeddingTexts, INDEXED_VECTOR_FIELDS } from './entry-texts';
import { fillTagVectors } from './tag-vectors';
import { fillToolVectors } from './tool-vectors';
import type { CatalogEntry } from '../catalog/catalog-entry';

export const ACTIVE_MODEL_SETTING = 'active_embedding_model';

export type CachedEmbedder = ReturnType<typeof withQueryCache>;

export interface ModelSwitchOptions {
  batchSize?: number;
  /** Called after each batch; returning false stops the job (tests, shutdown). */
  onBatch?: (done: number) => boolean | void;
}

/**
 * Holds the bundled and (optionally) the configured embedder and answers which one search must use.
 * `embedder` is a stable object that delegates to the active model, for code that keeps a reference.
 */
export class EmbeddingModels {
  private active: CachedEmbedder;
  private stopped = false;
  readonly embedder: CachedEmbedder;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly current: CachedEmbedder,
    private readonly target: CachedEmbedder | null,
  ) {
    this.active = current;
    const self = this;
    this.embedder = {
      get id() {
        return self.active.id;
      },
      get dimensions() {
        return self.active.dimensions;
      },
      embed: (texts) => self.active.embed(texts),
      embedOne: (text) => self.active.embedOne(text),
      readableShare: (text) => self.active.readableShare?.(text) ?? 1,
      close: async () => {
        await current.close?.();
        await target?.close?.();
      },
    };
  }

  /** Reads the active model from the database (another process may have switched it). */
  async refresh(): Promise<CachedEmbedder> {
    const id = await this.storedActiveId();
    if (this.target && id === this.target.id) this.active = this.target;
    else this.active = this.current;
    return this.active;
  }

  /** No setting yet: the bundled model, which every index starts with. */
  private async storedActiveId(): Promise<string> {
    return (await getSetting(this.db, ACTIVE_MODEL_SETTING)) ?? this.current.id;
  }

  activeId(): string {
    return this.active.id;
  }

  /** The model search should end up on: the configured one, else the bundled one. */
  goalId(): string {
    return (this.target ?? this.current).id;
  }

  stop(): void {
    this.stopped = true;
  }

  /**
   * Embeds, with the goal model, every live entry that lacks its vectors; switches the active model when
   * none is left. Returns true when it switched (or the goal was already active).
   */
  async reembed(options: ModelSwitchOptions = {}): Promise<boolean> {
    // Without a configured model the bundled one is the goal: back from an ONNX model, it fills the
    // bundled vectors of entries added meanwhile.
    const target = this.target ?? this.current;
    if ((await this.storedActiveId()) === target.id) {
      this.active = target;
      return true;
    }
    await ensureVectorIndex(this.db, target);
    const batchSize = options.batchSize ?? 64;
    let done = 0;
    for (;;) {
      if (this.stopped) return false;
      const batch = await entriesMissingVectors(this.db, target.id, batchSize);
      if (batch.length === 0) break;
      const texts = batch.map((b) => entryEmbeddingTexts(b.entry, b.gloss));
      await deleteVectors(
        this.db,
        target.id,
        batch.map((b) => b.identifier),
      );
      for (const field of ENTRY_VECTOR_FIELDS) {
        const rows = batch.map((b, i) => ({ identifier: b.identifier, text: texts[i][field] })).filter((r) => r.text.trim() !== '');
        if (rows.length === 0) continue;
        const vectors = await target.embed(rows.map((r) => r.text));
        await storeVectors(
          this.db,
          target.id,
          field,
          rows.map((r, i) => ({ identifier: r.identifier, vector: vectors[i] })),
        );
      }
      done += batch.length;
      if (options.onBatch?.(done) === false) return false;
    }
    await fillTagVectors(this.db, target);
    // The tools' vectors of the goal model: the entries' were embedded above, their tools here.
    await fillToolVectors(this.db, target, { onBatch: () => !this.stopped });
    if (this.stopped) return false;
    await setSetting(this.db, ACTIVE_MODEL_SETTING, target.id);
    this.active = target;
    return true;
  }
}

/** Live entries without a 'doc' vector of `model` (every entry has a doc text, so it marks completeness). */
export async function entriesMissingVectors(
  db: Kysely<Database>,
  model: string,
  limit: number,
): Promise<Array<{ identifier: string; entry: CatalogEntry; gloss: string }>> {
  const rows = await sql<{ identifier: string; entry: CatalogEntry; gloss: string }>`
    SELECT e.identifier, e.entry, e.gloss FROM entries e
    WHERE e.deleted_at IS NULL
      AND NOT EXISTS (SELECT 1 FROM entry_vectors v WHERE v.identifier = e.identifier AND v.model = ${model} AND v.field = 'doc')
    ORDER BY e.identifier LIMIT ${limit}`.execute(db);
  return rows.rows;
}

/** The graph options of every HNSW index (db/migrations/0008_hnsw_graph.sql measured them: recall@10 0.978 at ef_search 100). */
export const HNSW_INDEX_OPTIONS = 'm = 24, ef_construction = 128';

/**
 * A partial HNSW index per (model, retrieval field), on the expression search orders by; and one of the model's tag
 * vectors, which the topic labels scan beyond TOPIC_POPULATION live tags (migration 0026 made the bundled model's).
 */
async function ensureVectorIndex(db: Kysely<Database>, model: Embedder): Promise<void> {
  const safe = model.id
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .slice(0, 40);
  const embedding = sql`(embedding::vector(${sql.raw(String(model.dimensions))})) vector_cosine_ops`;
  for (const field of INDEXED_VECTOR_FIELDS) {
    await sql`CREATE INDEX IF NOT EXISTS ${sql.raw(`entry_vectors_${safe}_${field}_hnsw`)} ON entry_vectors
      USING hnsw (${embedding}) WITH (${sql.raw(HNSW_INDEX_OPTIONS)})
      WHERE model = ${sql.lit(model.id)} AND field = ${sql.lit(field)}`.execute(db);
  }
  await sql`CREATE INDEX IF NOT EXISTS ${sql.raw(`tag_vectors_${safe}_hnsw`)} ON tag_vectors
    USING hnsw (${embedding}) WITH (${sql.raw(HNSW_INDEX_OPTIONS)}) WHERE model = ${sql.lit(model.id)}`.execute(db);
}
