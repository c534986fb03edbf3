// Size limits of a catalog entry and of a manifest's `host`, checked at the way in before the schema
// (Ajv scans every character of a string it checks) and before anything is hashed, stored or embedded:
// an over-long entry is rejected with a reason naming the field. The figures are several times the
// largest of ~600 entries of the demo corpus and the library (description 803 characters, displayName 175,
// 302 capabilities, a whole entry 9.9 kB); docs/ingestion.md "Size limits" lists them.

/** Characters of each top-level string field. */
export const ENTRY_FIELD_LIMITS: Readonly<Record<string, number>> = {
  identifier: 256,
  displayName: 256,
  type: 128,
  url: 2048,
  description: 8192,
  version: 64,
  updatedAt: 64,
};

/** Items of each list field, and characters of each item. */
export const ENTRY_LIST_LIMITS: Readonly<Record<string, { items: number; characters: number }>> = {
  tags: { items: 64, characters: 128 },
  capabilities: { items: 512, characters: 256 },
  representativeQueries: { items: 5, characters: 512 },
};

/** `metadata`: keys, characters of a key and of a string value. */
export const ENTRY_METADATA_LIMITS = { keys: 64, keyCharacters: 128, valueCharacters: 2048 } as const;

/** Any other string anywhere in an entry or host (inline `data`, `trustManifest`, extension fields). */
export const MAX_OTHER_STRING_CHARACTERS = 8192;

/** A whole entry: the characters of its strings and keys plus a few per value, about its JSON length. */
export const MAX_ENTRY_SIZE = 64 * 1024;

export const HOST_FIELD_LIMITS: Readonly<Record<string, number>> = {
  displayName: 256,
  identifier: 256,
  documentationUrl: 2048,
  logoUrl: 2048,
};
export const MAX_HOST_SIZE = 16 * 1024;

/** What about `entry` is over a size limit, as a sentence naming the field; null when nothing is. */
export function entrySizeProblem(entry: unknown): string | null {
  if (!isObject(entry)) return null;
  const fields = fieldProblem(entry, ENTRY_FIELD_LIMITS, 'entry');
  if (fields) return fields;
  for (const [field, limit] of Object.entries(ENTRY_LIST_LIMITS)) {
    const list = entry[field];
    if (!Array.isArray(list)) continue;
    if (list.length > limit.items) return `entry.${field} has ${list.length} items; at most ${limit.items} are accepted`;
    const long = list.findIndex((item) => typeof item === 'string' && item.length > limit.characters);
    if (long >= 0)
      return `entry.${field}[${long}] is ${(list[long] as string).length} characters long; at most ${limit.characters} are accepted`;
  }
  const metadata = entry.metadata;
  if (isObject(metadata)) {
    const keys = Object.keys(metadata);
    if (keys.length > ENTRY_METADATA_LIMITS.keys)
      return `entry.metadata has ${keys.length} keys; at most ${ENTRY_METADATA_LIMITS.keys} are accepted`;
    for (const key of keys) {
      if (key.length > ENTRY_METADATA_LIMITS.keyCharacters)
        return `a key of entry.metadata is ${key.length} characters long; at most ${ENTRY_METADATA_LIMITS.keyCharacters} are accepted`;
      const value = metadata[key];
      if (typeof value === 'string' && value.length > ENTRY_METADATA_LIMITS.valueCharacters) {
        return `entry.metadata['${key}'] is ${value.length} characters long; at most ${ENTRY_METADATA_LIMITS.valueCharacters} are accepted`;
      }
    }
  }
  return sizeProblem(entry, 'entry', MAX_ENTRY_SIZE);
}

/** The same for a manifest's `host`, stored with every entry of the manifest. */
export function hostSizeProblem(host: unknown): string | null {
  if (!isObject(host)) return null;
  return fieldProblem(host, HOST_FIELD_LIMITS, 'manifest.host') ?? sizeProblem(host, 'manifest.host', MAX_HOST_SIZE);
}

function fieldProblem(value: Record<string, unknown>, limits: Readonly<Record<string, number>>, root: string): string | null {
  for (const [field, max] of Object.entries(limits)) {
    const text = value[field];
    if (typeof text === 'string' && text.length > max)
      return `${root}.${field} is ${text.length} characters long; at most ${max} are accepted`;
  }
  return null;
}

/**
 * Walks the value until it has counted more than `max` (so a hostile value costs at most `max` steps):
 * the characters of strings and keys plus 4 per value. Names a string longer than MAX_OTHER_STRING_CHARACTERS.
 */
function sizeProblem(value: unknown, root: string, max: number): string | null {
  const stack: Array<{ value: unknown; at: string }> = [{ value, at: root }];
  let size = 0;
  while (stack.length > 0) {
    const { value: current, at } = stack.pop()!;
    size += 4;
    if (typeof current === 'string') {
      if (current.length > MAX_OTHER_STRING_CHARACTERS)
        return `${at} is ${current.length} characters long; at most ${MAX_OTHER_STRING_CHARACTERS} are accepted`;
      size += current.length;
    } else if (current !== null && typeof current === 'object') {
      if (Array.isArray(current)) {
        // By index: a million-item array is not copied into entries before the budget stops the walk.
        for (let i = 0; i < current.length && size <= max; i++, size += 1) stack.push({ value: current[i], at: `${at}[${i}]` });
      } else {
        for (const [key, child] of Object.entries(current)) {
          size += key.length;
          if (size > max) break;
          stack.push({ value: child, at: `${at}.${key.length > 64 ? `${key.slice(0, 64)}…` : key}` });
        }
      }
    }
    if (size > max) return `${root} is larger than ${max / 1024} KiB (its strings, keys and values counted), the most accepted`;
  }
  return null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
