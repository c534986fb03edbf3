// Named (server-side prepared) statements for the search path's hot SQL. A statement whose text begins with
// PREPARED_STATEMENT is sent with a name derived from its text: PostgreSQL parses it once per connection
// (node-postgres remembers which names a connection has parsed), and a caller that also sets
// plan_cache_mode = force_generic_plan in its transaction plans it once per connection too. Only texts
// from a small fixed set may carry the marker (the search statements without a filter, the entry states, product
// keys and matched tools of a ranked list, the index generation: their text depends on the model and the ranking
// options alone), since every distinct text stays prepared on every connection of the pool for the connection's life.
// docs/performance.md measures what it saves.
import { createHash } from 'node:crypto';
import pg from 'pg';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from './schema';

const MARKER = '/* ard:prepared */';

/** Begin a statement with this (first thing in its text) to have it prepared; see the module comment for which statements may. */
export const PREPARED_STATEMENT: RawBuilder<unknown> = sql.raw(MARKER);

/** The statement name for a marked text: stable, and distinct for distinct texts. */
export function preparedStatementName(text: string): string {
  return `ard_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`;
}

/** A pg.Client that sends marked statements as named ones; everything else passes through unchanged. */
export class PreparingClient extends pg.Client {
  // pg's overloads are not expressible on an override; the arguments are forwarded as they came.
  override query(...args: unknown[]): never {
    const [text, values] = args;
    if (typeof text === 'string' && text.startsWith(MARKER) && (values === undefined || Array.isArray(values))) {
      const rest = args.slice(2);
      return (super.query as (...a: unknown[]) => never)({ name: preparedStatementName(text), text, values }, ...rest);
    }
    return (super.query as (...a: unknown[]) => never)(...args);
  }
}

/**
 * Runs `work` in a transaction whose statements run with `settings` (set_config, transaction-local like SET LOCAL,
 * all in one round trip before `work`). Given a transaction, in it: the settings then hold until it ends.
 */
export async function withLocalSettings<T>(
  db: Kysely<Database>,
  settings: Readonly<Record<string, string>>,
  work: (db: Kysely<Database>) => Promise<T>,
): Promise<T> {
  const apply = async (trx: Kysely<Database>) => {
    const calls = Object.entries(settings).map(([name, value]) => sql`set_config(${name}, ${value}, true)`);
    await sql`SELECT ${sql.join(calls)}`.execute(trx);
    return work(trx);
  };
  return db.isTransaction ? apply(db) : db.transaction().execute(apply);
}

/**
 * Prepared statements on their generic plan (plan_cache_mode = force_generic_plan), planned once per connection: for
 * a statement whose custom plans, made anew at every call because its arrays' sizes vary, cost more than they save.
 * Without JIT: a generic plan's estimates (unknown array sizes and limits) can pass jit_above_cost on a large index
 * and compile at every call what runs in milliseconds.
 */
export const GENERIC_PLAN_SETTINGS: Readonly<Record<string, string>> = { plan_cache_mode: 'force_generic_plan', jit: 'off' };

/** Runs `work` with GENERIC_PLAN_SETTINGS (withLocalSettings). Inside a transaction already, `work` runs in it as it is. */
export async function onGenericPlans<T>(db: Kysely<Database>, work: (db: Kysely<Database>) => Promise<T>): Promise<T> {
  if (db.isTransaction) return work(db);
  return withLocalSettings(db, GENERIC_PLAN_SETTINGS, work);
}
