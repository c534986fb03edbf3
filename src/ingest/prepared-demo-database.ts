// The prepared demo database: an embedded (PGlite) folder with every migration applied and the demo corpus
// indexed, built once when the package is installed (`ard-registry prepare-demo`, run by `npm ci` through the
// `prepare` script) and copied into a new DATA_DIR at the first start, so a newcomer's first search does not
// wait for initdb, the migrations and the corpus load (docs/operations.md, "First start").
//
// A prepared folder is valid only for the code, migrations and data it was built from: its name is a hash
// of all of them (src/, db/migrations/, data/, package-lock.json), so any change makes the start load the
// corpus itself until `ard-registry prepare-demo` runs again.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { CORPUS_DIR } from './demo-corpus';

/** The installation's root: the folder holding data/corpus. */
export const PACKAGE_ROOT = path.resolve(CORPUS_DIR, '..', '..');

/** Where prepared folders are kept, one per key; ignored by git. */
export const PREPARED_DEMO_DIR = path.join(PACKAGE_ROOT, '.cache', 'demo-database');

/** What a prepared folder is built from, relative to the package root. */
const KEY_INPUTS = ['src', path.join('db', 'migrations'), 'data', 'package-lock.json'];

/** The hash of the inputs: the name of the prepared folder that matches this installation. */
export function preparedDemoKey(root = PACKAGE_ROOT): string {
  const hash = createHash('sha256');
  for (const input of KEY_INPUTS) {
    for (const file of filesUnder(path.join(root, input))) {
      hash.update(path.relative(root, file).split(path.sep).join('/'));
      hash.update('\0');
      hash.update(fs.readFileSync(file));
      hash.update('\0');
    }
  }
  return hash.digest('hex').slice(0, 32);
}

/** The prepared folder for this installation, or null when none was built (or it was built from other inputs). */
export function findPreparedDemoFolder(dir = PREPARED_DEMO_DIR, root = PACKAGE_ROOT): string | null {
  const folder = path.join(dir, preparedDemoKey(root));
  return fs.existsSync(path.join(folder, 'PG_VERSION')) ? folder : null;
}

function filesUnder(target: string): string[] {
  if (!fs.existsSync(target)) return [];
  if (fs.statSync(target).isFile()) return [target];
  const files: string[] = [];
  for (const entry of fs.readdirSync(target, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const full = path.join(target, entry.name);
    if (entry.isDirectory()) files.push(...filesUnder(full));
    else if (entry.isFile()) files.push(full);
  }
  return files;
}
