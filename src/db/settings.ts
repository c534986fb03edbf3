// Settings shared by every registry process on one database.
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from './schema';

/** The stored value of `key`, created with `make()` by whichever process asks first. */
export async function getOrCreateSetting(db: Kysely<Database>, key: string, make: () => string): Promise<string> {
  await db.insertInto('registry_settings').values({ key, value: make() }).onConflict((oc) => oc.column('key').doNothing()).execute();
  const row = await db.selectFrom('registry_settings').select('value').where('key', '=', key).executeTakeFirstOrThrow();
  return row.value;
}

export function randomSecret(): string {
  return randomBytes(32).toString('base64url');
}

export async function getSetting(db: Kysely<Database>, key: string): Promise<string | null> {
  const row = await db.selectFrom('registry_settings').select('value').where('key', '=', key).executeTakeFirst();
  return row?.value ?? null;
}

export async function setSetting(db: Kysely<Database>, key: string, value: string): Promise<void> {
  await db
    .insertInto('registry_settings')
    .values({ key, value })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value }))
    .execute();
}
