import { formatOrderBy, parseOrderBy } from '../../src/listing/order-by';
import { InvalidArgumentError } from '../../src/errors';

describe('parseOrderBy (ARD §7.4 orderBy)', () => {
  it('defaults to displayName and always ends with identifier, so the order is total', () => {
    expect(formatOrderBy(parseOrderBy(undefined))).toBe('displayName ASC, identifier ASC');
    expect(formatOrderBy(parseOrderBy('  '))).toBe('displayName ASC, identifier ASC');
    expect(formatOrderBy(parseOrderBy('updatedAt DESC'))).toBe('updatedAt DESC, identifier ASC');
  });

  it('reads several terms, directions in any case, and the spellings of the spec example', () => {
    expect(parseOrderBy('name, created_at desc')).toEqual([
      { field: 'displayName', direction: 'ASC' },
      { field: 'createdAt', direction: 'DESC' },
      { field: 'identifier', direction: 'ASC' },
    ]);
    expect(formatOrderBy(parseOrderBy('type Desc,publisher'))).toBe('type DESC, publisher ASC, identifier ASC');
  });

  it('keeps an explicit identifier (with its direction) and drops terms after it, which can never apply', () => {
    expect(formatOrderBy(parseOrderBy('identifier DESC'))).toBe('identifier DESC');
    expect(formatOrderBy(parseOrderBy('type, identifier DESC, version'))).toBe('type ASC, identifier DESC');
  });

  it.each([
    ['colour', /'colour' is not sortable/],
    ['displayname', /Did you mean 'displayName'/],
    ['updatedAt sideways', /ASC or DESC/],
    ['type ASC extra', /not 'field' or 'field ASC\|DESC'/],
    ['type,,version', /empty term/],
    ['type, type DESC', /'type' twice/],
    ['constructor', /'constructor'/],
    ['a,b,c,d,e,f,g,h', /at most/],
  ])('rejects %j with INVALID_ARGUMENT', (text, message) => {
    expect(() => parseOrderBy(text)).toThrow(InvalidArgumentError);
    expect(() => parseOrderBy(text)).toThrow(message);
  });
});
