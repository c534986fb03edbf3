// npm run conformance -- <base-url>: checks a running registry against the ARD v0.9 / v0.91 requirements
// this registry implements (scripts/conformance-checks.ts). Exit 1 when a MUST fails.
import { createHttpClient } from '../src/outbound';
import { formatResults, runConformance } from './conformance-checks';

async function main(): Promise<number> {
  const base = process.argv[2];
  if (!base) {
    process.stderr.write('usage: npm run conformance -- <base-url>   (e.g. http://localhost:8080/)\n');
    return 2;
  }
  // The registry under test is often local: private addresses are allowed for this client only.
  const http = createHttpClient({ userAgent: 'ard-registry-conformance/0.1', allowPrivateAddresses: true });
  try {
    const results = await runConformance(base, http);
    process.stdout.write(`${formatResults(results)}\n`);
    return results.some((r) => r.outcome === 'fail' && r.level === 'MUST') ? 1 : 0;
  } finally {
    await http.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`conformance: ${(error as Error).message}\n`);
    process.exit(2);
  },
);
