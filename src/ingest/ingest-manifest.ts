// Loads one ai-catalog manifest into the index: every entry is validated on its own (an invalid one
// is reported and never blocks the valid ones, nor changes what was stored for it before),
// unchanged entries are skipped by content hash (no re-embedding), and the write is one
// transaction done after all embedding work, so an interrupted run leaves the index as it was.
import type { Kysely } from 'kysely';
import type { CatalogEntry, CatalogManifest, HostInfo } from '../catalog/catalog-entry';
import { validateCatalogEntry, validateManifestEnvelope, type EntryProblem } from '../catalog/catalog-validator';
import {
  deleteToolVectors,
  deleteVectors,
  prepareEntry,
  storedHashes,
  storeToolVectors,
  withToolVectors,
  storeVectors,
  upsertEntries,
  type PreparedEntry,
} from '../catalog/entry-repository';
import { sameTools } from '../catalog/entry-tools';
import type { ProductGlossary } from '../catalog/product-glossary';
import type { Database } from '../db/schema';
import type { Embedder } from '../embedding/embedder';
import { ENTRY_VECTOR_FIELDS, entryEmbeddingTexts } from '../embedding/entry-texts';
import { embedTools } from '../embedding/tool-vectors';
import { fillTagVectors } from '../embedding/tag-vectors';
import { vacuumSearchStatistics } from '../db/maintenance';
import { bindingProblem } from '../trust/trust-domain';

/**
 * What a trust manifest that does not bind to the identifier's publisher (ARD v0.91 §4.5.1) does at
 * ingestion: 'reject' (the default) reports the entry as rejected; 'flag' stores it, and the trust
 * upkeep records it as failed ('binding-mismatch').
 */
export type BindingMode = 'reject' | 'flag';

export class ManifestInvalidError extends Error {
  override name = 'ManifestInvalidError';
  constructor(
    readonly problems: string[],
    readonly origin: string,
  ) {
    super(`${origin} is not a valid ai-catalog manifest: ${problems.slice(0, 5).join('; ')}`);
  }
}

export interface IngestReport {
  origin: string;
  total: number;
  added: number;
  updated: number;
  unchanged: number;
  rejected: EntryProblem[];
  /** Valid entries, in manifest order (the caller may need them, e.g. nested catalogs, registries). */
  accepted: CatalogEntry[];
}

export interface IngestOptions {
  origin: string;
  fetchedAt?: Date;
  /** Called as embedding progresses: (done, total). */
  onProgress?: (done: number, total: number) => void;
  /** Milliseconds spent in each stage of the write are added here (WriteOptions). */
  stageTimings?: WriteStageTimings;
}

export interface IngestDeps {
  db: Kysely<Database>;
  embedder: Embedder;
  /** The product glossary entries are glossed with (the context's: SEARCH_GLOSSARY_FILE); default the bundled one. */
  glossary?: ProductGlossary;
  /** TRUST_BINDING; default 'reject'. */
  binding?: BindingMode;
}

/** Validates a manifest's entries without writing anything. */
export function validateManifest(manifest: unknown, origin: string, options: { binding?: BindingMode } = {}): ValidatedManifest {
  const problems = validateManifestEnvelope(manifest);
  if (problems.length > 0) throw new ManifestInvalidError(problems, origin);
  const checked: ValidatedManifest = { host: (manifest as CatalogManifest).host, valid: [], rejected: [] };
  const seen = new Set<string>();
  (manifest as CatalogManifest).entries.forEach((entry: unknown, index) => checkEntry(entry, index, seen, checked, options.binding));
  return checked;
}

/**
 * validateManifest, `perTurn` entries between two turns of the event loop: 10 000 entries take ~0.3 s
 * of schema validation, which in one piece would stall every request meanwhile.
 */
export async function validateManifestInTurns(
  manifest: unknown,
  origin: string,
  perTurn = 200,
  /** Entries already found over a size limit, by index, with the reason (the crawler's body reader stubs them). */
  oversized: Readonly<Record<number, string>> = {},
  options: { binding?: BindingMode } = {},
): Promise<ValidatedManifest> {
  const problems = validateManifestEnvelope(manifest);
  if (problems.length > 0) throw new ManifestInvalidError(problems, origin);
  const { valid, rejected } = await validateEntriesInTurns((manifest as CatalogManifest).entries as unknown[], perTurn, oversized, options);
  return { host: (manifest as CatalogManifest).host, valid, rejected };
}

/**
 * Entries received outside a manifest (a mirrored peer's change feed) held to the same checks as a
 * manifest's: the size limits, the catalog schema, the publisher binding, one entry per identifier.
 */
export async function validateEntriesInTurns(
  entries: readonly unknown[],
  perTurn = 200,
  oversized: Readonly<Record<number, string>> = {},
  options: { binding?: BindingMode } = {},
): Promise<Omit<ValidatedManifest, 'host'>> {
  const checked: ValidatedManifest = { host: undefined, valid: [], rejected: [] };
  const seen = new Set<string>();
  for (const [index, entry] of entries.entries()) {
    if (index > 0 && index % perTurn === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    if (oversized[index] !== undefined) checked.rejected.push({ index, identifier: identifierOf(entry), reason: oversized[index] });
    else checkEntry(entry, index, seen, checked, options.binding);
  }
  return { valid: checked.valid, rejected: checked.rejected };
}

export interface ValidatedManifest {
  host: HostInfo | undefined;
  valid: CatalogEntry[];
  rejected: EntryProblem[];
}

function checkEntry(entry: unknown, index: number, seen: Set<string>, into: ValidatedManifest, binding?: BindingMode): void {
  const identifier = identifierOf(entry);
  const reasons = [...validateCatalogEntry(entry)];
  // A trust manifest whose identity does not bind to the publisher (ARD v0.91 §4.5.1), unless flagged instead.
  const unbound = reasons.length === 0 && binding !== 'flag' ? bindingProblem(entry as CatalogEntry) : null;
  if (unbound) reasons.push(unbound);
  if (reasons.length > 0) {
    into.rejected.push({ index, identifier, reason: reasons.join('; ') });
  } else if (seen.has(identifier as string)) {
    into.rejected.push({ index, identifier, reason: `duplicate identifier: an earlier entry of this manifest has '${identifier}'` });
  } else {
    seen.add(identifier as string);
    into.valid.push(entry as CatalogEntry);
  }
}

export async function ingestManifest(deps: IngestDeps, manifest: unknown, options: IngestOptions): Promise<IngestReport> {
  const fetchedAt = options.fetchedAt ?? new Date();
  const { host, valid, rejected } = await validateManifestInTurns(manifest, options.origin, undefined, undefined, {
    binding: deps.binding,
  });
  const prepared = valid.map((entry) => prepareEntry({ entry, host, origin: options.origin, fetchedAt }, deps.glossary));
  const { added, updated, unchanged } = await writeEntries(deps, prepared, {
    onProgress: options.onProgress,
    stageTimings: options.stageTimings,
  });
  return {
    origin: options.origin,
    total: (manifest as CatalogManifest).entries.length,
    added,
    updated,
    unchanged,
    rejected,
    accepted: valid,
  };
}

export interface WriteOptions {
  onProgress?: (done: number, total: number) => void;
  /** Runs in the same transaction after the upsert (e.g. tombstoning what a source no longer lists). */
  inTransaction?: (trx: Kysely<Database>) => Promise<void>;
  /** Milliseconds spent in each stage are added here (bench/ingest.ts prints them). */
  stageTimings?: WriteStageTimings;
}

/**
 * The stages of writeEntries: `select` reads the stored hashes, `embed` runs the model (entries, and the tools of
 * those whose tools changed or that have none of its vectors), `entries` is the upsert with its triggers (rank and
 * term documents, BM25 statistics, postings, change feed), `vectors` the vectors with their HNSW inserts and the tool
 * vectors, `commit` the rest of the transaction and its commit, `tagVectors` and `vacuum` what follows.
 */
export const WRITE_STAGES = ['select', 'embed', 'entries', 'vectors', 'commit', 'tagVectors', 'vacuum'] as const;
export type WriteStageTimings = Partial<Record<(typeof WRITE_STAGES)[number], number>>;

async function timed<T>(timings: WriteStageTimings, stage: keyof WriteStageTimings, work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await work();
  } finally {
    timings[stage] = (timings[stage] ?? 0) + performance.now() - started;
  }
}

/**
 * Stores prepared entries: unchanged ones (same content hash, live) are skipped, changed ones are
 * embedded first, then everything is written in one transaction.
 */
export async function writeEntries(
  deps: IngestDeps,
  prepared: PreparedEntry[],
  options: WriteOptions = {},
): Promise<{ added: number; updated: number; unchanged: number; refused: number }> {
  // This call's stages, added to the caller's at the end.
  const timings: WriteStageTimings = {};
  const { changed, reattributed, retooled, untooled, added, unchanged } = await timed(timings, 'select', () =>
    selectChanged(deps.db, deps.embedder.id, prepared),
  );
  const [vectors, toolVectors] = await timed(timings, 'embed', async () => [
    await embedEntries(deps.embedder, changed, options.onProgress),
    await embedTools(
      deps.embedder,
      [...retooled, ...untooled].map((r) => ({ identifier: r.entry.identifier, tools: r.tools })),
    ),
  ]);
  let refused = 0;
  await timed(timings, 'commit', () =>
    deps.db.transaction().execute(async (trx) => {
      const written = await timed(timings, 'entries', () => upsertEntries(trx, [...changed, ...reattributed]));
      // A mirrored copy the upsert refused (a live entry of our own, or of another peer, took the
      // identifier since it was read) keeps its vectors out of the index.
      const stored = changed.filter((c) => written.has(c.entry.identifier));
      refused = changed.length + reattributed.length - written.size;
      await timed(timings, 'vectors', async () => {
        // Fields an entry no longer has must not keep the vectors of its previous version.
        await deleteVectors(
          trx,
          deps.embedder.id,
          stored.map((c) => c.entry.identifier),
        );
        for (const field of ENTRY_VECTOR_FIELDS)
          await storeVectors(
            trx,
            deps.embedder.id,
            field,
            vectors[field].filter((v) => written.has(v.identifier)),
          );
        // Tools that changed: every model's vectors of the old ones go (a model switch fills its own again).
        await deleteToolVectors(
          trx,
          retooled.map((r) => r.entry.identifier).filter((id) => written.has(id)),
        );
        await storeToolVectors(
          trx,
          deps.embedder.id,
          toolVectors.filter((v) => written.has(v.identifier)),
        );
      });
      if (options.inTransaction) await options.inTransaction(trx);
    }),
  );
  // 'commit' keeps what the transaction spent outside 'entries' and 'vectors': the caller's part and the commit.
  timings.commit = (timings.commit ?? 0) - (timings.entries ?? 0) - (timings.vectors ?? 0);
  // After the commit: a crash before it leaves tags without vectors, which the next start fills (context.ts).
  await timed(timings, 'tagVectors', () =>
    fillTagVectors(
      deps.db,
      deps.embedder,
      changed.flatMap((c) => c.entry.tags ?? []),
    ),
  );
  if (changed.length + reattributed.length > 0) await timed(timings, 'vacuum', () => vacuumSearchStatistics(deps.db));
  if (options.stageTimings)
    for (const stage of WRITE_STAGES) options.stageTimings[stage] = (options.stageTimings[stage] ?? 0) + (timings[stage] ?? 0);
  return { added, updated: changed.length - added, unchanged, refused };
}

async function selectChanged(db: Kysely<Database>, model: string, prepared: PreparedEntry[]) {
  const stored = await storedHashes(
    db,
    prepared.map((p) => p.entry.identifier),
  );
  let added = 0;
  let unchanged = 0;
  const changed: PreparedEntry[] = [];
  const reattributed: PreparedEntry[] = [];
  // Written with other tools than those stored, or new, or back from a tombstone (a model switch meanwhile filled
  // live entries only): their tool vectors are embedded again.
  const retooled: PreparedEntry[] = [];
  for (const item of prepared) {
    const before = stored.get(item.entry.identifier);
    if (item.keepStoredTools) item.tools = before?.tools ?? [];
    const fresh = !before || before.deleted;
    if (fresh ? item.tools.length > 0 || (before?.tools.length ?? 0) > 0 : !sameTools(before.tools, item.tools)) retooled.push(item);
    if (!before) {
      added++;
      changed.push(item);
    } else if (before.hash !== item.hash || before.deleted) {
      changed.push(item);
    } else {
      unchanged++;
      // Same content now served by another crawl source or catalog URL, or a mirrored copy now an own
      // entry, or the same entry whose card now lists other tools: record them, keep the vectors.
      if (
        (item.sourceId !== undefined && (before.sourceId !== (item.sourceId ?? null) || before.origin !== item.origin)) ||
        before.mirrorPeer !== (item.mirrorPeer ?? null) ||
        !sameTools(before.tools, item.tools)
      )
        reattributed.push(item);
    }
  }
  // Written with the same tools but none of the model's vectors of them (the start's fill had not reached them, or
  // passed them by while another write held them: tool-vectors.ts): embedded now, other models' left alone.
  const retooledSet = new Set(retooled);
  const kept = [...changed, ...reattributed].filter((item) => item.tools.length > 0 && !retooledSet.has(item));
  const embedded = await withToolVectors(
    db,
    model,
    kept.map((item) => item.entry.identifier),
  );
  const untooled = kept.filter((item) => !embedded.has(item.entry.identifier));
  return { changed, reattributed, retooled, untooled, added, unchanged };
}

export async function embedEntries(
  embedder: Embedder,
  items: PreparedEntry[],
  onProgress?: (done: number, total: number) => void,
): Promise<Record<string, Array<{ identifier: string; vector: number[] }>>> {
  const out: Record<string, Array<{ identifier: string; vector: number[] }>> = {};
  for (const field of ENTRY_VECTOR_FIELDS) out[field] = [];
  // ~12 ms per text with the bundled model: 32 texts keep the event loop blocked well under half a second.
  const step = 32;
  for (let i = 0; i < items.length; i += step) {
    const chunk = items.slice(i, i + step);
    for (const field of ENTRY_VECTOR_FIELDS) {
      // A field the entry does not have gets no vector (an empty text embeds to noise that matches anything).
      const withText = chunk
        .map((item) => ({ item, text: entryEmbeddingTexts(item.entry, item.gloss)[field] }))
        .filter((x) => x.text.trim() !== '');
      if (withText.length === 0) continue;
      const vectors = await embedder.embed(withText.map((x) => x.text));
      withText.forEach((x, j) => out[field].push({ identifier: x.item.entry.identifier, vector: vectors[j] }));
    }
    onProgress?.(Math.min(i + step, items.length), items.length);
    // Embedding is CPU work on the main thread: let queued requests (health checks, searches) run between batches.
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return out;
}

function identifierOf(entry: unknown): string | null {
  if (entry && typeof entry === 'object' && typeof (entry as { identifier?: unknown }).identifier === 'string') {
    return (entry as { identifier: string }).identifier;
  }
  return null;
}
