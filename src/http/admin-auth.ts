// Admin routes need `Authorization: Bearer <ADMIN_TOKEN>`. Tokens are compared as SHA-256 digests
// with timingSafeEqual: equal lengths always, so neither the length nor a prefix of the token leaks
// through response times. No ADMIN_TOKEN configured = admin routes are off: every call is 401.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { RegistryConfig } from '../config';
import { UnauthenticatedError } from '../errors';

export function requireAdminToken(config: Pick<RegistryConfig, 'adminToken'>): RequestHandler {
  const expected = config.adminToken ? digest(config.adminToken) : null;
  return (req, _res, next) => {
    if (!expected) {
      next(new UnauthenticatedError('admin routes are disabled: the registry has no ADMIN_TOKEN configured'));
      return;
    }
    const match = /^Bearer\s+(\S+)\s*$/i.exec(req.header('authorization') ?? '');
    if (!match) {
      next(new UnauthenticatedError('admin routes need an Authorization: Bearer <token> header'));
      return;
    }
    if (!timingSafeEqual(digest(match[1]), expected)) {
      next(new UnauthenticatedError('the admin token is not valid'));
      return;
    }
    next();
  };
}

function digest(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}
