// Peer registries for federation tests: free loopback ports known before start (so each registry's
// PUBLIC_URL is its real address and PEERS can form cycles), and node:http peers that misbehave.
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Kysely } from 'kysely';
import { markDeleted } from '../../src/catalog/entry-repository';
import type { Database } from '../../src/db/schema';
import { CORPUS_DIR } from '../../src/ingest/demo-corpus';

export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface FakePeer {
  url: string;
  /** Requests received (POST /search and any other), with their method, path and headers. */
  requests: Array<{ method: string; url: string; headers: http.IncomingHttpHeaders; body: unknown }>;
  close(): Promise<void>;
}

export type FakeBehaviour = (req: http.IncomingMessage, res: http.ServerResponse, body: unknown) => void;

export async function startFakePeer(behaviour: FakeBehaviour): Promise<FakePeer> {
  const requests: FakePeer['requests'] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        body = undefined;
      }
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      behaviour(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function json(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export function resultItem(name: string, score: number, source?: string): Record<string, unknown> {
  return {
    identifier: `urn:air:peer.example:mcp:${name}`,
    displayName: `Peer ${name}`,
    type: 'application/mcp-server-card+json',
    url: `https://peer.example/${name}`,
    description: `peer server ${name}`,
    score,
    ...(source ? { source } : {}),
  };
}

/** Tombstones every entry that the demo-corpus `manifest` does not list (the template holds all manifests). */
export async function keepOnlyManifest(db: Kysely<Database>, manifest: string): Promise<void> {
  const keep = new Set(
    JSON.parse(fs.readFileSync(path.join(CORPUS_DIR, manifest), 'utf8')).entries.map((e: { identifier: string }) => e.identifier),
  );
  const all = await db.selectFrom('entries').select('identifier').execute();
  await markDeleted(
    db,
    all.map((r) => r.identifier).filter((id) => !keep.has(id)),
    new Date(),
  );
}
