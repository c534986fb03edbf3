// pino logs: JSON lines for machines, pino-pretty's one-line-per-event text for a person at a terminal
// (LOG_FORMAT=auto picks by whether stdout is a TTY). Every line logged while a request is being served carries its request id (the
// X-Request-Id the client sees), whichever logger wrote it, because the id travels in an
// AsyncLocalStorage that the HTTP layer opens per request and the logger's mixin reads.
import { AsyncLocalStorage } from 'node:async_hooks';
import pino from 'pino';
import pretty from 'pino-pretty';
import type { LogFormat, LogLevel } from './config';

export type Logger = pino.Logger;

export interface RequestScope {
  requestId: string;
}

export const requestScope = new AsyncLocalStorage<RequestScope>();

/**
 * Logs on stdout by default, pretty or JSON per `format` ('auto': pretty when the destination is a terminal); `stderr` where stdout is a protocol channel (`ard-registry mcp`, where
 * stdout carries MCP's JSON-RPC and one stray line breaks the client); a stream in tests that capture lines.
 * Every line written while serving a request carries its requestId, whichever logger wrote it.
 */
export function createLogger(
  level: LogLevel,
  bindings: Record<string, unknown> = {},
  destination: 'stdout' | 'stderr' | pino.DestinationStream = 'stdout',
  format: LogFormat = 'auto',
): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service: 'ard-registry', ...bindings },
    mixin: () => {
      const scope = requestScope.getStore();
      return scope ? { requestId: scope.requestId } : {};
    },
  };
  if (typeof destination === 'object') return pino(options, destination);
  const fd = destination === 'stdout' ? 1 : 2;
  const isTerminal = (fd === 1 ? process.stdout : process.stderr).isTTY === true;
  if (format === 'pretty' || (format === 'auto' && isTerminal)) {
    // Synchronous: a line is on the terminal before the process can exit (a failed start says why).
    return pino(
      options,
      pretty({
        destination: fd,
        sync: true,
        colorize: isTerminal,
        singleLine: true,
        ignore: 'pid,hostname,service',
        translateTime: 'SYS:HH:MM:ss',
      }),
    );
  }
  return destination === 'stdout' ? pino(options) : pino(options, pino.destination(2));
}
