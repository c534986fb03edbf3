// The demo-corpus template database is named after a hash of what it is built from, so a change to
// migrations, corpus or indexing code gets a new template and concurrent test runs never share a stale one.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
const INPUTS = ['db/migrations', 'data/corpus', 'src/catalog', 'src/embedding', 'src/ingest', 'src/search', 'src/alexandria'];

export function fixtureHash(): string {
  const hash = createHash('sha256');
  const walk = (p: string) => {
    const full = path.join(ROOT, p);
    if (!fs.existsSync(full)) return;
    if (fs.statSync(full).isDirectory()) for (const child of fs.readdirSync(full).sort()) walk(path.join(p, child));
    else hash.update(p).update(fs.readFileSync(full));
  };
  INPUTS.forEach(walk);
  return hash.digest('hex').slice(0, 12);
}

export const TEMPLATE_DB = `ard_test_template_${fixtureHash()}`;
