/**
 * `npm run conformance -- <base-url>` against this registry itself (the demo corpus): every MUST of
 * ARD v0.9 / v0.91 the script checks passes, and so does every SHOULD this registry claims.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import path from 'node:path';
import { createHttpClient } from '../../src/outbound';
import { formatResults, runConformance } from '../../scripts/conformance-checks';
import { startTestRegistry, type TestRegistry } from '../helpers/registry';

let registry: TestRegistry;

beforeAll(async () => {
  registry = await startTestRegistry({ config: { trustPollMs: 0 } });
});
afterAll(async () => {
  await registry?.close();
});

describe('conformance script (ARD v0.9, v0.91)', () => {
  it('passes every check against this registry, naming each requirement by its section', async () => {
    const http = createHttpClient({ userAgent: 'conformance-test', allowPrivateAddresses: true });
    try {
      const results = await runConformance(registry.url, http);
      const printed = formatResults(results);
      expect(results.filter((r) => r.outcome !== 'pass')).toEqual([]);
      expect(results.length).toBeGreaterThanOrEqual(15);
      for (const section of [
        'v0.91 §5.1',
        'v0.91 §5.3.1',
        'v0.91 §5.3.2',
        'v0.91 §5.3.3',
        'v0.91 §5.3.4',
        'v0.91 §5.3.5',
        'v0.9 Appendix B',
      ]) {
        expect(printed).toContain(`PASS  MUST   ${section}`);
      }
    } finally {
      await http.close();
    }
  });

  it('fails a MUST, with its section, against a server that is not a registry', async () => {
    const http = createHttpClient({ userAgent: 'conformance-test', allowPrivateAddresses: true });
    try {
      const results = await runConformance(`${registry.url}/nowhere/`, http);
      const search = results.find((r) => r.requirement.startsWith('POST /search answers results'));
      expect(search).toMatchObject({ section: 'v0.91 §5.3.2', outcome: 'fail', level: 'MUST', detail: 'HTTP 404' });
      expect(formatResults(results)).toMatch(/FAIL  MUST   v0\.91 §5\.3\.2 +POST \/search answers results/);
    } finally {
      await http.close();
    }
  });

  it('runs as `npm run conformance -- <base-url>` and exits 0', async () => {
    const root = path.resolve(__dirname, '..', '..');
    // Asynchronously: the registry under test answers from this process.
    const run = await promisify(execFile)(
      process.execPath,
      [path.join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs'), path.join(root, 'scripts', 'conformance.ts'), registry.url],
      {
        encoding: 'utf8',
        timeout: 120_000,
      },
    );
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(/\d+ passed, 0 MUST failed, 0 SHOULD not met/);
  });
});
