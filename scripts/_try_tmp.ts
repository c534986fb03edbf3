import { parseListFilter, formatListFilter, ListFilterError } from '../src/listing/list-filter';
for (const f of process.argv.slice(2)) {
  try { const e = parseListFilter(f); console.log(JSON.stringify(f), '=>', JSON.stringify(e), '|', formatListFilter(e)); }
  catch (err) { if (err instanceof ListFilterError) console.log(JSON.stringify(f), 'ERR', err.constructor.name, (err as any).reason, err.position, err.message, err.suggestion); else throw err; }
}
