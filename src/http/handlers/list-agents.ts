// GET /agents (ARD §7.4, Appendix A)
import { InvalidArgumentError } from '../../errors';
import { listAgents as list } from '../../listing/list-agents';
import { cacheableResponse } from '../caching';
import type { Handler, HandlerRequest } from '../handler';

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

function single(request: HandlerRequest, name: string): string | undefined {
  const value = request.query[name];
  if (Array.isArray(value)) throw new InvalidArgumentError(`query parameter '${name}' is given ${value.length} times; give it once`);
  return value === undefined ? undefined : String(value);
}

function integer(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\s*-?\d+\s*$/.test(value)) throw new InvalidArgumentError(`query parameter 'pageSize' must be an integer; got '${value}'`);
  return Number(value);
}
