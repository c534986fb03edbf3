import pino from 'pino';
import type { LogLevel } from './config';

export type Logger = pino.Logger;

export function createLogger(level: LogLevel, bindings: Record<string, unknown> = {}): Logger {
  return pino({ level, base: { service: 'ard-registry', ...bindings } });
}
