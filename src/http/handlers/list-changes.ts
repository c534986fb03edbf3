// GET /changes: this registry's change feed, a registry extension for mirrors (docs/api.md "Change feed").
import { InvalidArgumentError } from '../../errors';
import { readChanges } from '../../listing/change-feed';
import type { Handler } from '../handler';
import { singleQueryParameter as single } from '../query-parameters';

export const listChanges: Handler = async (ctx, request) => {
  const limit = single(request, 'limit');
  if (limit !== undefined && !/^\d{1,6}$/.test(limit))
    throw new InvalidArgumentError(`query parameter 'limit' must be an integer; got '${limit}'`);
  // The primary: a cursor it gave out is never ahead of what a lagging replica holds.
  const page = await readChanges(ctx.db, { since: single(request, 'since'), limit: limit === undefined ? undefined : Number(limit) });
  return { status: 200, body: page, headers: { 'cache-control': 'no-store' } };
};
