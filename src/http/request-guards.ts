// App-level guards every route gets: a deadline per request and limits on the shape of JSON
// bodies and query strings, checked before any handler sees them.
import type { RequestHandler } from 'express';
import { InvalidArgumentError, ServiceUnavailableError } from '../errors';

/** Deeper than any ARD request (a filter is 3 levels); parsers and validators recurse per level. */
export const MAX_JSON_DEPTH = 32;

/**
 * A request still unanswered after `timeoutMs` gets 503 UNAVAILABLE instead of hanging; whatever
 * was still running for it finishes in the background and its late answer is dropped.
 */
export function requestDeadline(timeoutMs: number): RequestHandler {
  return (_req, res, next) => {
    const timer = setTimeout(() => {
      if (res.headersSent) return;
      next(new ServiceUnavailableError(`the request did not complete within ${timeoutMs} ms; retry later`));
    }, timeoutMs);
    timer.unref();
    const clear = () => clearTimeout(timer);
    res.once('finish', clear);
    res.once('close', clear);
    next();
  };
}

/**
 * Rejects JSON nested deeper than MAX_JSON_DEPTH and strings holding NUL (U+0000), which
 * PostgreSQL text cannot store and which no catalog field needs. Runs after express.json; the walk
 * stops at the first violation, so a hostile 60-kB `[[[[...` costs one pass.
 */
export function jsonShapeGuard(): RequestHandler {
  return (req, _res, next) => {
    const problem = describeShapeProblem(req.body, 'the request body') ?? describeShapeProblem(req.query, 'the query string');
    next(problem ? new InvalidArgumentError(problem) : undefined);
  };
}

export function describeShapeProblem(value: unknown, where: string): string | null {
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const { value: current, depth } = stack.pop()!;
    if (typeof current === 'string') {
      if (current.includes('\u0000')) return `${where} contains a NUL character (U+0000), which is not accepted`;
      continue;
    }
    if (current === null || typeof current !== 'object') continue;
    if (depth >= MAX_JSON_DEPTH) return `${where} is nested deeper than ${MAX_JSON_DEPTH} levels`;
    for (const [key, child] of Object.entries(current)) {
      if (key.includes('\u0000')) return `${where} contains a NUL character (U+0000), which is not accepted`;
      stack.push({ value: child, depth: depth + 1 });
    }
  }
  return null;
}
