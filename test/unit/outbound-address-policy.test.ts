import type { LookupAddress, LookupOptions } from 'node:dns';
import {
  BlockedAddressError,
  OutboundError,
  classifyAddress,
  createAddressPolicy,
  createVettingLookup,
  isLocalHostname,
  parseIp,
  resolveAndVet,
} from '../../src/outbound';
import type { BlockReason, Resolver } from '../../src/outbound';

describe('classifyAddress', () => {
  it.each<[string, BlockReason]>([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['169.254.0.1', 'link-local'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.255', 'cgnat'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['192.0.2.10', 'documentation'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.9', 'documentation'],
    ['198.18.0.1', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['fc00::1', 'private'],
    ['fd12:3456:789a::1', 'private'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf::1', 'link-local'],
    ['fec0::1', 'private'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'documentation'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['0:0:0:0:0:ffff:7f00:0001', 'loopback'],
    ['::ffff:10.1.2.3', 'private'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['::ffff:a9fe:a9fe', 'link-local'],
    ['::ffff:192.168.0.1', 'private'],
    ['::ffff:100.64.0.1', 'cgnat'],
    ['::ffff:0.0.0.0', 'unspecified'],
    ['::ffff:255.255.255.255', 'broadcast'],
    ['::ffff:224.0.0.1', 'multicast'],
    ['::127.0.0.1', 'loopback'],
    ['::8.8.8.8', 'reserved'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['64:ff9b::a9fe:a9fe', 'link-local'],
    ['2002:7f00:1::', 'loopback'],
    ['2002:c0a8:101::1', 'private'],
    ['[::1]', 'loopback'],
    ['100::1', 'reserved'],
    ['3fff::1', 'documentation'], // RFC 9637
    ['2001:2::1', 'reserved'], // benchmarking
    ['2001:20::1', 'reserved'], // ORCHIDv2
    ['5f00::1', 'reserved'], // SRv6 SIDs
    ['192.175.48.1', 'reserved'], // AS112 anycast: no web host
    ['192.52.193.1', 'reserved'], // AMT relay anycast
  ])('%s is %s', (address, reason) => {
    expect(classifyAddress(address)).toBe(reason);
  });

  it.each([
    '93.184.216.34',
    '8.8.8.8',
    '1.1.1.1',
    '172.32.0.1',
    '172.15.255.255',
    '100.128.0.1',
    '169.253.255.255',
    '192.169.0.1',
    '11.0.0.1',
    '2606:4700:4700::1111',
    '2a00:1450:4001:80b::200e',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
  ])('%s is public', (address) => {
    expect(classifyAddress(address)).toBeNull();
  });

  it('refuses to classify a hostname', () => {
    expect(() => classifyAddress('example.com')).toThrow(TypeError);
  });
});

describe('parseIp', () => {
  it('expands IPv6 shorthand and embedded IPv4', () => {
    expect(Array.from(parseIp('::ffff:1.2.3.4')!.bytes)).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 255, 255, 1, 2, 3, 4]);
    expect(Array.from(parseIp('2001:db8::ff00:42:8329')!.bytes.slice(10))).toEqual([0xff, 0, 0, 0x42, 0x83, 0x29]);
    expect(parseIp('1.2.3.4')!.family).toBe(4);
    expect(parseIp('example.com')).toBeNull();
    expect(parseIp('1.2.3')).toBeNull();
  });
});

describe('isLocalHostname', () => {
  it.each(['localhost', 'LOCALHOST', 'localhost.', 'api.localhost', 'localhost.localdomain', 'ip6-localhost'])('%s is local', (name) =>
    expect(isLocalHostname(name)).toBe(true),
  );
  it.each(['example.com', 'localhost.example.com', 'notlocalhost'])('%s is not local', (name) => expect(isLocalHostname(name)).toBe(false));
});

describe('createAddressPolicy', () => {
  it('blocks non-public addresses and local hostnames by default', () => {
    const policy = createAddressPolicy();
    expect(policy.allowPrivateAddresses).toBe(false);
    expect(policy.checkAddress('127.0.0.1')).toBe('loopback');
    expect(policy.checkAddress('::ffff:127.0.0.1')).toBe('loopback');
    expect(policy.checkAddress('8.8.8.8')).toBeNull();
    expect(policy.checkAddress('not-an-ip')).toBe('reserved');
    expect(policy.checkHostname('localhost')).toBe('local-hostname');
    expect(policy.checkHostname('example.com')).toBeNull();
  });

  it('permits everything when allowPrivateAddresses is set', () => {
    const policy = createAddressPolicy({ allowPrivateAddresses: true });
    expect(policy.checkAddress('127.0.0.1')).toBeNull();
    expect(policy.checkAddress('169.254.169.254')).toBeNull();
    expect(policy.checkHostname('localhost')).toBeNull();
  });

  it('permits allow-listed CIDRs only, including their IPv4-mapped forms', () => {
    const policy = createAddressPolicy({ allow: ['10.20.0.0/16', '127.0.0.1', 'fd00:1::/32'] });
    expect(policy.checkAddress('10.20.3.4')).toBeNull();
    expect(policy.checkAddress('::ffff:10.20.3.4')).toBeNull();
    expect(policy.checkAddress('10.21.0.1')).toBe('private');
    expect(policy.checkAddress('127.0.0.1')).toBeNull();
    expect(policy.checkAddress('127.0.0.2')).toBe('loopback');
    expect(policy.checkAddress('fd00:1:2::3')).toBeNull();
    expect(policy.checkAddress('fd00:2::3')).toBe('private');
  });

  it('rejects a malformed allow list', () => {
    expect(() => createAddressPolicy({ allow: ['10.0.0.0/33'] })).toThrow(TypeError);
    expect(() => createAddressPolicy({ allow: ['intranet'] })).toThrow(TypeError);
  });
});

function fakeResolver(answers: Record<string, string[]>): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const resolve = async (hostname: string) => {
    calls.push(hostname);
    const list = answers[hostname];
    if (!list) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return list.map((address) => ({ address, family: (address.includes(':') ? 6 : 4) as 4 | 6 }));
  };
  return Object.assign(resolve, { calls });
}

describe('resolveAndVet', () => {
  const policy = createAddressPolicy();
  const resolver = fakeResolver({
    'public.test': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
    'metadata.test': ['169.254.169.254'],
    'mixed.test': ['93.184.216.34', '10.0.0.5'],
    'mapped.test': ['::ffff:127.0.0.1'],
    'empty.test': [],
  });

  it('returns every address of a public name', async () => {
    await expect(resolveAndVet('public.test', policy, resolver)).resolves.toEqual([
      { address: '93.184.216.34', family: 4 },
      { address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 },
    ]);
  });

  it.each<[string, string, BlockReason]>([
    ['metadata.test', '169.254.169.254', 'link-local'],
    ['mixed.test', '10.0.0.5', 'private'],
    ['mapped.test', '::ffff:127.0.0.1', 'loopback'],
  ])('blocks %s because of %s', async (hostname, address, reason) => {
    const err = await resolveAndVet(hostname, policy, resolver).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BlockedAddressError);
    expect(err).toMatchObject({ code: 'BLOCKED_ADDRESS', hostname, address, reason });
  });

  it('blocks localhost before asking DNS', async () => {
    const before = resolver.calls.length;
    const err = await resolveAndVet('localhost', policy, resolver).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'BLOCKED_ADDRESS', reason: 'local-hostname' });
    expect(resolver.calls.length).toBe(before);
  });

  it('vets literal IPs without DNS', async () => {
    await expect(resolveAndVet('[::1]', policy, resolver)).rejects.toMatchObject({ reason: 'loopback' });
    await expect(resolveAndVet('8.8.8.8', policy, resolver)).resolves.toEqual([{ address: '8.8.8.8', family: 4 }]);
  });

  it('wraps DNS failures as NETWORK, keeping the cause', async () => {
    const err = await resolveAndVet('missing.test', policy, resolver).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutboundError);
    expect(err).toMatchObject({ code: 'NETWORK' });
    expect(((err as OutboundError).cause as NodeJS.ErrnoException).code).toBe('ENOTFOUND');
    await expect(resolveAndVet('empty.test', policy, resolver)).rejects.toMatchObject({ code: 'NETWORK' });
  });
});

describe('createVettingLookup (the hook handed to net.connect)', () => {
  type Result = { err: NodeJS.ErrnoException | null; address: string | LookupAddress[]; family?: number };
  function callLookup(lookup: ReturnType<typeof createVettingLookup>, hostname: string, options: LookupOptions): Promise<Result> {
    return new Promise((resolve) => lookup(hostname, options, (err, address, family) => resolve({ err, address, family })));
  }
  const resolver = fakeResolver({
    'dual.test': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
    'rebind.test': ['93.184.216.34', '127.0.0.1'],
    'v4only.test': ['93.184.216.34'],
  });
  const lookup = createVettingLookup(createAddressPolicy(), resolver);

  it('returns all vetted addresses when called with all: true (autoSelectFamily)', async () => {
    const r = await callLookup(lookup, 'dual.test', { all: true });
    expect(r.err).toBeNull();
    expect(r.address).toEqual([
      { address: '93.184.216.34', family: 4 },
      { address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 },
    ]);
  });

  it('returns one address for the single-address form and honours a family hint', async () => {
    expect(await callLookup(lookup, 'dual.test', {})).toEqual({ err: null, address: '93.184.216.34', family: 4 });
    expect(await callLookup(lookup, 'dual.test', { family: 6 })).toEqual({
      err: null,
      address: '2606:2800:220:1:248:1893:25c8:1946',
      family: 6,
    });
    const none = await callLookup(lookup, 'v4only.test', { family: 6 });
    expect(none.err).toMatchObject({ code: 'NETWORK' });
  });

  it('fails the connection when any answer is blocked, so rebinding cannot pick the private one', async () => {
    const r = await callLookup(lookup, 'rebind.test', { all: true });
    expect(r.err).toBeInstanceOf(BlockedAddressError);
    expect(r.err).toMatchObject({ address: '127.0.0.1', reason: 'loopback' });
  });

  it('resolves on every connection (no cached verdict that a later answer could bypass)', async () => {
    let answer = '93.184.216.34';
    const flipping: Resolver = async () => [{ address: answer, family: 4 }];
    const flipLookup = createVettingLookup(createAddressPolicy(), flipping);
    expect((await callLookup(flipLookup, 'flip.test', {})).err).toBeNull();
    answer = '169.254.169.254';
    expect((await callLookup(flipLookup, 'flip.test', {})).err).toMatchObject({ reason: 'link-local' });
  });
});
