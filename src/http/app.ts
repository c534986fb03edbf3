// createApp(ctx): the express application, without listening. Routing and request validation
// come from the ARD OpenAPI document; every error leaves through toErrorResponse.
import { randomUUID } from 'node:crypto';
import cors from 'cors';
import express, { type NextFunction, type Request, type Response } from 'express';
import helmet from 'helmet';
import pinoHttp from 'pino-http';
import type { AppContext } from '../context';
import { InvalidArgumentError, MethodNotAllowedError, NotFoundError, ServiceUnavailableError } from '../errors';
import { requestScope } from '../logger';
import type { HandlerRequest, HandlerResponse } from './handler';
import { operationHandlers } from './handlers';
import { checkReadiness } from './health';
import { ADMIN_MANIFESTS_PATH, adminManifestBodyParser, createAdminAuthLimit, createAdminRouter } from './admin-routes';
import { createOpenApiBackend } from './openapi';
import { createRateLimiter } from './rate-limit';
import { announcedBodyLimit, jsonContentTypeGuard, jsonShapeGuard, requestDeadline } from './request-guards';
import { redactUrl } from './log-redaction';
import { toErrorResponse } from './error-response';
import { describeValidationErrors } from './validation-message';
import { createAlexandriaMcpServer, mountMcpOverHttp, registryToolsOf } from '../mcp';
import { mountLibraryRoutes } from './library-routes';
import { LIVENESS_HEADER } from './liveness-header';
import { QUERY_CUT_HEADER } from './query-cut-header';
import { VERIFICATION_HEADER } from './verification-header';
import { mountHomeRoutes } from './home-routes';
import { mountPortal, PortalKey } from '../portal';

export interface RegistryApp {
  app: express.Express;
  /** Resolves once the OpenAPI document is loaded and every route is ready. */
  ready: Promise<void>;
  /** Shutdown has begun: /readyz answers 503 and responses close their connection. */
  drain(): void;
  /**
   * Resolves when no operation handler is running (or after `timeoutMs`). A handler may outlive its
   * response (the request deadline answered 503 first, or the client hung up): the database it still
   * uses must not be closed under it.
   */
  settled(timeoutMs: number): Promise<void>;
}

/** Routes outside the read API: not rate-limited, not cross-origin. */
const isAdminPath = (path: string) => path === '/admin' || path.startsWith('/admin/');
const OPERATIONAL_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

export function createApp(ctx: AppContext): RegistryApp {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', ctx.config.trustProxy > 0 ? ctx.config.trustProxy : false);
  app.set('query parser', 'simple');
  // /ADMIN/sources must not reach the admin routes under the read API's CORS and limits.
  app.set('case sensitive routing', true);
  const api = createOpenApiBackend();
  let draining = false;

  app.use((req, res, next) => {
    const incoming = req.header('x-request-id');
    const id = incoming && /^[A-Za-z0-9._-]{1,128}$/.test(incoming) ? incoming : randomUUID();
    res.locals.requestId = id;
    res.locals.receivedAt = performance.now();
    res.setHeader('X-Request-Id', id);
    if (draining) res.setHeader('Connection', 'close');
    requestScope.run({ requestId: id }, next);
  });
  app.use((req, res, next) => {
    const start = process.hrtime.bigint();
    res.once('finish', () => {
      // The route template (never the raw path, whose identifiers would explode the label set).
      const route =
        (req.route ? `${req.baseUrl}${String(req.route.path)}` : undefined) ??
        (api.initalized ? api.router.matchOperation({ method: req.method, path: req.path, headers: {} })?.path : undefined) ??
        'unmatched';
      const labels = { method: req.method, route, status: String(res.statusCode) };
      ctx.metrics.httpRequests.inc(labels);
      ctx.metrics.httpDuration.observe(labels, Number(process.hrtime.bigint() - start) / 1e9);
    });
    next();
  });
  app.use(
    pinoHttp({
      logger: ctx.logger,
      genReqId: (_req, res) => (res as Response).locals.requestId as string,
      customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info'),
      serializers: {
        req: (req) => ({ id: req.id, method: req.method, url: redactUrl(String(req.url)) }),
        res: (res) => ({ statusCode: res.statusCode }),
      },
    }),
  );
  // A manifest load (POST /admin/manifests) has its own, larger limit (MAX_MANIFEST_BYTES, admin-routes.ts).
  const bodyLimit = announcedBodyLimit(ctx.config.maxBodyBytes);
  app.use((req, res, next) => (req.path === ADMIN_MANIFESTS_PATH ? next() : bodyLimit(req, res, next)));

  // JSON APIs need no CSP beyond "load nothing"; resources are readable cross-origin (CORS below).
  app.use(
    helmet({
      contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
      crossOriginResourcePolicy: { policy: 'cross-origin' },
    }),
  );
  // Reads are public: any origin, no credentials. Admin routes send no CORS headers, so browsers on
  // other origins cannot call them.
  const readCors = cors({
    origin: '*',
    methods: ['GET', 'HEAD', 'POST', 'OPTIONS'],
    allowedHeaders: ['Content-Type', 'X-Request-Id'],
    exposedHeaders: [
      'X-Request-Id',
      'Retry-After',
      'RateLimit',
      'RateLimit-Policy',
      VERIFICATION_HEADER,
      LIVENESS_HEADER,
      QUERY_CUT_HEADER,
    ],
    maxAge: 600,
  });
  app.use((req, res, next) => (isAdminPath(req.path) ? next() : readCors(req, res, next)));

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res, next) => {
    const readiness = await checkReadiness(ctx, draining);
    if (readiness.ready) res.json({ status: 'ready' });
    else next(new ServiceUnavailableError(`not ready: ${readiness.problems.join('; ')}`));
  });
  app.get('/metrics', async (_req, res, next) => {
    try {
      res.type(ctx.metrics.registry.contentType).send(await ctx.metrics.registry.metrics());
    } catch (error) {
      next(error);
    }
  });

  // Admin work (a manifest load, a crawl) takes as long as it takes: the caller waits for its report.
  const deadline = requestDeadline(ctx.config.requestTimeoutMs);
  app.use((req, res, next) => (isAdminPath(req.path) ? next() : deadline(req, res, next)));
  // The portal's page request is counted against the person; the API calls it makes for them are not.
  const portalKey = new PortalKey();
  const limiter = createRateLimiter({
    perMinute: ctx.config.rateLimitPerMinute,
    redis: ctx.redis?.client ?? null,
    logger: ctx.logger,
    exempt: (path, req) => isAdminPath(path) || OPERATIONAL_PATHS.has(path) || portalKey.matches(req),
  });
  if (limiter) app.use(limiter);

  // The developer portal (docs/portal.md): HTML for browsers, a client of the API routes mounted below.
  mountPortal(app, {
    publicUrl: ctx.config.publicUrl,
    facetFields: ctx.config.portalFacets,
    key: portalKey,
    apiTimeoutMs: ctx.config.requestTimeoutMs,
  });

  // Alexandria (docs/alexandria.md): MCP at /mcp and the static routes, outside the ARD OpenAPI document,
  // mounted before the JSON parser and the OpenAPI catch-all (the MCP route parses its own body).
  mountHomeRoutes(app);
  mountLibraryRoutes(app, { publicUrl: ctx.config.publicUrl, db: ctx.readDb, library: ctx.library });
  const registryTools = registryToolsOf(ctx);
  mountMcpOverHttp(
    app,
    '/mcp',
    async () => createAlexandriaMcpServer(ctx.library.service, { logger: ctx.logger, registry: registryTools }),
    {
      logger: ctx.logger,
    },
  );

  const adminAuthLimit = createAdminAuthLimit(ctx);
  app.use(ADMIN_MANIFESTS_PATH, ...adminManifestBodyParser(ctx, adminAuthLimit));
  app.use(express.json({ limit: ctx.config.maxBodyBytes, strict: true, type: ['application/json', 'application/*+json'] }));
  app.use(jsonContentTypeGuard());
  app.use(jsonShapeGuard());

  // Admin routes are not part of the ARD contract: mounted before the OpenAPI router, token-guarded.
  app.use('/admin', createAdminRouter(ctx, adminAuthLimit));

  api.register({
    validationFail: (c) => {
      throw new InvalidArgumentError(describeValidationErrors(c.validation.errors));
    },
    notFound: (c) => {
      throw new NotFoundError(`no route ${c.request.method.toUpperCase()} ${c.request.path}`);
    },
    methodNotAllowed: (c) => {
      throw new MethodNotAllowedError(`${c.request.method.toUpperCase()} is not allowed on ${c.request.path}`);
    },
  });
  const running = new Set<Promise<unknown>>();
  for (const [operationId, handler] of Object.entries(operationHandlers)) {
    api.register(operationId, (c, req: Request) => {
      const work = handler(ctx, {
        body: c.request.requestBody,
        query: c.request.query as HandlerRequest['query'],
        params: c.request.params as Record<string, string>,
        headers: req.headers,
        requestId: req.res?.locals.requestId as string,
        receivedAt: (req.res?.locals.receivedAt as number | undefined) ?? performance.now(),
      });
      const tracked = work.catch(() => undefined).finally(() => running.delete(tracked));
      running.add(tracked);
      return work;
    });
  }
  const ready = api.init().then(() => undefined);

  app.use(async (req: Request, res: Response, next: NextFunction) => {
    try {
      await ready;
      // HEAD is GET without the body (node drops it): every GET operation answers HEAD too.
      const method = req.method === 'HEAD' ? 'GET' : req.method;
      const result = (await api.handleRequest(
        {
          method,
          path: req.path,
          body: req.body,
          query: req.query as Record<string, string>,
          headers: req.headers as Record<string, string>,
        },
        req,
        res,
      )) as HandlerResponse;
      if (!res.headersSent) send(res, result);
    } catch (error) {
      // The router percent-decodes path parameters once (decodeURIComponent): broken escapes are the client's.
      next(
        error instanceof URIError
          ? new InvalidArgumentError('the request path is not valid UTF-8 percent-encoding', { cause: error })
          : error,
      );
    }
  });

  app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const requestId = res.locals.requestId as string;
    const mapped = bodyParserError(error) ?? toErrorResponse(error, requestId, ctx.logger);
    if (res.headersSent) return;
    res.status(mapped.status).set(mapped.headers).json(mapped.body);
  });

  return {
    app,
    ready,
    drain() {
      draining = true;
    },
    async settled(timeoutMs) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
        timer.unref();
      });
      while (running.size > 0) {
        const done = await Promise.race([Promise.all([...running]).then(() => false), timeout.then(() => true)]);
        if (done) break;
      }
      clearTimeout(timer);
    },
  };
}

function send(res: Response, result: HandlerResponse): void {
  if (result.headers) res.set(result.headers);
  if (result.body === undefined) res.status(result.status).end();
  else res.status(result.status).json(result.body);
}

/** express.json() errors: malformed JSON and bodies over the limit, said plainly. */
function bodyParserError(error: unknown) {
  const e = error as { type?: string; status?: number; limit?: number };
  if (e?.type === 'entity.parse.failed') {
    return { status: 400, headers: {}, body: { errorCode: 'INVALID_ARGUMENT', message: 'the request body is not valid JSON' } };
  }
  if (e?.type === 'entity.too.large') {
    return {
      status: 413,
      headers: {},
      body: { errorCode: 'INVALID_ARGUMENT', message: `the request body is larger than ${e.limit} bytes` },
    };
  }
  if (e?.type === 'encoding.unsupported' || e?.type === 'charset.unsupported') {
    return { status: 415, headers: {}, body: { errorCode: 'INVALID_ARGUMENT', message: 'the request body must be UTF-8 JSON' } };
  }
  return null;
}
