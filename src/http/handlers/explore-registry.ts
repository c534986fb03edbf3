// POST /explore (ARD §7.3)
import type { FacetRequest } from '../../search/explore-service';
import { resolveFacetFields, resolveFilterKeys } from '../../search/query-context';
import type { QueryFilter } from '../../search/query-filter';
import type { Handler } from '../handler';
import { queryCutHeaders } from '../query-cut-header';

interface ExploreRequestBody {
  query?: { text?: string; filter?: QueryFilter; '@context'?: unknown };
  resultType: { facets: FacetRequest[] };
}

export const exploreRegistry: Handler = async (ctx, request) => {
  const body = request.body as ExploreRequestBody;
  const context = body.query?.['@context'];
  const result = await ctx.search.explore({
    text: body.query?.text,
    filter: resolveFilterKeys(body.query?.filter, context),
    facets: resolveFacetFields(body.resultType.facets, context),
  });
  return { status: 200, body: result, headers: queryCutHeaders(body.query?.text) };
};
