import express from 'express';
import type { AddressInfo } from 'node:net';
import type http from 'node:http';
import { requireAdminToken } from '../../src/http/admin-auth';
import { ApiError } from '../../src/errors';

async function serve(adminToken: string | null): Promise<{ url: string; server: http.Server }> {
  const app = express();
  app.get('/admin/ping', requireAdminToken({ adminToken }), (_req, res) => {
    res.json({ ok: true });
  });
  app.use((error: ApiError, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    res.status(error.status).json({ errorCode: error.errorCode, message: error.message });
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('requireAdminToken', () => {
  let withToken: { url: string; server: http.Server };
  let withoutToken: { url: string; server: http.Server };
  beforeAll(async () => {
    withToken = await serve('s3cret-token');
    withoutToken = await serve(null);
  });
  afterAll(() => {
    withToken.server.close();
    withoutToken.server.close();
  });

  const call = (base: string, authorization?: string) =>
    fetch(`${base}/admin/ping`, { headers: authorization ? { authorization } : {} }).then(async (r) => ({
      status: r.status,
      body: (await r.json()) as { errorCode: string; message: string },
    }));

  it('lets the right bearer token through', async () => {
    expect(await call(withToken.url, 'Bearer s3cret-token')).toEqual({ status: 200, body: { ok: true } });
  });

  it('answers 401 UNAUTHENTICATED without, with a malformed, a wrong, a prefix or a longer token', async () => {
    for (const header of [
      undefined,
      's3cret-token',
      'Basic s3cret-token',
      'Bearer s3cret',
      'Bearer s3cret-token-and-more',
      'Bearer S3CRET-TOKEN',
    ]) {
      const res = await call(withToken.url, header);
      expect(res.status).toBe(401);
      expect(res.body.errorCode).toBe('UNAUTHENTICATED');
    }
  });

  it('answers 401 for every token when no ADMIN_TOKEN is configured', async () => {
    const res = await call(withoutToken.url, 'Bearer anything');
    expect(res).toEqual({ status: 401, body: { errorCode: 'UNAUTHENTICATED', message: expect.stringContaining('no ADMIN_TOKEN') } });
  });
});
