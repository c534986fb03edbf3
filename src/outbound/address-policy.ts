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
import ipaddr from 'ipaddr.js';
import { BlockedAddressError, OutboundError } from './errors';
import type { BlockReason } from './errors';

export type { BlockReason } from './errors';

interface ParsedIp {
  family: 4 | 6;
  bytes: Uint8Array;
}

type IpAddress = ipaddr.IPv4 | ipaddr.IPv6;

/**
 * A literal IPv4 or IPv6 address (brackets and a `%zone` suffix tolerated), or null. Node's `isIP` decides
 * what is a literal, so the shorthands ipaddr.js also reads (`127.1`, `0x7f.0.0.1`) are not addresses here,
 * as they are not to net.connect (which resolves them through the vetting lookup instead).
 */
function parseAddress(input: string): IpAddress | null {
  let text = input.trim();
  if (text.startsWith('[') && text.endsWith(']')) text = text.slice(1, -1);
  const zone = text.indexOf('%');
  if (zone >= 0) text = text.slice(0, zone);
  const family = isIP(text);
  if (family === 0) return null;
  // ipaddr.js reads the deprecated IPv4-compatible `::a.b.c.d` as IPv4-mapped `::ffff:a.b.c.d`; the WHATWG URL
  // parser's hex form (`::808:808`) keeps the address the socket would be handed.
  if (family === 6 && text.includes('.')) text = new URL(`http://[${text}]`).hostname.slice(1, -1);
  return ipaddr.parse(text);
}

/** Parses a literal IPv4 or IPv6 address (brackets and a `%zone` suffix tolerated). */
export function parseIp(input: string): ParsedIp | null {
  const ip = parseAddress(input);
  return ip && { family: ip.kind() === 'ipv4' ? 4 : 6, bytes: Uint8Array.from(ip.toByteArray()) };
}

const cidr = (text: string): [IpAddress, number] => ipaddr.parseCIDR(text);

// ipaddr.js names the IANA special-purpose ranges (RFC 6890 and successors) and calls every other address
// 'unicast'. Every name but 'unicast' is refused (a name ipaddr.js adds later is refused as 'reserved');
// these tables only choose the reason reported.
const IPV4_REASONS: Readonly<Record<string, BlockReason>> = {
  unspecified: 'unspecified', // "this network": 0.0.0.0 reaches the local host on Linux
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link-local', // includes 169.254.169.254 cloud metadata
  loopback: 'loopback',
  carrierGradeNat: 'cgnat',
  private: 'private',
};
const IPV6_REASONS: Readonly<Record<string, BlockReason>> = {
  unspecified: 'unspecified',
  loopback: 'loopback',
  linkLocal: 'link-local',
  multicast: 'multicast',
  uniqueLocal: 'private',
  deprecatedSiteLocal: 'private',
};
/** Inside ipaddr.js's 'reserved': the documentation ranges (RFC 5737, RFC 3849, RFC 9637). */
const DOCUMENTATION = ['192.0.2.0/24', '198.51.100.0/24', '203.0.113.0/24', '2001:db8::/32', '3fff::/20'].map(cidr);
const NAT64_WELL_KNOWN = cidr('64:ff9b::/96');
/** Only 2000::/3 is allocated as global unicast; ipaddr.js calls the rest of the unlisted space 'unicast' too. */
const GLOBAL_UNICAST = cidr('2000::/3');

function inRange(ip: IpAddress, [network, bits]: [IpAddress, number]): boolean {
  return ip.kind() === network.kind() && ip.match(network, bits);
}

function labelReserved(ip: IpAddress): BlockReason {
  return DOCUMENTATION.some((range) => inRange(ip, range)) ? 'documentation' : 'reserved';
}

function classifyIpv4(ip: ipaddr.IPv4): BlockReason | null {
  const range = ip.range();
  if (range === 'unicast') return null;
  return IPV4_REASONS[range] ?? labelReserved(ip);
}

/** The IPv4 address in bytes `from`..`from + 4` of an IPv6 address. */
function embeddedIpv4(ip: ipaddr.IPv6, from: number): ipaddr.IPv4 {
  return new ipaddr.IPv4(ip.toByteArray().slice(from, from + 4));
}

function classifyIpv6(ip: ipaddr.IPv6): BlockReason | null {
  switch (ip.range()) {
    // ::ffff:a.b.c.d (IPv4-mapped): the kernel connects to the IPv4 address itself.
    case 'ipv4Mapped':
      return classifyIpv4(ip.toIPv4Address());
    // 64:ff9b::/96 NAT64 well-known prefix: judge the embedded IPv4 address; 64:ff9b:1::/48 is local-use.
    case 'rfc6052':
      return inRange(ip, NAT64_WELL_KNOWN) ? classifyIpv4(embeddedIpv4(ip, 12)) : 'private';
    case '6to4':
      return classifyIpv4(embeddedIpv4(ip, 2));
    case 'unicast':
      // ::a.b.c.d (deprecated IPv4-compatible) is never a legitimate public destination.
      if (ip.parts.slice(0, 6).every((part) => part === 0)) return classifyIpv4(embeddedIpv4(ip, 12)) ?? 'reserved';
      return inRange(ip, GLOBAL_UNICAST) ? null : 'reserved';
    default:
      // Teredo embeds an obfuscated IPv4 peer; discard-only, benchmarking, ORCHID, ... are no public hosts.
      return IPV6_REASONS[ip.range()] ?? labelReserved(ip);
  }
}

function classify(ip: IpAddress): BlockReason | null {
  return ip.kind() === 'ipv4' ? classifyIpv4(ip as ipaddr.IPv4) : classifyIpv6(ip as ipaddr.IPv6);
}

/**
 * Returns why `address` is not a public unicast address, or null when it is.
 * Throws for input that is not an IP literal (callers resolve names first).
 */
export function classifyAddress(address: string): BlockReason | null {
  const ip = parseAddress(address);
  if (!ip) throw new TypeError(`not an IP address: ${address}`);
  return classify(ip);
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

function parseAllowed(text: string): [IpAddress, number] {
  const [addr = '', bitsText] = text.split('/');
  const ip = parseAddress(addr);
  if (!ip) throw new TypeError(`invalid CIDR in allow list: ${text}`);
  const max = ip.kind() === 'ipv4' ? 32 : 128;
  const bits = bitsText === undefined ? max : Number(bitsText);
  if (!Number.isInteger(bits) || bits < 0 || bits > max) throw new TypeError(`invalid CIDR prefix in allow list: ${text}`);
  return [ip, bits];
}

/** IPv4-mapped IPv6 addresses are compared as the IPv4 address they stand for. */
function canonical(ip: IpAddress): IpAddress {
  return ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress() ? (ip as ipaddr.IPv6).toIPv4Address() : ip;
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
  const allow = (options.allow ?? []).map(parseAllowed);
  const isAllowListed = (ip: IpAddress): boolean => {
    const c = canonical(ip);
    return allow.some((range) => inRange(c, range));
  };
  return {
    allowPrivateAddresses,
    checkAddress(address) {
      if (allowPrivateAddresses) return null;
      const ip = parseAddress(address);
      if (!ip) return 'reserved';
      if (isAllowListed(ip)) return null;
      return classify(ip);
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
          callback(
            null,
            usable.map((a): LookupAddress => ({ address: a.address, family: a.family })),
          );
        } else {
          callback(null, usable[0]!.address, usable[0]!.family);
        }
      },
      (err: unknown) => callback(err as NodeJS.ErrnoException, '', 0),
    );
  };
}
