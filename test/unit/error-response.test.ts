import createError from 'http-errors';
import { ServiceUnavailableError } from '../../src/errors';
import { toErrorResponse } from '../../src/http/error-response';
import { redactUrl } from '../../src/http/log-redaction';
import { createLogger } from '../../src/logger';

const logger = createLogger('silent');

describe('toErrorResponse', () => {
  it('gives every 503 a Retry-After (the request deadline, /readyz, a crawl already running)', () => {
    expect(toErrorResponse(new ServiceUnavailableError('not ready: the database is unreachable'), 'r1', logger)).toMatchObject({
      status: 503,
      headers: { 'Retry-After': '5' },
    });
    expect(toErrorResponse(new ServiceUnavailableError('later', 30), 'r1', logger).headers).toEqual({ 'Retry-After': '30' });
  });

  it('keeps the 4xx status of express and body-parser errors, in the ARD shape, saying what was wrong', () => {
    const zlib = Object.assign(new Error('incorrect header check'), { code: 'Z_DATA_ERROR' });
    expect(toErrorResponse(createError(400, zlib), 'r', logger)).toEqual({
      status: 400,
      headers: {},
      body: { errorCode: 'INVALID_ARGUMENT', message: 'the request body is not encoded as its Content-Encoding says' },
    });
    const decode = Object.assign(new URIError("Failed to decode param '%ff'"), { status: 400 });
    expect(toErrorResponse(decode, 'r', logger).body).toEqual({
      errorCode: 'INVALID_ARGUMENT',
      message: 'the request path is not valid UTF-8 percent-encoding',
    });
    expect(
      toErrorResponse(createError(415, 'unsupported content encoding "zz"', { type: 'encoding.unsupported' }), 'r', logger),
    ).toMatchObject({ status: 415 });
    expect(toErrorResponse(createError(404, 'nothing here'), 'r', logger).body).toEqual({
      errorCode: 'NOT_FOUND',
      message: 'nothing here',
    });
  });

  it('still answers 500 naming only the request id for anything else', () => {
    expect(toErrorResponse(new Error('secret internals'), 'req-9', logger)).toMatchObject({
      status: 500,
      body: { errorCode: 'INTERNAL_ERROR', message: expect.stringContaining('req-9') },
    });
    expect(toErrorResponse(Object.assign(new Error('x'), { status: 502 }), 'req-9', logger).status).toBe(500);
  });
});

describe('redactUrl', () => {
  it.each([
    ['/admin/sources?token=abc&pageSize=3', '/admin/sources?token=[redacted]&pageSize=3'],
    [
      '/x?access_token=a&api_key=b&Authorization=c&secret=d&password=e',
      '/x?access_token=[redacted]&api_key=[redacted]&Authorization=[redacted]&secret=[redacted]&password=[redacted]',
    ],
    ['/agents?filter=tags%3Aa&orderBy=identifier', '/agents?filter=tags%3Aa&orderBy=identifier'],
    ['/x?%74oken=a', '/x?%74oken=[redacted]'],
    ['/healthz', '/healthz'],
  ])('%s -> %s', (url, expected) => {
    expect(redactUrl(url)).toBe(expected);
  });
});
