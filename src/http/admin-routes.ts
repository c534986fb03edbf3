// /admin: register sources, list them with their last crawl report, trigger a crawl, delete one; load a
// manifest (what `ard-registry ingest <file>` sends to the server that owns the embedded folder).
// Plain express (not in the ARD contract); JSON bodies; errors leave in the ARD shape via app.ts.
import express, { type Request, type RequestHandler, type Response } from 'express';
import type { AppContext } from '../context';
import { deleteSource, getSource, listSources, parseSourceLocation, toSourceView, upsertSource } from '../crawl';
import { InvalidArgumentError, NotFoundError } from '../errors';
import { ingestManifest, ManifestInvalidError } from '../ingest/ingest-manifest';
import { MAX_MANIFEST_BYTES } from '../ingest/manifest-source';
import { requireAdminToken } from './admin-auth';

export const ADMIN_MANIFESTS_PATH = '/admin/manifests';

function adminGuard(ctx: AppContext): RequestHandler {
  return requireAdminToken(ctx.config, ctx.database.lock?.owner.adminToken);
}

/**
 * POST /admin/manifests carries a whole manifest (up to MAX_MANIFEST_BYTES, like `ingest <file>`), more than
 * the API's body limit: app.ts mounts this before its JSON parser. The token is checked before the body is read.
 */
export function adminManifestBodyParser(ctx: AppContext): RequestHandler[] {
  return [adminGuard(ctx), express.json({ limit: MAX_MANIFEST_BYTES, strict: true })];
}

export function createAdminRouter(ctx: AppContext): express.Router {
  const router = express.Router();
  router.use(adminGuard(ctx));

  router.post('/manifests', async (req: Request, res: Response) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    if (typeof body.origin !== 'string' || body.origin.length === 0 || body.origin.length > 2048 || typeof body.manifest !== 'object' || body.manifest === null) {
      throw new InvalidArgumentError('body must be {origin: string (e.g. "file:catalog.json"), manifest: an ai-catalog manifest object}');
    }
    try {
      const { accepted: _accepted, ...report } = await ingestManifest({ db: ctx.db, embedder: ctx.embedder, glossary: ctx.glossary }, body.manifest, { origin: body.origin });
      res.json(report);
    } catch (error) {
      if (error instanceof ManifestInvalidError) throw new InvalidArgumentError(error.message, { cause: error });
      throw error;
    }
  });

  router.post('/sources', async (req: Request, res: Response) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    if (typeof body.location !== 'string') throw new InvalidArgumentError("body must be {location: string, intervalSeconds?: integer, trusted?: boolean}");
    const interval = body.intervalSeconds ?? ctx.config.crawl.intervalSeconds;
    if (typeof interval !== 'number' || !Number.isInteger(interval) || interval < 1 || interval > 30 * 86400) {
      throw new InvalidArgumentError('intervalSeconds must be an integer between 1 and 2592000');
    }
    if (body.trusted !== undefined && typeof body.trusted !== 'boolean') throw new InvalidArgumentError('trusted must be a boolean');
    const { location } = parseSourceLocation(body.location);
    const { row, created } = await upsertSource(ctx.db, { location, intervalSeconds: interval, trusted: body.trusted as boolean | undefined });
    res.status(created ? 201 : 200).json(toSourceView(row));
  });

  router.get('/sources', async (_req: Request, res: Response) => {
    res.json({ sources: (await listSources(ctx.db)).map((row) => toSourceView(row)) });
  });

  router.get('/sources/:id', async (req: Request, res: Response) => {
    const row = await getSource(ctx.db, String(req.params.id));
    if (!row) throw new NotFoundError(`no source with id '${req.params.id}'`);
    res.json(toSourceView(row));
  });

  router.post('/sources/:id/crawl', async (req: Request, res: Response) => {
    res.json(await ctx.crawler.crawlNow(String(req.params.id)));
  });

  router.delete('/sources/:id', async (req: Request, res: Response) => {
    if (!(await deleteSource(ctx.db, String(req.params.id)))) throw new NotFoundError(`no source with id '${req.params.id}'`);
    res.status(204).end();
  });

  router.use((req: Request) => {
    throw new NotFoundError(`no route ${req.method} ${req.baseUrl}${req.path}`);
  });
  return router;
}
