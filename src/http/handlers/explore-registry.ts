// POST /explore (ARD §7.3)
import type { FacetRequest } from '../../search/explore-service';
import { resolveFilterKeys } from '../../search/query-context';
import type { QueryFilter } from '../../search/query-filter';
import type { Handler } from '../handler';

interface ExploreRequestBody {
  query?: { text?: string; filter?: QueryFilter; '@context'?: unknown };
  resultType: { facets: FacetRequest[] };
}

export const exploreRegistry: Handler = async (ctx, request) => {
  const body = request.body as ExploreRequestBody;
  const result = await ctx.search.explore({
    text: body.query?.text,
    filter: resolveFilterKeys(body.query?.filter, body.query?.['@context']),
    facets: body.resultType.facets,
  });
  return { status: 200, body: result };
};
