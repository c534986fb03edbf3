// A query text longer than SEARCHED_QUERY_LENGTH is searched on its first part (src/search/query-text.ts); the
// answer says so beside its body, which the 0.5.0 response schema fixes, as an RFC 8941 dictionary
// (docs/api.md "Registry extensions"): `Registry-Query-Cut: searched=1998, length=18686`.
import { searchedQueryText } from '../search/query-text';

export const QUERY_CUT_HEADER = 'Registry-Query-Cut';

/** The header for a text the search accepted (a request without text has none), when only its first part was searched. */
export function queryCutHeaders(text: string | undefined): Record<string, string> {
  if (text === undefined) return {};
  const { text: searched, cutFrom } = searchedQueryText(text);
  return cutFrom === undefined ? {} : { [QUERY_CUT_HEADER]: `searched=${searched.length}, length=${cutFrom}` };
}
