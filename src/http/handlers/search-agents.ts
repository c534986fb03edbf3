// POST /search (ARD §7.2), federated per ARD §8: `federation` picks none, referrals or auto (default). The
// query-string parameter `collapse=false` lists every entry of a product (docs/api.md "One product, one result"):
// the 0.5.0 request body admits no other field, so the option is a declared query parameter of the operation.
import { federatedSearchDeps } from '../../context';
import { federatedSearch, type FederationMode } from '../../federation/federated-search';
import { readFederationHop } from '../../federation/loop-guard';
import { resolveFilterKeys } from '../../search/query-context';
import type { QueryFilter } from '../../search/query-filter';
import type { Handler } from '../handler';
import { queryCutHeaders } from '../query-cut-header';
import { singleQueryParameter } from '../query-parameters';

interface SearchRequestBody {
  query: { text: string; filter?: QueryFilter; '@context'?: unknown };
  federation?: FederationMode;
  pageSize?: number;
  pageToken?: string;
}

export const searchAgents: Handler = async (ctx, request) => {
  const body = request.body as SearchRequestBody;
  const { config } = ctx;
  const hop = readFederationHop(request.headers, { maxHops: config.federationMaxHops, budgetMs: config.federationBudgetMs });
  const result = await federatedSearch(federatedSearchDeps(ctx), {
    mode: body.federation ?? 'auto',
    text: body.query.text,
    filter: resolveFilterKeys(body.query.filter, body.query['@context']),
    pageSize: body.pageSize,
    pageToken: body.pageToken,
    // `true` or `false`, checked against the OpenAPI document.
    collapse: singleQueryParameter(request, 'collapse') !== 'false',
    hop,
    receivedAt: request.receivedAt,
  });
  return { status: 200, body: result, headers: queryCutHeaders(body.query.text) };
};
