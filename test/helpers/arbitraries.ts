// fast-check generators of hostile request input, reusable by every route's property tests:
// strings (Unicode, RTL, emoji, NUL, lone surrogates, SQL and filter metacharacters), JSON values of
// any type, filters, page sizes and page tokens, and query strings.
import fc from 'fast-check';

export const nastyString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    'a\u0000b',
    '\ud800',
    '\udfff',
    '🦄🚀',
    'שלום עולם',
    '\u202e\u202dtxt',
    'Ω≈ç√',
    '\uFEFF',
    "'; DROP TABLE entries; --",
    '%',
    '_',
    '\\',
    '"',
    '$1',
    '::text',
    '*',
    '&|!',
    'a:*',
    "a' OR 1=1",
    '<script>',
    '../../etc/passwd',
    'x'.repeat(2001),
    'metadata.',
    '.',
    'a..b',
    '__proto__',
    'constructor',
  ),
);

export const anyJson: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { maxDepth: 3 },
    nastyString,
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(nastyString, tie('value'), { maxKeys: 4 }),
  ),
})).value;

const filterPath = fc.oneof(
  fc.constantFrom(
    'type',
    'tags',
    'publisher',
    'capabilities',
    'identifier',
    'displayName',
    'metadata.category',
    'host.name',
    'updatedAt',
    'url',
    'data.x.y',
  ),
  nastyString,
);

export const filter = fc.oneof(
  fc.dictionary(filterPath, fc.oneof(nastyString, fc.array(nastyString, { maxLength: 5 })), { maxKeys: 5 }),
  anyJson,
);

export const pageSize = fc.oneof(
  fc.integer({ min: -5, max: 200 }),
  fc.constantFrom(0, -1, 101, 1e9, Number.MAX_SAFE_INTEGER, 2 ** 53 + 1, 1.5, -0),
  anyJson,
);

export const pageToken = fc.oneof(
  nastyString,
  fc.base64String({ maxLength: 200 }),
  fc.constantFrom('a.b', 'a.b.c', '.', 'eyJxIjoiIiwibyI6LTF9.x', 'x'.repeat(9000)),
  anyJson,
);

/** POST /search bodies: mostly well-formed envelopes with hostile values, sometimes anything at all. */
export const searchBody = fc.oneof(
  fc.record(
    {
      query: fc.oneof(fc.record({ text: nastyString, filter }, { requiredKeys: ['text'] }), anyJson),
      pageSize,
      pageToken,
      federation: fc.oneof(fc.constantFrom('auto', 'referrals', 'none'), nastyString),
    },
    { requiredKeys: ['query'] },
  ),
  anyJson,
);

/** encodeURIComponent, with lone surrogates (which it cannot encode) sent as U+FFFD. */
export const encodeAny = (text: string) =>
  encodeURIComponent(
    text.replace(/[\uD800-\uDFFF]/g, (c, at: number, all: string) => {
      const code = c.charCodeAt(0);
      const paired = code < 0xdc00 ? /[\uDC00-\uDFFF]/.test(all[at + 1] ?? '') : /[\uD800-\uDBFF]/.test(all[at - 1] ?? '');
      return paired ? c : '\uFFFD';
    }),
  );

/** Query strings (GET /agents and later list routes): name=value pairs, repeated names included, raw % escapes too. */
export const queryString = fc
  .array(
    fc.tuple(
      fc.oneof(fc.constantFrom('filter', 'pageSize', 'pageToken', 'orderBy'), nastyString),
      fc.oneof(nastyString, fc.integer().map(String)),
    ),
    {
      maxLength: 5,
    },
  )
  .map((pairs) => pairs.map(([k, v]) => `${encodeAny(k)}=${encodeAny(v)}`).join('&'));
