// GET /agents/{identifier} (ARD v0.91 §5.3.4): the path parameter arrives percent-decoded once by
// the router; it is not decoded again. The trust check travels in the Registry-Verification header, the
// liveness in Registry-Liveness.
import { NotFoundError } from '../../errors';
import { currentLiveness } from '../../liveness';
import { retrieveEntry } from '../../listing/retrieve-entry';
import { currentVerification } from '../../trust';
import { cacheableResponse, NOT_FOUND_CACHE_CONTROL, strongEtag } from '../caching';
import type { Handler } from '../handler';
import { LIVENESS_HEADER, livenessHeaderValue } from '../liveness-header';
import { VERIFICATION_HEADER, verificationHeaderValue } from '../verification-header';

export const getArdEntry: Handler = async (ctx, request) => {
  const identifier = request.params.identifier;
  let found;
  try {
    found = await retrieveEntry(ctx.readDb, identifier);
  } catch (error) {
    // §5.3.4: a 404 SHOULD require revalidation or be fresh only briefly, so a new entry shows soon.
    if (error instanceof NotFoundError)
      throw new NotFoundError(error.message, { cause: error, headers: { 'Cache-Control': NOT_FOUND_CACHE_CONTROL } });
    throw error;
  }
  const [verification, liveness] = await Promise.all([
    currentVerification(ctx.readDb, identifier),
    currentLiveness(ctx.readDb, identifier),
  ]);
  const response = cacheableResponse(request, found.entry, strongEtag(found.contentHash));
  return {
    ...response,
    headers: {
      ...response.headers,
      [VERIFICATION_HEADER]: verificationHeaderValue(verification, found.entry.trustManifest !== undefined),
      [LIVENESS_HEADER]: livenessHeaderValue(liveness),
    },
  };
};
