// DNS discovery (ARD v0.9 §6.1, v0.91 §5.1): a publisher names its entry source in its own zone, at
// `_entries._agents.<domain>`, with SVCB records and, as the optional fallback, TXT records. The crawler
// reads them for a domain source whose well-known documents are absent (docs/ingestion.md, decision 0030).
//   SVCB (RFC 9460): ServiceMode records by priority; the target's origin (TargetName '.': the domain itself,
//     on the source's scheme and port), the `port` parameter, and the path in key65280 (ARD v0.9's
//     `well-known=` parameter, which has no registered key), default /.well-known/ard.json. AliasMode is followed.
//   TXT, read only when there is no SVCB record: each record that is an http(s) URL or an absolute path.
// The URL is fetched by the crawl client, whose resolver vets the address it connects to (SSRF policy,
// CRAWL_ALLOW_PRIVATE); SVCB address hints are not used, so no address reaches a socket unvetted.
import { isIP } from 'node:net';
import type { DnsClient, SvcbRecord } from '../outbound';

export const DNS_ENTRIES_LABEL = '_entries._agents';
/** SvcParamKey of the path (RFC 9460 §14.3.2 private use): ARD v0.9's `well-known=/path` example. */
export const SVCB_PATH_KEY = 65280;
const SVCB_MANDATORY_KEY = 0;
const SVCB_ALPN_KEY = 1;
const SVCB_PORT_KEY = 3;
/** Keys a record may make mandatory that this reader honours (RFC 9460 §8: skip a record naming others). */
const UNDERSTOOD_KEYS = new Set([SVCB_ALPN_KEY, SVCB_PORT_KEY, SVCB_PATH_KEY]);
/** AliasMode hops followed (RFC 9460 §2.4.2 asks clients to bound the chain). */
const MAX_ALIAS_HOPS = 4;
const DEFAULT_PATH = '/.well-known/ard.json';

export interface DnsCandidate {
  url: string;
  via: 'dns-svcb' | 'dns-txt';
}

export interface DnsLookup {
  /** The name read (`_entries._agents.<domain>`). */
  name: string;
  candidates: DnsCandidate[];
  /** Records found but not usable, with why (reported when no catalog is found). */
  skipped: string[];
}

/** True when `hostname` is a name DNS discovery can be asked about (not an IP literal). */
export function hasDnsName(hostname: string): boolean {
  return isIP(hostname.replace(/^\[|\]$/g, '')) === 0 && hostname.includes('.');
}

/** The entry sources `origin`'s domain names in DNS: SVCB first, TXT only when no SVCB record exists. */
export async function lookupDnsCandidates(dns: DnsClient, origin: URL, signal?: AbortSignal): Promise<DnsLookup> {
  const name = `${DNS_ENTRIES_LABEL}.${origin.hostname}`;
  const skipped: string[] = [];
  const services = await serviceRecords(dns, name, skipped, signal);
  if (services.length > 0 || skipped.length > 0) {
    const candidates: DnsCandidate[] = [];
    for (const record of services) {
      const url = svcbUrl(record, origin, skipped);
      if (url) candidates.push({ url, via: 'dns-svcb' });
    }
    return { name, candidates, skipped };
  }
  const texts = [...new Set((await dns.txt(name, signal)).map((t) => t.trim()))].sort();
  const candidates: DnsCandidate[] = [];
  for (const text of texts) {
    const url = txtUrl(text, origin);
    if (url) candidates.push({ url, via: 'dns-txt' });
  }
  return { name, candidates, skipped };
}

/** ServiceMode records at `name`, AliasMode followed, ordered by priority then target. */
async function serviceRecords(dns: DnsClient, name: string, skipped: string[], signal?: AbortSignal): Promise<SvcbRecord[]> {
  let owner = name;
  for (let hop = 0; hop <= MAX_ALIAS_HOPS; hop++) {
    const records = await dns.svcb(owner, signal);
    const services = records.filter((r) => r.priority > 0);
    if (services.length > 0) {
      const ordered = services.sort((a, b) => a.priority - b.priority || a.target.localeCompare(b.target));
      return owner === name ? ordered : ordered.map((r) => (r.target === '.' ? { ...r, target: owner } : r));
    }
    const alias = records.find((r) => r.priority === 0);
    if (!alias) return [];
    // AliasMode to '.' says "no service here" (RFC 9460 §2.5.1).
    if (alias.target === '.') return [];
    owner = alias.target;
  }
  skipped.push(`${name}: more than ${MAX_ALIAS_HOPS} SVCB AliasMode hops`);
  return [];
}

function svcbUrl(record: SvcbRecord, origin: URL, skipped: string[]): string | null {
  const at = `SVCB ${record.priority} ${record.target}`;
  const mandatory = record.params.get(SVCB_MANDATORY_KEY);
  if (mandatory) {
    for (let i = 0; i + 1 < mandatory.length; i += 2) {
      const key = mandatory.readUInt16BE(i);
      if (!UNDERSTOOD_KEYS.has(key)) {
        skipped.push(`${at}: mandatory key${key} is not understood (RFC 9460 §8)`);
        return null;
      }
    }
  }
  const ownDomain = record.target === '.';
  const url = new URL(origin.href);
  url.hostname = ownDomain ? origin.hostname : record.target;
  if (!ownDomain) url.port = '';
  const port = record.params.get(SVCB_PORT_KEY);
  if (port) {
    if (port.length !== 2) {
      skipped.push(`${at}: the port parameter is not 2 bytes`);
      return null;
    }
    url.port = String(port.readUInt16BE(0));
  }
  const path = record.params.get(SVCB_PATH_KEY)?.toString('utf8') ?? DEFAULT_PATH;
  if (!path.startsWith('/') || path.startsWith('//')) {
    skipped.push(`${at}: key${SVCB_PATH_KEY} '${path.slice(0, 100)}' is not an absolute path`);
    return null;
  }
  try {
    return new URL(path, url).href;
  } catch {
    skipped.push(`${at}: key${SVCB_PATH_KEY} '${path.slice(0, 100)}' does not make a URL`);
    return null;
  }
}

/** A TXT record naming a catalog: an http(s) URL, or an absolute path on the domain. Other TXT data is ignored. */
function txtUrl(text: string, origin: URL): string | null {
  const absolutePath = text.startsWith('/') && !text.startsWith('//');
  if (!absolutePath && !/^https?:\/\//i.test(text)) return null;
  try {
    const url = new URL(text, origin);
    url.hash = '';
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}
