// What request logs may say of a URL: its path and query, with the value of any parameter that could carry
// a credential replaced. Admin tokens travel in the Authorization header (never logged), but a client that
// puts one in the query string (`?token=...`, `?access_token=...`) must not have it written to the log.

const SECRET_PARAMETER = /token|secret|password|passwd|key|auth|credential|signature|sig$/i;

export const REDACTED = '[redacted]';

export function redactUrl(url: string): string {
  const at = url.indexOf('?');
  if (at < 0) return url;
  const query = url
    .slice(at + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq < 0) return pair;
      let name = pair.slice(0, eq);
      try {
        name = decodeURIComponent(name.replace(/\+/g, ' '));
      } catch {
        // A broken escape: match the name as sent.
      }
      return SECRET_PARAMETER.test(name) ? `${pair.slice(0, eq)}=${REDACTED}` : pair;
    })
    .join('&');
  return `${url.slice(0, at)}?${query}`;
}
