// App-level guards every route gets: a deadline per request and limits on the shape of JSON
// bodies and query strings, checked before any handler sees them.
import type { RequestHandler } from 'express';
import { InvalidArgumentError, ServiceUnavailableError, UnsupportedMediaTypeError } from '../errors';
import { findJsonProblem } from '../storable-text';

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
 * Rejects JSON nested deeper than MAX_JSON_DEPTH, and strings or keys holding text PostgreSQL
 * cannot store as sent (NUL, an unpaired surrogate: storable-text.ts), naming the field. Runs after
 * express.json; the walk stops at the first violation, so a hostile 60-kB `[[[[...` costs one pass.
 */
export function jsonShapeGuard(): RequestHandler {
  return (req, _res, next) => {
    const problem = describeShapeProblem(req.body, 'the request body') ?? describeShapeProblem(req.query, 'the query string');
    next(problem ? new InvalidArgumentError(problem) : undefined);
  };
}

function describeShapeProblem(value: unknown, where: string): string | null {
  const found = findJsonProblem(value, '', MAX_JSON_DEPTH);
  if (!found) return null;
  if (found.kind === 'depth') return `${where} ${found.problem}`;
  return `${where}${found.at ? ` (${found.at})` : ''} ${found.problem}, which is not accepted`;
}

/**
 * A request that carries a body must say it is JSON: `curl -d` sends application/x-www-form-urlencoded,
 * which express.json() leaves unparsed and validation would then report as a missing body. Runs after it.
 */
export function jsonContentTypeGuard(): RequestHandler {
  return (req, _res, next) => {
    const hasBody = (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0') || req.headers['transfer-encoding'] !== undefined;
    if (!hasBody || req.is(['application/json', 'application/*+json'])) return next();
    const given = req.headers['content-type'];
    next(
      new UnsupportedMediaTypeError(
        `the request body must be JSON sent with Content-Type: application/json; got ${given ? `'${given}'` : 'no Content-Type'}`,
      ),
    );
  };
}
