// The configuration of a registry on the embedded database in `dataDir`, listening on a free loopback port, quiet,
// without the crawl scheduler; `overrides` on top.
import { loadConfig, type RegistryConfig } from '../../src/config';

export function embeddedTestConfig(dataDir: string, overrides: Partial<RegistryConfig> = {}): RegistryConfig {
  return loadConfig({
    port: 0,
    host: '127.0.0.1',
    databaseUrl: null,
    dataDir,
    logLevel: 'silent',
    crawl: { ...loadConfig().crawl, schedulerEnabled: false },
    ...overrides,
  });
}
