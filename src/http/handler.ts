// A handler reads the validated request, makes one domain call and maps the result.
import type { AppContext } from '../context';

export interface HandlerRequest {
  body: unknown;
  query: Record<string, string | string[] | undefined>;
  params: Record<string, string>;
  headers: Record<string, string | string[] | undefined>;
  requestId: string;
  /** When the request arrived (performance.now()): budgets that cover the whole request start here. */
  receivedAt: number;
}

export interface HandlerResponse {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export type Handler = (ctx: AppContext, request: HandlerRequest) => Promise<HandlerResponse>;
