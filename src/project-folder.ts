// Folders shipped beside the sources (data/, openapi/, the portal's assets), found from src/ (tsx, jest) and from
// dist/src/ (npm start).
import { existsSync } from 'node:fs';
import path from 'node:path';

/** A folder of the project, by its path from the project's root; throws when neither layout holds it. */
export function projectFolder(...segments: string[]): string {
  for (const up of [['..'], ['..', '..']]) {
    const candidate = path.resolve(__dirname, ...up, ...segments);
    if (existsSync(candidate)) return candidate;
  }
  throw new Error(`${segments.join('/')} not found from ${__dirname}`);
}
