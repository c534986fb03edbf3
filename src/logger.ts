import pino from 'pino';
import type { LogLevel } from './config';

export type Logger = pino.Logger;

/**
 * JSON logs on stdout by default; `stderr` where stdout is a protocol channel (`ard-registry mcp`, where
 * stdout carries MCP's JSON-RPC and one stray line breaks the client).
 */
export function createLogger(level: LogLevel, bindings: Record<string, unknown> = {}, destination: 'stdout' | 'stderr' = 'stdout'): Logger {
  const options = { level, base: { service: 'ard-registry', ...bindings } };
  return destination === 'stderr' ? pino(options, pino.destination(2)) : pino(options);
}
