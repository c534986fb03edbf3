/**
 * DNS discovery's record reading (ARD v0.9 §6.1, v0.91 §5.1): SVCB RDATA (RFC 9460 §2.2), AliasMode,
 * the TXT fallback, and the resolver address setting. The crawl with a loopback responder is
 * test/integration/dns-discovery.test.ts.
 */
import { parseDnsServer } from '../../src/config';
import { lookupDnsCandidates } from '../../src/crawl/dns-discovery';
import { readSvcbData, type DnsClient, type SvcbRecord } from '../../src/outbound';
import { svcbRdata } from '../helpers/dns-responder';

function fakeDns(svcb: Record<string, SvcbRecord[]>, txt: Record<string, string[]> = {}): DnsClient & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    server: { host: '127.0.0.1', port: 53 },
    svcb: async (name) => (asked.push(`${name} SVCB`), svcb[name] ?? []),
    txt: async (name) => (asked.push(`${name} TXT`), txt[name] ?? []),
  };
}

const record = (priority: number, target: string, path?: string): SvcbRecord => readSvcbData(svcbRdata({ priority, target, path }), 'x');

describe('readSvcbData (RFC 9460 §2.2)', () => {
  it('reads priority, target and parameters', () => {
    const read = readSvcbData(svcbRdata({ priority: 3, target: 'cdn.acme.com', port: 8443, path: '/ard.json', mandatory: [3] }), 'o');
    expect(read.priority).toBe(3);
    expect(read.target).toBe('cdn.acme.com');
    expect([...read.params.keys()]).toEqual([0, 3, 65280]);
    expect(read.params.get(3)?.readUInt16BE(0)).toBe(8443);
    expect(read.params.get(65280)?.toString()).toBe('/ard.json');
    expect(readSvcbData(svcbRdata({ priority: 0, target: '.' }), 'o').target).toBe('.');
  });

  it('refuses a record that runs short, a compressed name, or keys out of order', () => {
    expect(() => readSvcbData(Buffer.from([0, 1]), 'o')).toThrow('shorter than its fixed fields');
    expect(() => readSvcbData(Buffer.from([0, 1, 5, 0x61]), 'o')).toThrow('TargetName runs past the record');
    expect(() => readSvcbData(Buffer.from([0, 1, 0xc0, 0x0c]), 'o')).toThrow('compressed');
    const outOfOrder = Buffer.from([0, 1, 0, 0, 3, 0, 2, 1, 187, 0, 1, 0, 0]);
    expect(() => readSvcbData(outOfOrder, 'o')).toThrow('not in increasing order');
  });
});

describe('lookupDnsCandidates', () => {
  const origin = new URL('https://acme.com/');

  it('follows AliasMode to the records of the alias target, its "." being the alias name', async () => {
    const dns = fakeDns({
      '_entries._agents.acme.com': [record(0, 'entries.hosting.net')],
      'entries.hosting.net': [record(1, '.', '/acme/ard.json')],
    });
    const lookup = await lookupDnsCandidates(dns, origin);
    expect(lookup.candidates).toEqual([{ url: 'https://entries.hosting.net/acme/ard.json', via: 'dns-svcb' }]);
    expect(dns.asked).not.toContain('_entries._agents.acme.com TXT');
  });

  it('reads the default path /.well-known/ard.json on the target, and TXT only without SVCB', async () => {
    expect((await lookupDnsCandidates(fakeDns({ '_entries._agents.acme.com': [record(1, 'cdn.acme.com')] }), origin)).candidates).toEqual([
      { url: 'https://cdn.acme.com/.well-known/ard.json', via: 'dns-svcb' },
    ]);
    const txt = await lookupDnsCandidates(
      fakeDns({}, { '_entries._agents.acme.com': ['/entries.json', 'not a url', 'ftp://x/y'] }),
      origin,
    );
    expect(txt.candidates).toEqual([{ url: 'https://acme.com/entries.json', via: 'dns-txt' }]);
  });

  it('stops at AliasMode to "." and after too many alias hops', async () => {
    expect((await lookupDnsCandidates(fakeDns({ '_entries._agents.acme.com': [record(0, '.')] }), origin)).candidates).toEqual([]);
    const loop = fakeDns({
      '_entries._agents.acme.com': [record(0, 'a.acme.com')],
      'a.acme.com': [record(0, '_entries._agents.acme.com')],
    });
    const looped = await lookupDnsCandidates(loop, origin);
    expect(looped.candidates).toEqual([]);
    expect(looped.skipped).toEqual(['_entries._agents.acme.com: more than 4 SVCB AliasMode hops']);
  });
});

describe('parseDnsServer (CRAWL_DNS_RESOLVER)', () => {
  it.each([
    ['10.0.0.53', { host: '10.0.0.53', port: 53 }],
    ['127.0.0.1:5353', { host: '127.0.0.1', port: 5353 }],
    ['[::1]:5353', { host: '::1', port: 5353 }],
    ['2001:db8::53', { host: '2001:db8::53', port: 53 }],
    ['dns.example.com:53', null],
    ['127.0.0.1:0', null],
    ['127.0.0.1:70000', null],
  ])('%s', (text, expected) => {
    expect(parseDnsServer(text)).toEqual(expected);
  });
});
