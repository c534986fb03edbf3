import type { ErrorObject } from 'ajv';
import { describeValidationErrors } from '../../src/http/validation-message';

function error(instancePath: string, keyword: string, params: Record<string, unknown>, extra: Partial<ErrorObject> = {}): ErrorObject {
  return { instancePath, keyword, params, schemaPath: `#/${keyword}`, ...extra } as ErrorObject;
}

describe('describeValidationErrors', () => {
  it('says something when there are no details', () => {
    expect(describeValidationErrors(null)).toBe('the request is invalid');
    expect(describeValidationErrors([])).toBe('the request is invalid');
  });

  it('names a missing required field', () => {
    expect(describeValidationErrors([error('/requestBody/query', 'required', { missingProperty: 'text' })])).toBe(
      "query is missing the required field 'text'",
    );
    expect(describeValidationErrors([error('/requestBody', 'required', { missingProperty: 'query' })])).toBe(
      "the request body is missing the required field 'query'",
    );
  });

  it('names an unknown field', () => {
    expect(describeValidationErrors([error('/requestBody', 'additionalProperties', { additionalProperty: 'colour' })])).toBe(
      "the request body has an unknown field 'colour'",
    );
  });

  it('names the expected type and the allowed values', () => {
    expect(describeValidationErrors([error('/requestBody/pageSize', 'type', { type: 'integer' })])).toBe('pageSize must be an integer');
    expect(describeValidationErrors([error('/requestBody/federation', 'enum', { allowedValues: ['auto', 'referrals', 'none'] })])).toBe(
      "federation must be one of 'auto', 'referrals', 'none'",
    );
  });

  it('merges oneOf type alternatives into one message', () => {
    const errors = [
      error('/requestBody/query/filter/tags', 'type', { type: 'string' }, { schemaPath: '#/oneOf/0/type' }),
      error('/requestBody/query/filter/tags', 'type', { type: 'array' }, { schemaPath: '#/oneOf/1/type' }),
      error('/requestBody/query/filter/tags', 'oneOf', {}, { schemaPath: '#/oneOf' }),
    ];
    expect(describeValidationErrors(errors)).toBe('query.filter.tags must be a string or an array of strings');
  });

  it('names query parameters and joins several problems', () => {
    const errors = [
      error('/query/pageSize', 'maximum', {}, { message: 'must be <= 100' }),
      error('/requestBody', 'additionalProperties', { additionalProperty: 'x' }),
    ];
    expect(describeValidationErrors(errors)).toBe("query parameter 'pageSize' must be <= 100; the request body has an unknown field 'x'");
  });
});
