// An operator's JSON file named by a setting (the query vocabulary's tables, the product glossary): read once
// at start, its size capped, and every way it can fail an error that names the setting and the file.
import { readFile, stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';

/** The parsed JSON of `file`; `fail` makes the error thrown, from a message that starts with `source`. */
export async function readJsonFile(file: string, source: string, maxBytes: number, fail: (message: string) => Error): Promise<unknown> {
  const unreadable = (error: unknown) => fail(`${source}: cannot be read (${(error as Error).message})`);
  let info: Stats;
  try {
    info = await stat(file);
  } catch (error) {
    throw unreadable(error);
  }
  if (!info.isFile()) throw fail(`${source}: not a file`);
  if (info.size > maxBytes) throw fail(`${source}: ${info.size} bytes; at most ${maxBytes}`);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw unreadable(error);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw fail(`${source}: not valid JSON (${(error as Error).message})`);
  }
}
