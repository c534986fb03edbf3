// Retrieve (ARD v0.91 §5.3.4, ADR-0010): one entry by its exact, case-sensitive identifier from the
// local index. No partial matches, no case folding, never federated.
import type { Kysely } from 'kysely';
import type { CatalogEntry } from '../catalog/catalog-entry';
import { isValidIdentifier } from '../catalog/catalog-entry';
import { getLiveEntry } from '../catalog/entry-repository';
import type { Database } from '../db/schema';
import { InvalidArgumentError, NotFoundError } from '../errors';

export interface RetrievedEntry {
  entry: CatalogEntry;
  /** sha256 of the stored entry and its host: changes whenever the entry does. */
  contentHash: string;
}

/** `identifier` is already percent-decoded (once). 400 when it is not an ARD URN, 404 when unknown. */
export async function retrieveEntry(db: Kysely<Database>, identifier: string): Promise<RetrievedEntry> {
  if (!isValidIdentifier(identifier)) {
    throw new InvalidArgumentError(
      `identifier '${identifier.slice(0, 300)}' is not an ARD identifier (urn:air:<publisher>:<name>[:...]); percent-encode it once as one path segment`,
    );
  }
  const found = await getLiveEntry(db, identifier);
  if (!found) throw new NotFoundError(`no entry with identifier '${identifier}' in this registry`);
  return { entry: found.entry, contentHash: found.contentHash };
}
