// A temporary folder for one test file (an operator's settings files, ...): registers the beforeAll/afterAll
// hooks that create and remove it. Call it before the hooks that write into it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface TempDir {
  /** The folder (available inside hooks and tests, after its beforeAll). */
  readonly path: string;
  /** Writes `text` to `name` in the folder; returns the file's path. */
  write(name: string, text: string): string;
}

export function useTempDir(prefix: string): TempDir {
  let dir: string | undefined;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  });
  afterAll(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });
  const folder = () => {
    if (!dir) throw new Error('useTempDir: the folder exists only inside hooks and tests');
    return dir;
  };
  return {
    get path() {
      return folder();
    },
    write(name, text) {
      const file = path.join(folder(), name);
      fs.writeFileSync(file, text);
      return file;
    },
  };
}
