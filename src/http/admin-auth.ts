// Bearer-token guard for every /admin route. No ADMIN_TOKEN configured = admin is off (401 too), except for
// the local token a server on the embedded database writes into its folder's lock file (mode 0600) for the
// commands run beside it (src/db/data-dir-lock.ts). Tokens are compared as SHA-256 digests with
// timingSafeEqual: equal length, constant time.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { RegistryConfig } from '../config';
import { UnauthenticatedError } from '../errors';

export function requireAdminToken(config: Pick<RegistryConfig, 'adminToken'>, localToken?: string | null) {
  const accepted = [config.adminToken, localToken].filter((t): t is string => !!t).map(digest);
  const expected = accepted.length > 0 ? accepted : null;
  return (req: Request, res: Response, next: NextFunction): void => {
    res.setHeader('WWW-Authenticate', 'Bearer realm="ard-registry admin"');
    if (!expected) {
      next(new UnauthenticatedError('admin endpoints are disabled: the registry has no ADMIN_TOKEN configured'));
      return;
    }
    const match = /^Bearer[ ]+(\S+)\s*$/i.exec(req.header('authorization') ?? '');
    if (!match) {
      next(new UnauthenticatedError('admin endpoints need an Authorization: Bearer <ADMIN_TOKEN> header'));
      return;
    }
    const given = digest(match[1]);
    if (!expected.some((token) => timingSafeEqual(given, token))) {
      next(new UnauthenticatedError('the bearer token is not valid for admin endpoints'));
      return;
    }
    res.removeHeader('WWW-Authenticate');
    next();
  };
}

function digest(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}
