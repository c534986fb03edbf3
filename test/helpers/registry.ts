// Boots a real registry (HTTP on 127.0.0.1, random port) on a fresh test database.
import { loadConfig, type RegistryConfig } from '../../src/config';
import type { ContextOptions } from '../../src/context';
import { startRegistry, type RunningRegistry } from '../../src/server';
import { createTestDatabase, type TestDatabase } from './test-database';

export interface TestRegistry extends RunningRegistry {
  database: TestDatabase;
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<{ status: number; body: any; headers: Headers }>;
  get(path: string, headers?: Record<string, string>): Promise<{ status: number; body: any; headers: Headers }>;
  close(): Promise<void>;
}

export async function startTestRegistry(
  options: { withDemoCorpus?: boolean; config?: Partial<RegistryConfig>; context?: ContextOptions; database?: TestDatabase } = {},
): Promise<TestRegistry> {
  // A given database is shared (several registries on one database) and left for its owner to drop.
  const shared = options.database;
  const database = shared ?? (await createTestDatabase({ withDemoCorpus: options.withDemoCorpus ?? true }));
  const config = loadConfig({
    port: 0,
    host: '127.0.0.1',
    databaseUrl: database.url,
    logLevel: 'silent',
    loadDemoCorpus: false,
    publicUrl: 'http://registry.test/',
    peers: [],
    ...options.config,
  });
  // Probes run only where a test asks (ctx.liveness.tick(), or its own `liveness`): the demo corpus names real hosts.
  if (!options.config?.liveness) config.liveness = { ...config.liveness, pollMs: 0 };
  let registry: RunningRegistry;
  try {
    registry = await startRegistry(config, options.context);
  } catch (error) {
    if (!shared) await database.drop();
    throw error;
  }
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${registry.url}${path}`, {
      method,
      headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      /* not JSON: keep the text */
    }
    return { status: res.status, body: parsed as any, headers: res.headers };
  };
  return {
    ...registry,
    database,
    post: (path, body, headers) => call('POST', path, body, headers),
    get: (path, headers) => call('GET', path, undefined, headers),
    async close() {
      await registry.stop();
      if (!shared) await database.drop();
    },
  };
}
