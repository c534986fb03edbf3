// POST /explore (ARD §7.3)
import type { FacetRequest } from '../../search/explore-service';
import type { QueryFilter } from '../../search/query-filter';
import type { Handler } from '../handler';

interface ExploreRequestBody {
  query?: { text?: string; filter?: QueryFilter };
  resultType: { facets: FacetRequest[] };
}

export const exploreRegistry: Handler = async (ctx, request) => {
  const body = request.body as ExploreRequestBody;
  const result = await ctx.search.explore({ text: body.query?.text, filter: body.query?.filter, facets: body.resultType.facets });
  return { status: 200, body: result };
};
