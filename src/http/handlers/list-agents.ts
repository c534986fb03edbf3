// GET /agents (ARD §7.4, Appendix A)
import { InvalidArgumentError } from '../../errors';
import { listAgents as list } from '../../listing/list-agents';
import { cacheableResponse } from '../caching';
import type { Handler } from '../handler';
import { singleQueryParameter as single } from '../query-parameters';

export const listAgents: Handler = async (ctx, request) => {
  const result = await list(
    { db: ctx.readDb, pageTokens: ctx.pageTokens },
    {
      filter: single(request, 'filter'),
      orderBy: single(request, 'orderBy'),
      pageSize: integer(single(request, 'pageSize')),
      pageToken: single(request, 'pageToken'),
    },
  );
  return cacheableResponse(request, result);
};

function integer(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\s*-?\d+\s*$/.test(value)) throw new InvalidArgumentError(`query parameter 'pageSize' must be an integer; got '${value}'`);
  return Number(value);
}
