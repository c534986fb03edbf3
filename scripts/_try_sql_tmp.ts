import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler } from 'kysely';
import type { Database } from '../src/db/schema';
import { parseListFilter } from '../src/listing/list-filter';
import { compileListFilter } from '../src/listing/list-filter-sql';
const db = new Kysely<Database>({ dialect: { createAdapter: () => new PostgresAdapter(), createDriver: () => new DummyDriver(), createIntrospector: (k) => new PostgresIntrospector(k), createQueryCompiler: () => new PostgresQueryCompiler() } });
for (const f of process.argv.slice(2)) { const q = db.selectFrom('entries').selectAll().where(compileListFilter(parseListFilter(f))).compile(); console.log(f, '\n  ', q.sql, JSON.stringify(q.parameters)); }
