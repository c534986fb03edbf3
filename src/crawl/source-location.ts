// What an operator may register as a source: a bare domain ("acme.com", discovery over https) or an
// http(s) URL (an origin: discovery on that origin; a path: that catalog or HTML page).
import { InvalidArgumentError } from '../errors';

export interface SourceLocation {
  /** Normalised text stored in sources.location. */
  location: string;
  /** The URL discovery starts from. */
  url: URL;
  /** true: discover the catalog on the origin (§6.1); false: fetch `url` itself. */
  discover: boolean;
}

const DOMAIN = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*(:\d{1,5})?$/i;

export function parseSourceLocation(input: string): SourceLocation {
  const text = input.trim();
  if (text === '') throw new InvalidArgumentError('location must be a domain (acme.com) or an http(s) URL');
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
    if (!DOMAIN.test(text)) throw new InvalidArgumentError(`location '${text}' is neither a domain name nor an http(s) URL`);
    const url = new URL(`https://${text.toLowerCase()}/`);
    if (url.port === '0') throw new InvalidArgumentError(`location '${text}' names port 0, which no server listens on`);
    return { location: url.host, url, discover: true };
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new InvalidArgumentError(`location '${text}' is not a valid URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new InvalidArgumentError(`location '${text}' must use http or https`);
  if (url.username || url.password) throw new InvalidArgumentError('location must not carry credentials');
  if (url.port === '0') throw new InvalidArgumentError(`location '${text}' names port 0, which no server listens on`);
  url.hash = '';
  const discover = url.pathname === '/' && url.search === '';
  return { location: url.toString(), url, discover };
}
