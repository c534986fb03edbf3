// The orderBy of GET /agents (ARD §7.4): "field [ASC|DESC], ...". Sorting is on a whitelist of
// fields, each a fixed, non-null SQL expression; identifier always ends the list so the order is
// total (and keyset pages are exact).
import { InvalidArgumentError } from '../errors';
import { editDistance } from '../edit-distance';

export type SortField = 'displayName' | 'identifier' | 'type' | 'publisher' | 'version' | 'createdAt' | 'updatedAt';
export type SortDirection = 'ASC' | 'DESC';

export interface OrderTerm {
  field: SortField;
  direction: SortDirection;
}

export const SORTABLE_FIELDS: readonly SortField[] = [
  'displayName',
  'identifier',
  'type',
  'publisher',
  'version',
  'createdAt',
  'updatedAt',
];

/** Other spellings people write (the spec's own example says "name, created_at DESC"). */
const ALIASES: Readonly<Record<string, SortField>> = {
  name: 'displayName',
  display_name: 'displayName',
  publisherId: 'publisher',
  created_at: 'createdAt',
  updated_at: 'updatedAt',
};

export const DEFAULT_ORDER: readonly OrderTerm[] = [{ field: 'displayName', direction: 'ASC' }];
const MAX_TERMS = SORTABLE_FIELDS.length;

/** Parses and validates; the result always ends with identifier. Throws INVALID_ARGUMENT naming the bad part. */
export function parseOrderBy(text: string | undefined): OrderTerm[] {
  const terms: OrderTerm[] = [];
  if (text !== undefined && text.trim() !== '') {
    const parts = text.split(',');
    if (parts.length > MAX_TERMS) throw new InvalidArgumentError(`orderBy has ${parts.length} terms; at most ${MAX_TERMS} are allowed`);
    for (const part of parts) {
      const words = part.trim().split(/\s+/).filter(Boolean);
      if (words.length === 0)
        throw new InvalidArgumentError(
          `orderBy '${text}' has an empty term; write fields separated by commas, e.g. 'displayName, updatedAt DESC'`,
        );
      if (words.length > 2) throw new InvalidArgumentError(`orderBy term '${part.trim()}' is not 'field' or 'field ASC|DESC'`);
      const field = sortField(words[0]);
      const direction = words[1]?.toUpperCase() ?? 'ASC';
      if (direction !== 'ASC' && direction !== 'DESC') {
        throw new InvalidArgumentError(`orderBy term '${part.trim()}': the direction must be ASC or DESC, not '${words[1]}'`);
      }
      if (terms.some((t) => t.field === field)) throw new InvalidArgumentError(`orderBy names '${field}' twice`);
      terms.push({ field, direction });
    }
  } else {
    terms.push(...DEFAULT_ORDER);
  }
  const last = terms.findIndex((t) => t.field === 'identifier');
  // Terms after identifier can never apply: identifier is unique.
  if (last >= 0) return terms.slice(0, last + 1);
  return [...terms, { field: 'identifier', direction: 'ASC' }];
}

/** "displayName ASC, identifier ASC": the canonical text (page tokens are tied to it). */
export function formatOrderBy(terms: readonly OrderTerm[]): string {
  return terms.map((t) => `${t.field} ${t.direction}`).join(', ');
}

function sortField(word: string): SortField {
  if ((SORTABLE_FIELDS as readonly string[]).includes(word)) return word as SortField;
  if (Object.hasOwn(ALIASES, word)) return ALIASES[word];
  const shown = word.length > 100 ? `${word.slice(0, 100)}...` : word;
  const near = SORTABLE_FIELDS.map((f) => ({ f, d: editDistance(word.toLowerCase(), f.toLowerCase()) })).sort((a, b) => a.d - b.d)[0];
  const hint = near.d <= 3 ? ` Did you mean '${near.f}'?` : '';
  throw new InvalidArgumentError(`orderBy field '${shown}' is not sortable; sortable fields: ${SORTABLE_FIELDS.join(', ')}.${hint}`);
}
