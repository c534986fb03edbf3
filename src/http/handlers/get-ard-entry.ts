// GET /agents/{identifier} (ARD v0.91 §5.3.4): the path parameter arrives percent-decoded once by
// the router; it is not decoded again.
import { retrieveEntry } from '../../listing/retrieve-entry';
import { cacheableResponse, strongEtag } from '../caching';
import type { Handler } from '../handler';

export const getArdEntry: Handler = async (ctx, request) => {
  const { entry, contentHash } = await retrieveEntry(ctx.readDb, request.params.identifier);
  return cacheableResponse(request, entry, strongEtag(contentHash));
};
