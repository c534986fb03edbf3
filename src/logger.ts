// pino JSON logs. Every line logged while a request is being served carries its request id (the
// X-Request-Id the client sees), whichever logger wrote it, because the id travels in an
// AsyncLocalStorage that the HTTP layer opens per request and the logger's mixin reads.
import { AsyncLocalStorage } from 'node:async_hooks';
import pino from 'pino';
import type { LogLevel } from './config';

export type Logger = pino.Logger;

export interface RequestScope {
  requestId: string;
}

export const requestScope = new AsyncLocalStorage<RequestScope>();

/**
 * JSON logs on stdout by default; `stderr` where stdout is a protocol channel (`ard-registry mcp`, where
 * stdout carries MCP's JSON-RPC and one stray line breaks the client); a stream in tests that capture lines.
 * Every line written while serving a request carries its requestId, whichever logger wrote it.
 */
export function createLogger(
  level: LogLevel,
  bindings: Record<string, unknown> = {},
  destination: 'stdout' | 'stderr' | pino.DestinationStream = 'stdout',
): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service: 'ard-registry', ...bindings },
    mixin: () => {
      const scope = requestScope.getStore();
      return scope ? { requestId: scope.requestId } : {};
    },
  };
  if (destination === 'stdout') return pino(options);
  return pino(options, destination === 'stderr' ? pino.destination(2) : destination);
}
