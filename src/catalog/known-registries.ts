// Other registries known to this one: live entries of type application/ai-registry(+json), whether
// crawled from a publisher's catalog or loaded from a file. Federation reads them (with PEERS) for
// referrals and auto mode.
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { MEDIA_TYPES, searchableText, type CatalogEntry } from './catalog-entry';

export const REGISTRY_TYPES: readonly string[] = [MEDIA_TYPES.registry, MEDIA_TYPES.registryLegacy];

export interface KnownRegistry {
  identifier: string;
  displayName: string;
  type: string;
  /** The registry's base URL (entry.url); absent when the entry carries it inline as data. */
  url: string | undefined;
  /** What the entry says of the registry (searchableText): referrals rank known registries by it. */
  text: string;
}

export async function listKnownRegistries(db: Kysely<Database>): Promise<KnownRegistry[]> {
  const rows = await db
    .selectFrom('entries')
    .select(['identifier', 'display_name', 'type', 'entry'])
    .where('type', 'in', [...REGISTRY_TYPES])
    .where('deleted_at', 'is', null)
    .orderBy('identifier')
    .execute();
  return rows.map((r) => ({
    identifier: r.identifier,
    displayName: r.display_name,
    type: r.type,
    url: typeof (r.entry as CatalogEntry).url === 'string' ? (r.entry as CatalogEntry).url : undefined,
    text: searchableText(r.entry as CatalogEntry),
  }));
}
