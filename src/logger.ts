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

/** `destination`: stdout unless given (tests capture lines with a stream). */
export function createLogger(level: LogLevel, bindings: Record<string, unknown> = {}, destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service: 'ard-registry', ...bindings },
    mixin: () => {
      const scope = requestScope.getStore();
      return scope ? { requestId: scope.requestId } : {};
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
