// /admin: register sources, list them with their last crawl report, start a crawl, delete one; load a
// manifest (what `ard-registry ingest <file>` sends to the server that owns the embedded folder).
// Plain express (not in the ARD contract); JSON bodies; errors leave in the ARD shape via app.ts.
// Paths are matched exactly (case-sensitive); failed authentication is rate-limited per client.
import express, { type Request, type RequestHandler, type Response } from 'express';
import type { AppContext } from '../context';
import { deleteSource, getSource, listSources, parseSourceLocation, toSourceView, upsertSource } from '../crawl';
import { InvalidArgumentError, NotFoundError } from '../errors';
import { ingestManifest, ManifestInvalidError } from '../ingest/ingest-manifest';
import { MAX_MANIFEST_BYTES } from '../ingest/manifest-source';
import { requireAdminToken } from './admin-auth';
import { createAdminAuthLimiter } from './rate-limit';

const SOURCE_FIELDS = new Set(['location', 'intervalSeconds', 'trusted']);
const SOURCE_BODY = 'body must be {location: string, intervalSeconds?: integer, trusted?: boolean}';

/** A late answer (the request deadline answered first) is dropped, never written to a finished response. */
function reply(res: Response, status: number, body?: unknown): void {
  if (res.headersSent) return;
  if (body === undefined) res.status(status).end();
  else res.status(status).json(body);
}

export const ADMIN_MANIFESTS_PATH = '/admin/manifests';

/**
 * The failed-authentication limit of every admin route: one limiter, so POST /admin/manifests (mounted apart,
 * below) and the other admin routes count a client's failures together.
 */
export function createAdminAuthLimit(ctx: AppContext): RequestHandler {
  return createAdminAuthLimiter({ perMinute: ctx.config.adminAuthFailuresPerMinute, redis: ctx.redis?.client ?? null, logger: ctx.logger });
}

function adminGuard(ctx: AppContext): RequestHandler {
  return requireAdminToken(ctx.config, ctx.database.lock?.owner.adminToken);
}

/**
 * POST /admin/manifests carries a whole manifest (up to MAX_MANIFEST_BYTES, like `ingest <file>`), more than
 * the API's body limit: app.ts mounts this before its JSON parser. The token is checked before the body is read.
 */
export function adminManifestBodyParser(ctx: AppContext, authLimit: RequestHandler): RequestHandler[] {
  return [authLimit, adminGuard(ctx), express.json({ limit: MAX_MANIFEST_BYTES, strict: true })];
}

export function createAdminRouter(ctx: AppContext, authLimit: RequestHandler): express.Router {
  const router = express.Router({ caseSensitive: true });
  router.use(authLimit);
  router.use(adminGuard(ctx));

  router.post('/manifests', async (req: Request, res: Response) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    if (
      typeof body.origin !== 'string' ||
      body.origin.length === 0 ||
      body.origin.length > 2048 ||
      typeof body.manifest !== 'object' ||
      body.manifest === null
    ) {
      throw new InvalidArgumentError('body must be {origin: string (e.g. "file:catalog.json"), manifest: an ai-catalog manifest object}');
    }
    try {
      const { accepted: _accepted, ...report } = await ingestManifest(
        { db: ctx.db, embedder: ctx.embedder, glossary: ctx.glossary, binding: ctx.config.trustBinding },
        body.manifest,
        { origin: body.origin },
      );
      res.json(report);
    } catch (error) {
      if (error instanceof ManifestInvalidError) throw new InvalidArgumentError(error.message, { cause: error });
      throw error;
    }
  });

  router.post('/sources', async (req: Request, res: Response) => {
    const body = req.body as unknown;
    if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new InvalidArgumentError(SOURCE_BODY);
    const unknown = Object.keys(body).find((key) => !SOURCE_FIELDS.has(key));
    if (unknown !== undefined)
      throw new InvalidArgumentError(`the request body has an unknown field '${unknown.slice(0, 64)}'; ${SOURCE_BODY}`);
    const fields = body as Record<string, unknown>;
    if (typeof fields.location !== 'string') throw new InvalidArgumentError(SOURCE_BODY);
    const interval = fields.intervalSeconds ?? ctx.config.crawl.intervalSeconds;
    if (typeof interval !== 'number' || !Number.isInteger(interval) || interval < 1 || interval > 30 * 86400) {
      throw new InvalidArgumentError('intervalSeconds must be an integer between 1 and 2592000');
    }
    if (fields.trusted !== undefined && typeof fields.trusted !== 'boolean') throw new InvalidArgumentError('trusted must be a boolean');
    const { location } = parseSourceLocation(fields.location);
    const { row, created } = await upsertSource(ctx.db, {
      location,
      intervalSeconds: interval,
      trusted: fields.trusted as boolean | undefined,
    });
    reply(res, created ? 201 : 200, toSourceView(row));
  });

  router.get('/sources', async (_req: Request, res: Response) => {
    reply(res, 200, { sources: (await listSources(ctx.db)).map((row) => toSourceView(row)) });
  });

  router.get('/sources/:id', async (req: Request, res: Response) => {
    const row = await getSource(ctx.db, String(req.params.id));
    if (!row) throw new NotFoundError(`no source with id '${String(req.params.id).slice(0, 40)}'`);
    reply(res, 200, toSourceView(row));
  });

  // 202 at once: the crawl runs in the background (a crawl can outlast any request deadline); follow it
  // at Location, where `crawling` says it runs and `lastCrawl` holds its report once it ends.
  router.post('/sources/:id/crawl', async (req: Request, res: Response) => {
    const { source, started } = await ctx.crawler.startCrawl(String(req.params.id));
    if (!res.headersSent) res.setHeader('Location', `${req.baseUrl}/sources/${source.id}`);
    reply(res, 202, { ...toSourceView(source), crawling: true, crawlStarted: started });
  });

  router.delete('/sources/:id', async (req: Request, res: Response) => {
    if (!(await deleteSource(ctx.db, String(req.params.id))))
      throw new NotFoundError(`no source with id '${String(req.params.id).slice(0, 40)}'`);
    reply(res, 204);
  });

  router.use((req: Request) => {
    throw new NotFoundError(`no route ${req.method} ${req.baseUrl}${req.path.slice(0, 200)}`);
  });
  return router;
}
