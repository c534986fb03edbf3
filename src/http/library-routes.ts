// The Alexandria static transport (the contract's v0 "now") and this registry's well-known manifest:
//   GET /llms.txt                      the library and how to use it (text/plain)
//   GET /sitemap.xml                   every record's stable URL
//   GET /library/<scheme>/<rest>.json  one record, exactly as ingested (arxiv:2210.03629 ->
//                                      /library/arxiv/2210.03629.json, github:letta-ai/letta ->
//                                      /library/github/letta-ai/letta.json)
//   GET /.well-known/ai-catalog.json   this registry advertised the ARD way
// Plain express routes outside the ARD OpenAPI document: free, unauthenticated, cacheable (strong ETag,
// If-None-Match -> 304, Cache-Control public). Errors leave through the app's ARD error middleware.
import { createHash } from 'node:crypto';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Kysely } from 'kysely';

import {
  ALEXANDRIA_MEDIA_TYPE,
  type AlexandriaRecord,
  MalformedResourceIdError,
  parseAlexandriaId,
  ResourceNotFoundError,
} from '../alexandria';
import { listStoredRecords, type RegistryLibrary } from '../alexandria/registry-resource-index';
import { selfArdManifest, selfCatalogManifest } from '../catalog/registry-manifest';
import type { Database } from '../db/schema';
import { InvalidArgumentError, NotFoundError } from '../errors';
import { ifNoneMatchHits } from './caching';

/** Records change only when the library is re-ingested; clients revalidate cheaply with the ETag. */
export const LIBRARY_CACHE_CONTROL = 'public, max-age=300';

export interface LibraryRouteDeps {
  publicUrl: string;
  db: Kysely<Database>;
  library: RegistryLibrary;
}

/** The stable path of a record, relative to the public URL: `library/<scheme>/<rest>.json`. */
export function recordPath(id: string): string {
  parseAlexandriaId(id);
  const colon = id.indexOf(':');
  const rest = id
    .slice(colon + 1)
    .split('/')
    .map(encodeURIComponent)
    .join('/');
  return `library/${id.slice(0, colon)}/${rest}.json`;
}

export function recordUrl(publicUrl: string, id: string): string {
  return new URL(recordPath(id), publicUrl).toString();
}

export function mountLibraryRoutes(app: express.Express, deps: LibraryRouteDeps): void {
  const base = new URL(deps.publicUrl).toString();
  const route = (handler: (req: Request, res: Response) => Promise<void>) => (req: Request, res: Response, next: NextFunction) => {
    handler(req, res).catch(next);
  };

  app.get(
    '/.well-known/ai-catalog.json',
    route(async (req, res) => {
      sendCacheable(req, res, 'application/json; charset=utf-8', JSON.stringify(selfCatalogManifest(base)));
    }),
  );

  app.get(
    '/.well-known/ard.json',
    route(async (req, res) => {
      sendCacheable(req, res, 'application/json; charset=utf-8', JSON.stringify(selfArdManifest(base)));
    }),
  );

  app.get(
    '/llms.txt',
    route(async (req, res) => {
      const { service } = deps.library;
      const [topics, stored] = await Promise.all([service.listTopics(), listStoredRecords(deps.db)]);
      sendCacheable(
        req,
        res,
        'text/plain; charset=utf-8',
        llmsTxt(
          base,
          topics.topics,
          stored.map((s) => s.record),
        ),
      );
    }),
  );

  app.get(
    '/sitemap.xml',
    route(async (req, res) => {
      const stored = await listStoredRecords(deps.db);
      sendCacheable(
        req,
        res,
        'application/xml; charset=utf-8',
        sitemapXml(
          base,
          stored.map((s) => s.record),
        ),
      );
    }),
  );

  app.get(
    '/library/:scheme/*rest',
    route(async (req, res) => {
      const segments = (req.params as unknown as { rest: string[] }).rest;
      const last = segments[segments.length - 1] ?? '';
      if (!last.endsWith('.json')) throw new NotFoundError(`no route GET ${req.path}; records are at /library/<scheme>/<id>.json`);
      const id = `${req.params.scheme}:${[...segments.slice(0, -1), last.slice(0, -'.json'.length)].join('/')}`;
      const { service } = deps.library;
      let record: AlexandriaRecord;
      try {
        record = await service.getResource(id);
      } catch (error) {
        if (error instanceof ResourceNotFoundError) throw new NotFoundError(error.message, { cause: error });
        if (error instanceof MalformedResourceIdError) throw new InvalidArgumentError(error.message, { cause: error });
        throw error;
      }
      sendCacheable(req, res, 'application/json; charset=utf-8', JSON.stringify(record));
    }),
  );
}

/**
 * Strong ETag over the exact bytes. If-None-Match is evaluated by RFC 9110 §13.1.2 (weak comparison, lists,
 * `*`) and not by express's req.fresh, which ignores it when the request says `Cache-Control: no-cache`
 * (as every fetch() revalidation does): an origin server must still answer the conditional request.
 */
function sendCacheable(req: Request, res: Response, contentType: string, body: string): void {
  const etag = `"${createHash('sha256').update(body).digest('base64url')}"`;
  res.set({ 'Content-Type': contentType, 'Cache-Control': LIBRARY_CACHE_CONTROL, ETag: etag, 'Access-Control-Allow-Origin': '*' });
  if (ifNoneMatchHits(req.header('if-none-match'), etag)) {
    res.status(304).end();
    return;
  }
  res.status(200).send(body);
}

function sitemapXml(base: string, records: AlexandriaRecord[]): string {
  const urls = records.map((r) => {
    const lastmod = r.source.fetched_at ? `<lastmod>${escapeXml(r.source.fetched_at)}</lastmod>` : '';
    return `  <url><loc>${escapeXml(recordUrl(base, r.id))}</loc>${lastmod}</url>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls.join('\n')}\n</urlset>\n`;
}

function escapeXml(text: string): string {
  return text.replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c] as string);
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function llmsTxt(base: string, topics: Array<{ topic: string; entries: number }>, records: AlexandriaRecord[]): string {
  const url = (p: string) => new URL(p, base).toString();
  const kinds = (['paper', 'repo', 'post'] as const).map((k) => `${records.filter((r) => r.kind === k).length} ${k}s`).join(', ');
  const lines = [
    '# Alexandria: a curated library for building LLM agents',
    '',
    `> ${records.length} papers, repositories and posts about building LLM agents (${kinds}), each a schema v1 record with a`,
    '> stable id, canonical URL, tags from a 24-topic taxonomy, use cases and provenance. Served by an ARD registry.',
    '> Free, unauthenticated, read-only. Sponsored records are marked "sponsored": true and never outrank editorial order.',
    '',
    '## How to use it',
    '',
    `- MCP (Streamable HTTP, stateless, POST only): ${url('mcp')}. Tools: search(query, topic?, kind?, limit?),`,
    '  get_resource(id), list_topics(). Call list_topics first, search to find resources, get_resource to cite one.',
    `- Static JSON: every record at ${url('library/<scheme>/<rest>.json')}, e.g. ${recordUrl(base, 'arxiv:2210.03629')} for`,
    `  arxiv:2210.03629 and ${url('library/github/letta-ai/letta.json')} for github:letta-ai/letta. All of them: ${url('sitemap.xml')}.`,
    `- ARD search: POST ${url('search')} with {"query": {"text": "...", "filter": {"type": "${ALEXANDRIA_MEDIA_TYPE}"}}}.`,
    `- This registry's manifest: ${url('.well-known/ai-catalog.json')}.`,
    '',
    '## Record ids',
    '',
    '- arxiv:<id> (e.g. arxiv:2210.03629, no version suffix), github:<owner>/<repo>, post:<host>/<slug>.',
    '- Unknown ids are a not-found error, never a near match.',
    '',
    '## Topics (live entry counts)',
    '',
    ...topics.map((t) => `- ${t.topic}: ${t.entries}`),
    '',
    '## Records',
    '',
    ...records.map(
      (r) =>
        `- [${oneLine(r.title)}](${recordUrl(base, r.id)}): ${r.id}, ${r.kind}${r.date ? `, ${r.date}` : ''}${r.sponsored ? ', sponsored' : ''}`,
    ),
    '',
  ];
  return lines.join('\n');
}
