// What the server answers between opening its port and having its index ready (the database opening,
// migrations, the demo corpus loading on a first start): alive, not ready, and every route says so.
import type http from 'node:http';

/** Entries of the demo corpus indexed so far, and how many it has (0 of 0 before loading starts). */
export interface LoadingProgress {
  indexed: number;
  of: number;
}

/** Seconds a client is asked to wait before retrying while the index loads. */
export const LOADING_RETRY_AFTER_SECONDS = 5;

export function createLoadingHandler(progress: Readonly<LoadingProgress>): http.RequestListener {
  return (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/healthz') return send(res, 200, { status: 'ok' });
    if (path === '/readyz') return send(res, 503, { status: 'loading', indexed: progress.indexed, of: progress.of });
    const done = progress.of > 0 ? ` (${progress.indexed} of ${progress.of} entries indexed)` : '';
    res.setHeader('Retry-After', String(LOADING_RETRY_AFTER_SECONDS));
    send(res, 503, {
      errorCode: 'UNAVAILABLE',
      message: `the registry is starting: its index is loading${done}; retry in ${LOADING_RETRY_AFTER_SECONDS} s`,
    });
  };
}

function send(res: http.ServerResponse, status: number, body: unknown): void {
  // Drain the request body so keep-alive connections stay usable.
  res.req.resume();
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}
