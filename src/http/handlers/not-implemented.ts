// ARD §7.3: a registry that does not implement an optional operation answers 501.
import { NotImplementedError } from '../../errors';
import type { Handler } from '../handler';

export function notImplemented(operation: string): Handler {
  return async () => {
    throw new NotImplementedError(`${operation} is not implemented by this registry`);
  };
}
