// The prepared demo database is used only by the installation it was built from: its folder's name is a hash
// of src/, db/migrations/, data/ and package-lock.json.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findPreparedDemoFolder, preparedDemoKey } from '../../src/ingest/prepared-demo-database';

let root: string;
let cache: string;

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'ard-prepared-root-'));
  cache = fs.mkdtempSync(path.join(os.tmpdir(), 'ard-prepared-cache-'));
  for (const [file, text] of [
    ['src/a.ts', 'export const a = 1;'],
    ['db/migrations/0001_x.sql', 'CREATE TABLE x ();'],
    ['data/corpus/m.json', '{}'],
    ['package-lock.json', '{}'],
  ]) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  }
});
afterEach(() => {
  fs.rmSync(root, { recursive: true, force: true });
  fs.rmSync(cache, { recursive: true, force: true });
});

function prepare(key: string): void {
  fs.mkdirSync(path.join(cache, key), { recursive: true });
  fs.writeFileSync(path.join(cache, key, 'PG_VERSION'), '17\n');
}

describe('the prepared demo database key', () => {
  it('is stable for the same inputs and changes with any of them', () => {
    const key = preparedDemoKey(root);
    expect(key).toMatch(/^[0-9a-f]{32}$/);
    expect(preparedDemoKey(root)).toBe(key);
    for (const file of ['src/a.ts', 'db/migrations/0001_x.sql', 'data/corpus/m.json', 'package-lock.json']) {
      const before = fs.readFileSync(path.join(root, file));
      fs.writeFileSync(path.join(root, file), `${before.toString()} `);
      expect(preparedDemoKey(root)).not.toBe(key);
      fs.writeFileSync(path.join(root, file), before);
    }
    fs.writeFileSync(path.join(root, 'db/migrations/0002_y.sql'), '');
    expect(preparedDemoKey(root)).not.toBe(key);
  });

  it('ignores files outside its inputs', () => {
    const key = preparedDemoKey(root);
    fs.writeFileSync(path.join(root, 'README.md'), 'changed');
    expect(preparedDemoKey(root)).toBe(key);
  });
});

describe('findPreparedDemoFolder', () => {
  it('finds the complete folder of this installation and nothing else', () => {
    expect(findPreparedDemoFolder(cache, root)).toBeNull();
    prepare('0'.repeat(32));
    expect(findPreparedDemoFolder(cache, root)).toBeNull();
    const key = preparedDemoKey(root);
    fs.mkdirSync(path.join(cache, key));
    expect(findPreparedDemoFolder(cache, root)).toBeNull(); // no PG_VERSION: not complete
    prepare(key);
    expect(findPreparedDemoFolder(cache, root)).toBe(path.join(cache, key));
    fs.appendFileSync(path.join(root, 'src/a.ts'), '\n');
    expect(findPreparedDemoFolder(cache, root)).toBeNull();
  });
});
