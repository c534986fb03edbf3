// Reads a manifest from a file path (for the CLI and the demo corpus). Web fetching lives in the crawler.
import fs from 'node:fs/promises';
import { InvalidArgumentError } from '../errors';

export const MAX_MANIFEST_BYTES = 20 * 1024 * 1024;

export async function readManifestFile(file: string): Promise<unknown> {
  const stat = await fs.stat(file).catch(() => null);
  if (!stat || !stat.isFile()) throw new InvalidArgumentError(`${file}: no such file`);
  if (stat.size > MAX_MANIFEST_BYTES) {
    throw new InvalidArgumentError(`${file} is ${stat.size} bytes; manifests larger than ${MAX_MANIFEST_BYTES} bytes are refused`);
  }
  return parseManifestJson(await fs.readFile(file, 'utf8'), file);
}

export function parseManifestJson(text: string, origin: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new InvalidArgumentError(`${origin} is not valid JSON: ${(error as Error).message}`);
  }
}
