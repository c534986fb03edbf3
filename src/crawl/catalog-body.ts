// Reads a fetched catalog body (up to CRAWL_MAX_BYTES, 10 MiB) on a worker thread: decoding and parsing
// 10 MB took 0.2-0.3 s of the event loop on a busy machine, and the main thread would then walk strings
// of that size. The worker decodes (invalid UTF-8 becomes U+FFFD), parses, cuts an HTML page to its head,
// and puts in place of each entry over a size limit (entry-limits.ts) a stub that keeps only its
// identifier, with the reason: the main thread never holds a 10 MB description or name.
import { ENTRY_FIELD_LIMITS, HOST_FIELD_LIMITS, MAX_ENTRY_SIZE, MAX_HOST_SIZE, MAX_OTHER_STRING_CHARACTERS } from '../catalog/entry-limits';
import { BODY_COPY_THRESHOLD } from '../outbound';
import { ThreadWorker } from '../worker-thread';

export type CatalogBody =
  { kind: 'html'; text: string } | { kind: 'json'; json: unknown; oversized: OversizedParts } | { kind: 'invalid-json'; message: string };

export interface OversizedParts {
  /** Why the manifest's host is over its limit; the host is then left out. */
  host?: string;
  /** Why each entry (by its index in `entries`) is over its limit; the entry is then a stub with its identifier. */
  entries: Record<number, string>;
}

const SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { entryFields, hostFields, maxEntry, maxHost, maxString, maxIdentifier, htmlMax } = workerData;
// The first size problem of a value, walking at most max + 1 units (entry-limits.ts, sizeProblem).
function problem(value, root, fields, max) {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  for (const field of Object.keys(fields)) {
    const text = value[field];
    if (typeof text === 'string' && text.length > fields[field]) return root + '.' + field + ' is ' + text.length + ' characters long; at most ' + fields[field] + ' are accepted';
  }
  const stack = [[value, root]];
  let size = 0;
  while (stack.length > 0) {
    const [current, at] = stack.pop();
    size += 4;
    if (typeof current === 'string') {
      if (current.length > maxString) return at + ' is ' + current.length + ' characters long; at most ' + maxString + ' are accepted';
      size += current.length;
    } else if (current !== null && typeof current === 'object') {
      if (Array.isArray(current)) {
        for (let i = 0; i < current.length && size <= max; i++, size++) stack.push([current[i], at + '[' + i + ']']);
      } else {
        for (const key of Object.keys(current)) {
          size += key.length;
          if (size > max) break;
          stack.push([current[key], at + '.' + key.slice(0, 64)]);
        }
      }
    }
    if (size > max) return root + ' is larger than ' + max / 1024 + ' KiB (its strings, keys and values counted), the most accepted';
  }
  return null;
}
function read({ bytes, html }) {
  let text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (html) return { kind: 'html', text: text.slice(0, htmlMax) };
  let json;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { kind: 'invalid-json', message: String(error && error.message).slice(0, 200) };
  }
  const oversized = { entries: {} };
  if (json !== null && typeof json === 'object' && !Array.isArray(json)) {
    const host = problem(json.host, 'manifest.host', hostFields, maxHost);
    if (host) {
      oversized.host = host;
      delete json.host;
    }
    if (Array.isArray(json.entries)) {
      json.entries.forEach((entry, index) => {
        const reason = problem(entry, 'entry', entryFields, maxEntry);
        if (!reason) return;
        oversized.entries[index] = reason;
        const id = entry.identifier;
        json.entries[index] = typeof id === 'string' && id.length <= maxIdentifier ? { identifier: id } : {};
      });
    }
  }
  return { kind: 'json', json, oversized };
}
parentPort.on('message', ({ id, input }) => {
  try {
    parentPort.postMessage({ id, output: read(input) });
  } catch (error) {
    parentPort.postMessage({ id, error: String((error && error.message) || error) });
  }
});
`;

/** Of an HTML page only the head is read: <link rel="ai-catalog"> past this many characters is not looked for. */
export const HTML_HEAD_MAX_CHARACTERS = 256 * 1024;

/** Time to read one body: a 10 MiB parse takes ~0.3 s on a busy machine. */
const READ_TIMEOUT_MS = 30_000;

export interface CatalogBodyReader {
  read(body: Buffer, options: { html: boolean }): Promise<CatalogBody>;
  close(): Promise<void>;
}

export function createCatalogBodyReader(): CatalogBodyReader {
  const thread = new ThreadWorker(
    SOURCE,
    {
      entryFields: ENTRY_FIELD_LIMITS,
      hostFields: HOST_FIELD_LIMITS,
      maxEntry: MAX_ENTRY_SIZE,
      maxHost: MAX_HOST_SIZE,
      maxString: MAX_OTHER_STRING_CHARACTERS,
      maxIdentifier: ENTRY_FIELD_LIMITS.identifier,
      htmlMax: HTML_HEAD_MAX_CHARACTERS,
    },
    'reading a catalog body',
    10_000,
  );
  return {
    read(body, options) {
      // A large body owns its memory (the outbound client's BodyBuffer): moved to the worker, not copied.
      // A small one may be a slice of a shared pool: copied (cheap at that size).
      const own = body.length > BODY_COPY_THRESHOLD && body.buffer instanceof ArrayBuffer;
      const bytes = own ? body : new Uint8Array(body);
      return thread.request<CatalogBody>({ bytes, html: options.html }, READ_TIMEOUT_MS, own ? [body.buffer as ArrayBuffer] : []);
    },
    close: () => thread.close(),
  };
}
