// `npm run bench`: every benchmark, one after another, figures printed (never asserted).
// `npm run bench -- search relevance` runs only the named ones.
// Other areas add their bench/<name>.ts; this runner picks up those listed in OTHER_BENCHES when present.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { runSearchBench } from './search';

const OTHER_BENCHES = ['federation', 'listing', 'load', 'alexandria', 'ingest'];

function runScript(name: string, args: string[] = []): boolean {
  const file = path.join(__dirname, `${name}.ts`);
  if (!fs.existsSync(file)) return false;
  process.stdout.write(`\n== bench/${name}.ts\n`);
  const result = spawnSync(process.execPath, ['--import', 'tsx', file, ...args], { stdio: 'inherit', env: process.env });
  if (result.status !== 0) process.exitCode = 1;
  return true;
}

async function main(selected: string[]): Promise<void> {
  const wants = (name: string) => selected.length === 0 || selected.includes(name);
  if (wants('search')) {
    process.stdout.write('\n== search (bench/search.ts)\n');
    await runSearchBench();
  }
  // bench/relevance.ts: hybrid vs each signal alone on the labelled set. Its own 10k latency run would
  // repeat bench/search.ts: skipped here.
  if (wants('relevance')) runScript('relevance', ['--no-10k']);
  for (const name of OTHER_BENCHES) if (wants(name)) runScript(name);
}

main(process.argv.slice(2)).catch((error) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exitCode = 1;
});
