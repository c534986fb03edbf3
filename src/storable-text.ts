// Text PostgreSQL cannot store as it was sent: NUL (U+0000), which text and jsonb refuse, and an
// unpaired UTF-16 surrogate (JSON's "\udfff"), which is no Unicode character: jsonb refuses its
// escape, and as text it would be stored as U+FFFD, not as what was sent. Both the HTTP guards and
// the catalog validator reject such text naming where it is, before anything reaches a statement.

const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** What in `text` cannot be stored, as a phrase ("a NUL character (U+0000)"); null when nothing. */
export function unstorableCharacter(text: string): string | null {
  if (text.includes('\u0000')) return 'a NUL character (U+0000)';
  const surrogate = UNPAIRED_SURROGATE.exec(text);
  if (surrogate) return `an unpaired UTF-16 surrogate (\\u${surrogate[0].charCodeAt(0).toString(16)})`;
  return null;
}

export interface JsonProblem {
  kind: 'text' | 'depth';
  /** Where: a path under `root` ("entry.tags[0]"), "a key in <path>", or `root` itself. */
  at: string;
  /** What, as a predicate: "contains a NUL character (U+0000)", "is nested deeper than 32 levels". */
  problem: string;
}

/** A node of the walk: its parent and the key or index it sits under, so a path is built only for a problem. */
interface Frame {
  value: unknown;
  depth: number;
  parent: Frame | null;
  key: string;
  index: boolean;
}

function pathOf(frame: Frame, root: string): string {
  const steps: string[] = [];
  for (let f: Frame | null = frame; f && f.parent; f = f.parent) steps.push(f.index ? `[${f.key}]` : `.${f.key}`);
  const path = root + steps.reverse().join('');
  return root ? path : path.replace(/^\./, '');
}

/**
 * The first string or key in a parsed JSON value holding text that cannot be stored, or the first
 * object or array deeper than `maxDepth`. An explicit stack, so hostile nesting costs one pass; it runs on
 * every request body, so where a value sits is only spelt out for the one it reports.
 */
export function findJsonProblem(value: unknown, root: string, maxDepth = Number.POSITIVE_INFINITY): JsonProblem | null {
  const stack: Frame[] = [{ value, depth: 0, parent: null, key: '', index: false }];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    const current = frame.value;
    if (typeof current === 'string') {
      const character = unstorableCharacter(current);
      if (character) return { kind: 'text', at: pathOf(frame, root), problem: `contains ${character}` };
      continue;
    }
    if (current === null || typeof current !== 'object') continue;
    if (frame.depth >= maxDepth) return { kind: 'depth', at: pathOf(frame, root), problem: `is nested deeper than ${maxDepth} levels` };
    const index = Array.isArray(current);
    for (const [key, child] of Object.entries(current)) {
      if (!index) {
        const character = unstorableCharacter(key);
        if (character) {
          const path = pathOf(frame, root);
          return { kind: 'text', at: path ? `a key in ${path}` : 'a key', problem: `contains ${character}` };
        }
      }
      stack.push({ value: child, depth: frame.depth + 1, parent: frame, key, index });
    }
  }
  return null;
}

const UNSTORABLE_GLOBAL = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * `text` with what PostgreSQL cannot store replaced by U+FFFD: for text the registry writes itself (crawl
 * reports, error messages quoting a publisher's bytes), which must be saved whatever it quotes. Invalid
 * UTF-8 never reaches a JS string as such: Buffer decoding already turned it into U+FFFD.
 */
export function storableText(text: string): string {
  return unstorableCharacter(text) === null ? text : text.replace(UNSTORABLE_GLOBAL, '\uFFFD');
}

/** A JSON value (a report) with every string and key made storable by storableText. */
export function storableJson<T>(value: T): T {
  if (typeof value === 'string') return storableText(value) as T;
  if (Array.isArray(value)) return value.map((item) => storableJson(item)) as T;
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [storableText(key), storableJson(item)])) as T;
}
