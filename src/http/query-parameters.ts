// Query parameters: each given at most once.
import { InvalidArgumentError } from '../errors';
import type { HandlerRequest } from './handler';

/** The parameter's one value, or undefined when absent; a parameter given twice is a 400. */
export function singleQueryParameter(request: HandlerRequest, name: string): string | undefined {
  const value = request.query[name];
  if (Array.isArray(value)) throw new InvalidArgumentError(`query parameter '${name}' is given ${value.length} times; give it once`);
  return value === undefined ? undefined : String(value);
}
