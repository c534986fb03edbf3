// The developer portal (docs/portal.md): server-rendered pages for people in a browser, built only on the
// registry's public API (registry-api.ts), plus a small script that adds conveniences and is never needed
// to read. `GET /` is the portal for clients that ask for HTML; any other client falls through to the API.
import type { Express, NextFunction, Request, Response } from 'express';
import { renderPage, type PageAssets, type PageOptions } from './layout';
import { browsePage, readBrowseState } from './pages/browse-page';
import { docsPage } from './pages/docs-page';
import { entryPage } from './pages/entry-page';
import { libraryPage, readLibraryState } from './pages/library-page';
import { readSearchState, searchPage, type QueryParameters } from './pages/search-page';
import { ownBaseUrl, PortalKey, registryApi, type RegistryApi } from './registry-api';
import { projectFolder } from '../project-folder';
import { loadAsset, sendAsset, sendMaybeCompressed, type StaticAsset } from './static-assets';

export interface PortalOptions {
  /** This registry's PUBLIC_URL: results whose `source` differs came from a peer. */
  publicUrl: string;
  /** Facet fields the search page asks /explore for (PORTAL_FACETS). */
  facetFields: readonly string[];
  /** Marks the portal's API calls, which the rate limit exempts. */
  key: PortalKey;
  /** Longest a page waits for one API call (REQUEST_TIMEOUT_MS: the API's own deadline). */
  apiTimeoutMs: number;
}

export { PortalKey };

/**
 * Pages load their own script and stylesheet and nothing else; forms and fetches stay on this origin.
 * Set per response, replacing the API's `default-src 'none'` on these routes only.
 */
export const PORTAL_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

export function mountPortal(app: Express, options: PortalOptions): void {
  const assetsDir = projectFolder('src', 'portal', 'assets');
  const swaggerDir = swaggerUiFolder();
  const openapiDir = projectFolder('openapi');
  const assets: Record<string, StaticAsset> = {
    '/assets/portal.css': loadAsset('/assets/portal.css', `${assetsDir}/portal.css`, 'text/css; charset=utf-8', { versioned: true }),
    '/assets/portal.js': loadAsset('/assets/portal.js', `${assetsDir}/portal.js`, 'text/javascript; charset=utf-8', { versioned: true }),
    '/assets/docs.js': loadAsset('/assets/docs.js', `${assetsDir}/docs.js`, 'text/javascript; charset=utf-8', { versioned: true }),
    '/assets/favicon.svg': loadAsset('/assets/favicon.svg', `${assetsDir}/favicon.svg`, 'image/svg+xml', { versioned: true }),
    '/docs/assets/swagger-ui.css': loadAsset('/docs/assets/swagger-ui.css', `${swaggerDir}/swagger-ui.css`, 'text/css; charset=utf-8', {
      versioned: true,
    }),
    '/docs/assets/swagger-ui-bundle.js': loadAsset(
      '/docs/assets/swagger-ui-bundle.js',
      `${swaggerDir}/swagger-ui-bundle.js`,
      'text/javascript; charset=utf-8',
      { versioned: true },
    ),
    '/docs/ard.openapi.yaml': loadAsset('/docs/ard.openapi.yaml', `${openapiDir}/ard.openapi.yaml`, 'application/yaml; charset=utf-8', {
      versioned: false,
    }),
    '/docs/ai-catalog.schema.json': loadAsset(
      '/docs/ai-catalog.schema.json',
      `${openapiDir}/ai-catalog.schema.json`,
      'application/schema+json; charset=utf-8',
      { versioned: false },
    ),
  };
  const url = (route: string) => (assets[route] as StaticAsset).url;
  const pageAssets: PageAssets = {
    stylesheet: url('/assets/portal.css'),
    script: url('/assets/portal.js'),
    favicon: url('/assets/favicon.svg'),
  };
  const docs = docsPage({
    stylesheet: url('/docs/assets/swagger-ui.css'),
    bundle: url('/docs/assets/swagger-ui-bundle.js'),
    script: url('/assets/docs.js'),
  });

  for (const [route, asset] of Object.entries(assets)) app.get(route, (req, res) => sendAsset(req, res, asset));

  const page =
    (build: (api: RegistryApi, req: Request) => Promise<PageOptions & { status: number }>) =>
    (req: Request, res: Response, next: NextFunction) => {
      const api = registryApi({
        baseUrl: ownBaseUrl(req),
        requestId: res.locals.requestId as string | undefined,
        key: options.key.value,
        timeoutMs: options.apiTimeoutMs,
      });
      build(api, req).then((built) => sendPage(req, res, pageAssets, built), next);
    };

  const search = page((api, req) =>
    searchPage({ api, facetFields: options.facetFields, publicUrl: options.publicUrl }, readSearchState(queryOf(req))),
  );
  app.get('/', (req, res, next) => {
    // Browsers ask for text/html first; `Accept: application/json`, `*/*` and no Accept get the API's answer.
    res.vary('Accept');
    if (req.accepts(['json', 'html']) === 'html') search(req, res, next);
    else next();
  });
  app.get(
    '/browse',
    page((api, req) => browsePage(api, readBrowseState(queryOf(req)))),
  );
  app.get(
    '/alexandria',
    page((api, req) => libraryPage(api, readLibraryState(queryOf(req)))),
  );
  app.get(
    '/entry/:identifier',
    page((api, req) => entryPage(api, req.params.identifier as string)),
  );
  app.get('/docs', (req, res) => sendPage(req, res, pageAssets, docs));
}

function sendPage(req: Request, res: Response, assets: PageAssets, page: PageOptions & { status: number }): void {
  res.status(page.status).set({
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Security-Policy': PORTAL_CSP,
    'Cache-Control': 'no-cache',
  });
  sendMaybeCompressed(req, res, Buffer.from(renderPage(assets, page).text));
}

/** The query string as the app's 'simple' parser (node:querystring) reads it: repeated names give arrays. */
function queryOf(req: Request): QueryParameters {
  return req.query as QueryParameters;
}

/** swagger-ui-dist's folder, wherever npm placed it. */
function swaggerUiFolder(): string {
  return require.resolve('swagger-ui-dist/package.json').replace(/package\.json$/, '');
}
