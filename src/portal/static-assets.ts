// The portal's files (its stylesheet and script, the API reference renderer, the OpenAPI documents),
// read once into memory and served with a strong ETag, gzip when the client takes it, and a year of
// caching for the ones whose URL carries their content hash.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import type { Request, Response } from 'express';
import { ifNoneMatchHits } from '../http/caching';

export interface StaticAsset {
  /** The URL path it is served at, with `?v=<hash>` when versioned. */
  url: string;
  contentType: string;
  body: Buffer;
  etag: string;
  /** Computed on the first request that accepts gzip. */
  gzipped?: Buffer;
  versioned: boolean;
}

/** Hashed URLs never change content; unversioned ones (the OpenAPI documents) are revalidated. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
const REVALIDATE = 'public, max-age=300';

export function loadAsset(route: string, file: string, contentType: string, options: { versioned: boolean }): StaticAsset {
  const body = readFileSync(file);
  const hash = createHash('sha256').update(body).digest('base64url').slice(0, 16);
  return { url: options.versioned ? `${route}?v=${hash}` : route, contentType, body, etag: `"${hash}"`, versioned: options.versioned };
}

export function sendAsset(req: Request, res: Response, asset: StaticAsset): void {
  res.set({
    'Content-Type': asset.contentType,
    'Cache-Control': asset.versioned && req.query.v !== undefined ? IMMUTABLE : REVALIDATE,
    ETag: asset.etag,
    Vary: 'Accept-Encoding',
  });
  if (ifNoneMatchHits(req.headers['if-none-match'], asset.etag)) {
    res.status(304).end();
    return;
  }
  sendMaybeCompressed(req, res, asset.body, () => (asset.gzipped ??= gzipSync(asset.body)));
}

/** Bodies under this size are sent as they are: gzip would save less than its own framing costs. */
const MIN_GZIP_BYTES = 1024;

/** Sends `body` gzipped when the client accepts gzip and the body is worth it. */
export function sendMaybeCompressed(req: Request, res: Response, body: Buffer, gzipped: () => Buffer = () => gzipSync(body)): void {
  res.vary('Accept-Encoding');
  if (body.length >= MIN_GZIP_BYTES && req.acceptsEncodings('gzip', 'identity') === 'gzip') {
    res.set('Content-Encoding', 'gzip');
    res.end(req.method === 'HEAD' ? undefined : gzipped());
    return;
  }
  res.end(req.method === 'HEAD' ? undefined : body);
}
