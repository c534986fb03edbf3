/**
 * SSRF guard: which IP addresses the registry may connect to, and a DNS lookup hook
 * that vets every resolved address before the socket is opened.
 *
 * The check runs on the address the socket actually connects to (the lookup below is
 * handed to undici's connector, i.e. to net.connect/tls.connect), so a DNS answer that
 * changes between a "check" and the "connect" (DNS rebinding) cannot slip through:
 * there is only one resolution, and it is the one that is vetted.
 */
import { promises as dnsPromises } from 'node:dns';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import type { LookupFunction } from 'node:net';
import { BlockedAddressError, OutboundError } from './errors';
import type { BlockReason } from './errors';

export type { BlockReason } from './errors';

interface ParsedIp {
  family: 4 | 6;
  bytes: Uint8Array;
}

/** Parses a literal IPv4 or IPv6 address (brackets and a `%zone` suffix tolerated). */
export function parseIp(input: string): ParsedIp | null {
  let text = input.trim();
  if (text.startsWith('[') && text.endsWith(']')) text = text.slice(1, -1);
  const zone = text.indexOf('%');
  if (zone >= 0) text = text.slice(0, zone);
  const family = isIP(text);
  if (family === 4) return { family: 4, bytes: parseIpv4(text) };
  if (family === 6) return { family: 6, bytes: parseIpv6(text) };
  return null;
}

function parseIpv4(text: string): Uint8Array {
  return Uint8Array.from(text.split('.').map((part) => Number(part)));
}

function parseIpv6(text: string): Uint8Array {
  const bytes = new Uint8Array(16);
  let head = text;
  let tail = '';
  const gap = text.indexOf('::');
  if (gap >= 0) {
    head = text.slice(0, gap);
    tail = text.slice(gap + 2);
  }
  const toWords = (part: string): number[] => {
    if (part === '') return [];
    const words: number[] = [];
    for (const piece of part.split(':')) {
      if (piece.includes('.')) {
        const v4 = parseIpv4(piece);
        words.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!);
      } else {
        words.push(parseInt(piece, 16));
      }
    }
    return words;
  };
  const headWords = toWords(head);
  const tailWords = toWords(tail);
  const words = [...headWords, ...new Array<number>(8 - headWords.length - tailWords.length).fill(0), ...tailWords];
  words.forEach((word, i) => {
    bytes[2 * i] = word >> 8;
    bytes[2 * i + 1] = word & 0xff;
  });
  return bytes;
}

function inPrefix(bytes: Uint8Array, prefix: readonly number[], bits: number): boolean {
  for (let i = 0; i < bits; i++) {
    const byte = i >> 3;
    const mask = 0x80 >> (i & 7);
    if ((bytes[byte]! & mask) !== ((prefix[byte] ?? 0) & mask)) return false;
  }
  return true;
}

interface Range {
  prefix: readonly number[];
  bits: number;
  reason: BlockReason;
}

// IANA special-purpose registries (RFC 6890 and successors). Order matters only for
// the label reported; every listed range is refused.
const IPV4_BLOCKED: readonly Range[] = [
  { prefix: [0], bits: 8, reason: 'unspecified' }, // "this network", 0.0.0.0 reaches the local host on Linux
  { prefix: [10], bits: 8, reason: 'private' },
  { prefix: [100, 64], bits: 10, reason: 'cgnat' },
  { prefix: [127], bits: 8, reason: 'loopback' },
  { prefix: [169, 254], bits: 16, reason: 'link-local' }, // includes 169.254.169.254 cloud metadata
  { prefix: [172, 16], bits: 12, reason: 'private' },
  { prefix: [192, 0, 0], bits: 24, reason: 'reserved' }, // IETF protocol assignments
  { prefix: [192, 0, 2], bits: 24, reason: 'documentation' },
  { prefix: [192, 88, 99], bits: 24, reason: 'reserved' }, // deprecated 6to4 relay anycast
  { prefix: [192, 168], bits: 16, reason: 'private' },
  { prefix: [198, 18], bits: 15, reason: 'reserved' }, // benchmarking
  { prefix: [198, 51, 100], bits: 24, reason: 'documentation' },
  { prefix: [203, 0, 113], bits: 24, reason: 'documentation' },
  { prefix: [224], bits: 4, reason: 'multicast' },
  { prefix: [255, 255, 255, 255], bits: 32, reason: 'broadcast' },
  { prefix: [240], bits: 4, reason: 'reserved' },
];

function classifyIpv4(bytes: Uint8Array): BlockReason | null {
  for (const range of IPV4_BLOCKED) {
    if (inPrefix(bytes, range.prefix, range.bits)) return range.reason;
  }
  return null;
}

function classifyIpv6(bytes: Uint8Array): BlockReason | null {
  if (bytes.every((b) => b === 0)) return 'unspecified';
  if (bytes.slice(0, 15).every((b) => b === 0) && bytes[15] === 1) return 'loopback';
  // ::ffff:a.b.c.d (IPv4-mapped): the kernel connects to the IPv4 address itself.
  if (inPrefix(bytes, [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff], 96)) return classifyIpv4(bytes.slice(12));
  // ::a.b.c.d (deprecated IPv4-compatible) is never a legitimate public destination.
  if (inPrefix(bytes, [], 96)) return classifyIpv4(bytes.slice(12)) ?? 'reserved';
  // 64:ff9b::/96 NAT64 well-known prefix: judge the embedded IPv4 address.
  if (inPrefix(bytes, [0, 0x64, 0xff, 0x9b], 96)) return classifyIpv4(bytes.slice(12));
  if (inPrefix(bytes, [0, 0x64, 0xff, 0x9b, 0, 1], 48)) return 'private'; // local-use NAT64
  if (inPrefix(bytes, [0x01, 0x00], 64)) return 'reserved'; // discard-only
  if (inPrefix(bytes, [0x20, 0x01, 0x0d, 0xb8], 32)) return 'documentation';
  if (inPrefix(bytes, [0x20, 0x01, 0, 0], 32)) return 'reserved'; // Teredo: embeds an obfuscated IPv4 peer
  if (inPrefix(bytes, [0x20, 0x02], 16)) return classifyIpv4(bytes.slice(2, 6)); // 6to4 embeds IPv4
  if (inPrefix(bytes, [0xfc], 7)) return 'private'; // unique local
  if (inPrefix(bytes, [0xfe, 0x80], 10)) return 'link-local';
  if (inPrefix(bytes, [0xfe, 0xc0], 10)) return 'private'; // deprecated site-local
  if (inPrefix(bytes, [0xff], 8)) return 'multicast';
  // Only 2000::/3 is allocated as global unicast; everything else is not a public host.
  if (!inPrefix(bytes, [0x20], 3)) return 'reserved';
  return null;
}

/**
 * Returns why `address` is not a public unicast address, or null when it is.
 * Throws for input that is not an IP literal (callers resolve names first).
 */
export function classifyAddress(address: string): BlockReason | null {
  const ip = parseIp(address);
  if (!ip) throw new TypeError(`not an IP address: ${address}`);
  return ip.family === 4 ? classifyIpv4(ip.bytes) : classifyIpv6(ip.bytes);
}

/** Hostnames that name the local machine without DNS (RFC 6761 §6.3 reserves `.localhost`). */
export function isLocalHostname(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.+$/, '');
  return (
    name === 'localhost' ||
    name.endsWith('.localhost') ||
    name === 'localhost.localdomain' ||
    name === 'ip6-localhost' ||
    name === 'ip6-loopback'
  );
}

interface Cidr {
  family: 4 | 6;
  bytes: Uint8Array;
  bits: number;
}

function parseCidr(text: string): Cidr {
  const [addr = '', bitsText] = text.split('/');
  const ip = parseIp(addr);
  if (!ip) throw new TypeError(`invalid CIDR in allow list: ${text}`);
  const max = ip.family === 4 ? 32 : 128;
  const bits = bitsText === undefined ? max : Number(bitsText);
  if (!Number.isInteger(bits) || bits < 0 || bits > max) throw new TypeError(`invalid CIDR prefix in allow list: ${text}`);
  return { family: ip.family, bytes: ip.bytes, bits };
}

/** IPv4-mapped IPv6 addresses are compared as the IPv4 address they stand for. */
function canonical(ip: ParsedIp): ParsedIp {
  if (ip.family === 6 && inPrefix(ip.bytes, [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff], 96)) {
    return { family: 4, bytes: ip.bytes.slice(12) };
  }
  return ip;
}

export interface AddressPolicyOptions {
  /** Permit every address (loopback, private, ...). Development and tests only: CRAWL_ALLOW_PRIVATE=true. */
  allowPrivateAddresses?: boolean;
  /** Addresses or CIDRs permitted even though they are not public (e.g. an internal peer registry). */
  allow?: readonly string[];
}

export interface AddressPolicy {
  readonly allowPrivateAddresses: boolean;
  /** Why the address must not be contacted, or null if it may. */
  checkAddress(address: string): BlockReason | null;
  /** Refusal decided from the name alone (before DNS), or null. */
  checkHostname(hostname: string): BlockReason | null;
}

export function createAddressPolicy(options: AddressPolicyOptions = {}): AddressPolicy {
  const allowPrivateAddresses = options.allowPrivateAddresses ?? false;
  const allow = (options.allow ?? []).map(parseCidr);
  const isAllowListed = (ip: ParsedIp): boolean => {
    const c = canonical(ip);
    return allow.some((cidr) => cidr.family === c.family && inPrefix(c.bytes, Array.from(cidr.bytes), cidr.bits));
  };
  return {
    allowPrivateAddresses,
    checkAddress(address) {
      if (allowPrivateAddresses) return null;
      const ip = parseIp(address);
      if (!ip) return 'reserved';
      if (isAllowListed(ip)) return null;
      return ip.family === 4 ? classifyIpv4(ip.bytes) : classifyIpv6(ip.bytes);
    },
    checkHostname(hostname) {
      if (allowPrivateAddresses) return null;
      return isLocalHostname(hostname) ? 'local-hostname' : null;
    },
  };
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Name resolution hook: returns every address of a hostname. Injected in tests. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** getaddrinfo (honours /etc/hosts), every address, in the system's order. */
export const systemResolver: Resolver = async (hostname) => {
  const answers = await dnsPromises.lookup(hostname, { all: true, verbatim: true });
  return answers.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

/**
 * Resolves `hostname`, refuses it if ANY of its addresses is blocked (a name that
 * mixes public and private answers is a rebinding setup, not a real site), and
 * returns the vetted list.
 */
export async function resolveAndVet(
  hostname: string,
  policy: AddressPolicy,
  resolver: Resolver = systemResolver,
): Promise<ResolvedAddress[]> {
  const bare = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  const byName = policy.checkHostname(bare);
  if (byName) throw new BlockedAddressError(bare, '', byName);
  let addresses: ResolvedAddress[];
  if (isIP(bare)) {
    addresses = [{ address: bare, family: isIP(bare) === 6 ? 6 : 4 }];
  } else {
    try {
      addresses = await resolver(bare);
    } catch (err) {
      throw new OutboundError('NETWORK', `DNS lookup failed for ${bare}`, { cause: err });
    }
    if (addresses.length === 0) throw new OutboundError('NETWORK', `DNS lookup returned no address for ${bare}`);
  }
  for (const { address } of addresses) {
    const reason = policy.checkAddress(address);
    if (reason) throw new BlockedAddressError(bare, address, reason);
  }
  return addresses;
}

/**
 * A `lookup` for net.connect / tls.connect (undici `connect.lookup`): the socket
 * connects to one of the addresses this function vetted, and to nothing else.
 * Handles both call shapes Node uses (`all: true` under autoSelectFamily, and the
 * single-address form), and honours a `family` hint after vetting every answer.
 */
export function createVettingLookup(policy: AddressPolicy, resolver: Resolver = systemResolver): LookupFunction {
  return (hostname: string, options: LookupOptions, callback) => {
    resolveAndVet(hostname, policy, resolver).then(
      (vetted) => {
        const wanted = options.family === 4 || options.family === 6 ? options.family : 0;
        const usable = wanted ? vetted.filter((a) => a.family === wanted) : vetted;
        if (usable.length === 0) {
          callback(new OutboundError('NETWORK', `DNS lookup found no IPv${wanted} address for ${hostname}`), '', 0);
          return;
        }
        if (options.all) {
          callback(null, usable.map((a): LookupAddress => ({ address: a.address, family: a.family })));
        } else {
          callback(null, usable[0]!.address, usable[0]!.family);
        }
      },
      (err: unknown) => callback(err as NodeJS.ErrnoException, '', 0),
    );
  };
}
