// A DNS responder on loopback UDP for DNS discovery tests: answers SVCB and TXT questions for the names
// given (dns-packet encodes the answers; SVCB RDATA is built here, dns-packet has no SVCB codec), NXDOMAIN
// for any other name, and can misbehave per name: stay silent, send garbage, an oversized or truncated answer.
import dgram from 'node:dgram';
import type { AddressInfo } from 'node:net';
import dnsPacket from 'dns-packet';

export interface SvcbSpec {
  priority: number;
  /** '.' or a host name. */
  target: string;
  port?: number;
  /** The path parameter (key65280). */
  path?: string;
  /** Keys listed in `mandatory` (key0). */
  mandatory?: number[];
}

/** `drop-first`: the first question for the name goes unanswered, later ones are answered. */
export type Misbehaviour = 'silent' | 'drop-first' | 'garbage' | 'oversized' | 'truncated' | 'servfail';

export interface DnsResponder {
  server: { host: string; port: number };
  svcb(name: string, records: SvcbSpec[]): void;
  txt(name: string, texts: string[]): void;
  misbehave(name: string, how: Misbehaviour | null): void;
  /** Every question as `<name> <SVCB|TXT|...>`, in order. */
  queries: string[];
  close(): Promise<void>;
}

const SVCB = 'UNKNOWN_64';

export function svcbRdata(spec: SvcbSpec): Buffer {
  const labels = spec.target === '.' ? [] : spec.target.split('.');
  const name = Buffer.concat([...labels.map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l, 'latin1')])), Buffer.from([0])]);
  const params: Array<[number, Buffer]> = [];
  if (spec.mandatory) {
    const value = Buffer.alloc(spec.mandatory.length * 2);
    spec.mandatory.forEach((k, i) => value.writeUInt16BE(k, i * 2));
    params.push([0, value]);
  }
  if (spec.port !== undefined) {
    const value = Buffer.alloc(2);
    value.writeUInt16BE(spec.port);
    params.push([3, value]);
  }
  if (spec.path !== undefined) params.push([65280, Buffer.from(spec.path, 'utf8')]);
  const head = Buffer.alloc(2);
  head.writeUInt16BE(spec.priority);
  return Buffer.concat([
    head,
    name,
    ...params.map(([key, value]) => {
      const kl = Buffer.alloc(4);
      kl.writeUInt16BE(key, 0);
      kl.writeUInt16BE(value.length, 2);
      return Buffer.concat([kl, value]);
    }),
  ]);
}

export async function startDnsResponder(): Promise<DnsResponder> {
  const svcbRecords = new Map<string, SvcbSpec[]>();
  const txtRecords = new Map<string, string[]>();
  const misbehaviour = new Map<string, Misbehaviour>();
  const queries: string[] = [];
  const socket = dgram.createSocket('udp4');

  socket.on('message', (message, from) => {
    let query: dnsPacket.DecodedPacket;
    try {
      query = dnsPacket.decode(message);
    } catch {
      return;
    }
    const question = query.questions?.[0];
    if (!question) return;
    const name = question.name.toLowerCase();
    const type = String(question.type);
    queries.push(`${name} ${type === SVCB ? 'SVCB' : type}`);
    const send = (buffer: Buffer) => socket.send(buffer, from.port, from.address);
    const how = misbehaviour.get(name);
    if (how === 'silent') return;
    if (how === 'drop-first') {
      misbehaviour.delete(name);
      return;
    }
    if (how === 'garbage') {
      const junk = Buffer.alloc(40, 0xff);
      message.copy(junk, 0, 0, 2);
      return send(junk);
    }
    const known = svcbRecords.has(name) || txtRecords.has(name) || how !== undefined;
    const answers: unknown[] = [];
    if (type === SVCB) {
      for (const spec of svcbRecords.get(name) ?? []) answers.push({ type: SVCB, name, ttl: 60, data: svcbRdata(spec) });
    } else if (type === 'TXT') {
      for (const text of txtRecords.get(name) ?? []) answers.push({ type: 'TXT', name, ttl: 60, data: chunk(text) });
    }
    if (how === 'oversized') {
      for (let i = 0; i < 40; i++) answers.push({ type: 'TXT', name, ttl: 60, data: chunk('x'.repeat(200)) });
    }
    let flags = dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE;
    if (how === 'truncated') flags |= dnsPacket.TRUNCATED_RESPONSE;
    const rcode = how === 'servfail' ? 2 : known ? 0 : 3;
    send(
      dnsPacket.encode({
        type: 'response',
        id: query.id,
        flags: flags | rcode,
        questions: [question],
        answers: answers as dnsPacket.Answer[],
      }),
    );
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const port = (socket.address() as AddressInfo).port;
  return {
    server: { host: '127.0.0.1', port },
    svcb: (name, records) => svcbRecords.set(name.toLowerCase(), records),
    txt: (name, texts) => txtRecords.set(name.toLowerCase(), texts),
    misbehave: (name, how) => (how === null ? misbehaviour.delete(name.toLowerCase()) : misbehaviour.set(name.toLowerCase(), how)),
    queries,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}

/** A TXT record's text as character-strings of at most 255 bytes (RFC 1035 §3.3.14). */
function chunk(text: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += 255) out.push(text.slice(i, i + 255));
  return out.length > 0 ? out : [''];
}
