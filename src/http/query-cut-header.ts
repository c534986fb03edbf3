// A query text longer than SEARCHED_QUERY_LENGTH is searched on its first part (src/search/query-text.ts); the
// answer says so beside its body, which the 0.5.0 response schema fixes, as an RFC 8941 dictionary
// (docs/api.md "Registry extensions"): `Registry-Query-Cut: searched=1998, length=18686`.
import { searchedQueryText } from '../search/query-text';

export const QUERY_CUT_HEADER = 'Registry-Query-Cut';

/** The header for `text` when only its first part is searched; none otherwise (and none for a text the search refuses). */
export function queryCutHeaders(text: unknown): Record<string, string> {
  if (typeof text !== 'string') return {};
  try {
    const { text: searched, cutFrom } = searchedQueryText(text);
    return cutFrom === undefined ? {} : { [QUERY_CUT_HEADER]: `searched=${searched.length}, length=${cutFrom}` };
  } catch {
    return {};
  }
}
