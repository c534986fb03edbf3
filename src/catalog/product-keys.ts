// What makes two entries the same product (docs/relevance.md "One product, one result"): the source repository
// they are built from, a package they are installed as, or the remote endpoint they answer at, each read from
// what the entry states and normalised so that catalogs which spell it differently agree. Search collapses the
// entries that share a key (src/search/product-collapse.ts); nothing here is stored.
import type { CatalogEntry } from './catalog-entry';

/** Hosts whose URLs are `<owner>/<repository>[/tree|blob/<ref>/<directory>]`: an entry's `url` there is its repository. */
const CODE_HOSTS = new Set(['github.com', 'gitlab.com', 'bitbucket.org', 'codeberg.org']);

/** The last path segment of a remote endpoint that names a transport, not a product (`/v1/sse` and `/v1/mcp`). */
const TRANSPORT_SEGMENT = /\/(sse|mcp|stream|streamable-http)$/;

/** A source repository, and the directory inside it when the entry names one (a repository holding several servers). */
export interface RepositoryRef {
  /** Host and path, lower-cased, without `.git`: `github.com/github/github-mcp-server`. */
  base: string;
  /** The directory inside it, lower-cased, no leading or trailing `/`: `src/fetch`. */
  directory?: string;
}

export interface ProductKeys {
  repository?: RepositoryRef;
  /** `oci:<image without tag>`, `npm:<name>`, `pypi:<name>`. */
  packages: string[];
  /** `remote:<host><path>`, the transport segment dropped. */
  remotes: string[];
}

/**
 * The product keys of an entry, from `metadata.repositoryUrl` / `metadata.repository` / an inline server card's
 * `repository` (with `metadata.sourceDirectory` or the card's `subfolder`), else a `url` on a code host; the
 * card's `packages` and `metadata.image`; the card's `remotes` and `metadata.remoteUrl`. Reads only those fields,
 * so a partial entry holding them is enough.
 */
export function productKeys(entry: Pick<CatalogEntry, 'url' | 'metadata' | 'data'>): ProductKeys {
  const metadata = (entry.metadata ?? {}) as Record<string, unknown>;
  const data = (entry.data ?? {}) as Record<string, unknown>;
  const card = objectOf(data.repository);
  const stated = [text(metadata.repositoryUrl), text(metadata.repository) ?? text(objectOf(metadata.repository)?.url), text(card?.url)];
  const repository = repositoryOf(
    stated.find((url) => url !== undefined && parseRepository(url)) ?? codeHostUrl(text(entry.url)),
    text(metadata.sourceDirectory) ?? text(card?.subfolder),
  );
  const packages = new Set<string>();
  const image = text(metadata.image);
  if (image) packages.add(`oci:${imageName(image)}`);
  for (const pkg of arrayOf(data.packages)) {
    const name = text(pkg.identifier) ?? text(pkg.name);
    const registry = (text(pkg.registryType) ?? text(pkg.registry_name))?.toLowerCase();
    if (!name || !registry) continue;
    if (registry === 'oci' || registry === 'docker') packages.add(`oci:${imageName(name)}`);
    else if (registry === 'pypi') packages.add(`pypi:${name.toLowerCase().replace(/[-_.]+/g, '-')}`);
    else packages.add(`${registry}:${name.toLowerCase()}`);
  }
  const remotes = new Set<string>();
  for (const url of [text(metadata.remoteUrl), ...arrayOf(data.remotes).map((r) => text(r.url))]) {
    const endpoint = url && endpointOf(url);
    if (endpoint) remotes.add(`remote:${endpoint}`);
  }
  return { ...(repository ? { repository } : {}), packages: [...packages], remotes: [...remotes] };
}

function repositoryOf(url: string | undefined, directory: string | undefined): RepositoryRef | undefined {
  const parsed = url ? parseRepository(url) : undefined;
  if (!parsed) return undefined;
  const dir = cleanDirectory(directory) ?? parsed.directory;
  return dir ? { base: parsed.base, directory: dir } : { base: parsed.base };
}

/** `https://github.com/Owner/Repo.git`, `git+https://...`, `git@github.com:owner/repo`, `.../tree/main/src/x`. */
function parseRepository(raw: string): RepositoryRef | undefined {
  const scp = /^[\w.-]+@([\w.-]+):(.+)$/.exec(raw);
  const url = urlOf(scp ? `https://${scp[1]}/${scp[2]}` : raw.replace(/^git\+/, ''));
  if (!url) return undefined;
  const host = hostOf(url);
  const segments = url.pathname
    .split('/')
    .filter(Boolean)
    .map((s) => decodeSegment(s).toLowerCase());
  if (segments.length === 0) return undefined;
  if (!CODE_HOSTS.has(host)) return { base: `${host}/${segments.join('/').replace(/\.git$/, '')}` };
  if (segments.length < 2) return undefined;
  const base = `${host}/${segments[0]}/${segments[1].replace(/\.git$/, '')}`;
  const marker = segments.findIndex((s, i) => i >= 2 && (s === 'tree' || s === 'blob'));
  const directory = marker >= 0 ? cleanDirectory(segments.slice(marker + 2).join('/')) : undefined;
  return directory ? { base, directory } : { base };
}

function codeHostUrl(raw: string | undefined): string | undefined {
  const url = raw ? urlOf(raw) : undefined;
  return url && CODE_HOSTS.has(hostOf(url)) ? raw : undefined;
}

function cleanDirectory(directory: string | undefined): string | undefined {
  const dir = directory
    ?.toLowerCase()
    .replace(/^\.?\/+|\/+$/g, '')
    .replace(/\/{2,}/g, '/');
  return dir ? dir : undefined;
}

/** An OCI image without its tag or digest, Docker Hub's implicit prefixes dropped: `mcp/github`, `ghcr.io/org/x`. */
function imageName(image: string): string {
  const name = image
    .toLowerCase()
    .replace(/@sha256:[0-9a-f]+$/, '')
    .replace(/:[^/:]+$/, '');
  return name.replace(/^(docker\.io|index\.docker\.io|registry-1\.docker\.io)\//, '').replace(/^library\//, '');
}

/** Host (lower-cased, no `www.`, default port dropped by URL) and path, the trailing slash and transport segment dropped. */
function endpointOf(raw: string): string | undefined {
  const url = urlOf(raw);
  if (!url) return undefined;
  const path = url.pathname.replace(/\/+$/, '').toLowerCase().replace(TRANSPORT_SEGMENT, '');
  return `${hostOf(url)}${url.port ? `:${url.port}` : ''}${path}`;
}

function urlOf(raw: string): URL | undefined {
  try {
    const url = new URL(raw);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url : undefined;
  } catch {
    return undefined;
  }
}

function hostOf(url: URL): string {
  return url.hostname.toLowerCase().replace(/^www\./, '');
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function objectOf(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function arrayOf(value: unknown): Array<Record<string, unknown>> {
  if (!Array.isArray(value)) return [];
  return value.flatMap((v) => {
    const object = objectOf(v);
    return object ? [object] : [];
  });
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}
