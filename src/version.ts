// The registry's name and version, from its package.json (found from src/ under tsx and from dist/src/ when built).
import fs from 'node:fs';
import path from 'node:path';

function readPackage(): { name: string; version: string } {
  for (let dir = __dirname, i = 0; i < 4; i++, dir = path.dirname(dir)) {
    try {
      const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'ard-registry' && pkg.version) return { name: pkg.name, version: pkg.version };
    } catch {
      /* not here: one level up */
    }
  }
  return { name: 'ard-registry', version: '0.0.0' };
}

export const REGISTRY_PACKAGE = readPackage();
export const REGISTRY_VERSION = REGISTRY_PACKAGE.version;
