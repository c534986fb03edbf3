// POST /search (ARD §7.2)
import { searchIndex } from '../../search/search-service';
import type { QueryFilter } from '../../search/query-filter';
import type { Handler } from '../handler';

interface SearchRequestBody {
  query: { text: string; filter?: QueryFilter };
  federation?: 'auto' | 'referrals' | 'none';
  pageSize?: number;
  pageToken?: string;
}

export const searchAgents: Handler = async (ctx, request) => {
  const body = request.body as SearchRequestBody;
  const result = await searchIndex(
    { db: ctx.readDb, embedder: ctx.embedder, pageTokens: ctx.pageTokens, publicUrl: ctx.config.publicUrl, timings: ctx.metrics.searchTimings },
    { text: body.query.text, filter: body.query.filter, pageSize: body.pageSize, pageToken: body.pageToken },
  );
  return { status: 200, body: result };
};
