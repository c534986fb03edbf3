/**
 * DNS queries of the crawler's discovery (ARD v0.9 §6.1, v0.91 §5.1): SVCB (RFC 9460, type 64) and TXT.
 * node:dns resolves TXT but has no SVCB query, so each query is one UDP datagram (node:dgram) encoded and
 * decoded by dns-packet, the codec most DNS tooling on npm uses. dns-packet 5 has no SVCB codec and hands
 * its RDATA over as bytes: readSvcbData reads them (RFC 9460 §2.2, a few lines). Every attempt has a
 * deadline; an answer is taken only from the server asked, with the query's id and question; EDNS(0)
 * advertises DNS_MAX_ANSWER_BYTES and a larger answer is refused, as is a truncated one (TCP is not used).
 */
import { randomInt } from 'node:crypto';
import dgram from 'node:dgram';
import { getServers } from 'node:dns';
import { isIP } from 'node:net';
import dnsPacket from 'dns-packet';
import { parseDnsServer, type DnsServer } from '../config';
import { OutboundError, type OutboundErrorCode } from './errors';

/** Largest DNS answer accepted, in bytes: the EDNS(0) size of DNS flag day 2020 is 1232; SVCB sets with ECH keys reach ~1 kB. */
export const DNS_MAX_ANSWER_BYTES = 4096;
const SVCB_TYPE = 64;
const SVCB_TYPE_NAME = `UNKNOWN_${SVCB_TYPE}`;

export interface DnsClientOptions {
  /** The resolver asked; null: the system's first (node:dns getServers, from /etc/resolv.conf). */
  server: DnsServer | null;
  /** Deadline of one attempt, in ms. */
  timeoutMs: number;
  /** Attempts per query (a lost datagram is retried; an answer, even an error, is final). */
  tries: number;
  maxAnswerBytes?: number;
}

/** One SVCB record (RFC 9460 §2.2): priority 0 is AliasMode; `target` '.' means the owner name. */
export interface SvcbRecord {
  priority: number;
  target: string;
  /** SvcParamKey -> value bytes (1 alpn, 3 port, 0 mandatory, ...). */
  params: Map<number, Buffer>;
}

export interface DnsClient {
  readonly server: DnsServer;
  /** The SVCB records at `name`; [] when the name or the type does not exist (NXDOMAIN, NODATA). */
  svcb(name: string, signal?: AbortSignal): Promise<SvcbRecord[]>;
  /** The TXT records at `name`, each record's strings joined (RFC 7208 §3.3); [] when there are none. */
  txt(name: string, signal?: AbortSignal): Promise<string[]>;
}

export class DnsQueryError extends OutboundError {
  override readonly name = 'DnsQueryError';
  constructor(code: OutboundErrorCode, message: string, cause?: unknown) {
    super(code, message, { cause });
  }
}

export function createDnsClient(options: DnsClientOptions): DnsClient {
  const server = options.server ?? systemDnsServer();
  const maxBytes = options.maxAnswerBytes ?? DNS_MAX_ANSWER_BYTES;

  async function query(name: string, type: string, signal?: AbortSignal): Promise<dnsPacket.Answer[]> {
    let lastTimeout: DnsQueryError | null = null;
    for (let attempt = 0; attempt < options.tries; attempt++) {
      try {
        return await queryOnce(server, name, type, options.timeoutMs, maxBytes, signal);
      } catch (error) {
        if (!(error instanceof DnsQueryError) || error.code !== 'TIMEOUT') throw error;
        lastTimeout = error;
      }
    }
    throw lastTimeout ?? new DnsQueryError('TIMEOUT', `no DNS answer for ${name}`);
  }

  return {
    server,
    async svcb(name, signal) {
      const answers = await query(name, SVCB_TYPE_NAME, signal);
      // dns-packet types no SVCB: it decodes one as UNKNOWN_64 with its RDATA as bytes.
      const records = answers as unknown as Array<{ type: string; data: unknown }>;
      return records.flatMap((a) => (a.type === SVCB_TYPE_NAME ? [readSvcbData(a.data as Buffer, name)] : []));
    },
    async txt(name, signal) {
      const answers = await query(name, 'TXT', signal);
      return answers.flatMap((a) => {
        if (a.type !== 'TXT') return [];
        const chunks = Array.isArray(a.data) ? a.data : [a.data];
        return [chunks.map((c) => (typeof c === 'string' ? c : c.toString('utf8'))).join('')];
      });
    },
  };
}

function systemDnsServer(): DnsServer {
  for (const text of getServers()) {
    const server = parseDnsServer(text);
    if (server) return server;
  }
  throw new DnsQueryError('NETWORK', 'the system has no DNS server configured (node:dns getServers() is empty); set CRAWL_DNS_RESOLVER');
}

function queryOnce(
  server: DnsServer,
  name: string,
  type: string,
  timeoutMs: number,
  maxBytes: number,
  signal?: AbortSignal,
): Promise<dnsPacket.Answer[]> {
  const id = randomInt(0, 65536);
  const request = dnsPacket.encode({
    type: 'query',
    id,
    flags: dnsPacket.RECURSION_DESIRED,
    questions: [{ type: type as dnsPacket.RecordType, name }],
    additionals: [{ type: 'OPT', name: '.', udpPayloadSize: maxBytes } as dnsPacket.Answer],
  });
  const where = `${name} ${type === SVCB_TYPE_NAME ? 'SVCB' : type} from ${server.host}:${server.port}`;
  return new Promise((resolve, reject) => {
    const socket = dgram.createSocket(isIP(server.host) === 6 ? 'udp6' : 'udp4');
    let done = false;
    const finish = (error: Error | null, answers?: dnsPacket.Answer[]) => {
      // Once: a send callback or a late datagram may follow the answer, the deadline or an abort.
      if (done) return;
      done = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      socket.close();
      if (error) reject(error);
      else resolve(answers ?? []);
    };
    const onAbort = () =>
      finish(signal?.reason instanceof Error ? signal.reason : new DnsQueryError('ABORTED', `DNS query aborted: ${where}`));
    const timer = setTimeout(() => finish(new DnsQueryError('TIMEOUT', `no DNS answer within ${timeoutMs} ms: ${where}`)), timeoutMs);
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    socket.on('error', (error) => finish(new DnsQueryError('NETWORK', `DNS query failed: ${where}: ${error.message}`, error)));
    socket.on('message', (message, from) => {
      // Anything but the server asked, with this query's id, is not an answer (RFC 5452 §9.1): keep waiting.
      if (from.address !== server.host || from.port !== server.port || message.length < 12 || message.readUInt16BE(0) !== id) return;
      if (message.length > maxBytes) {
        return finish(new DnsQueryError('BODY_TOO_LARGE', `DNS answer of ${message.length} bytes, over ${maxBytes}: ${where}`));
      }
      let packet: dnsPacket.DecodedPacket;
      try {
        packet = dnsPacket.decode(message);
      } catch (error) {
        return finish(new DnsQueryError('NETWORK', `malformed DNS answer: ${where}`, error));
      }
      const question = packet.questions?.[0];
      if (packet.type !== 'response' || question?.name.toLowerCase() !== name.toLowerCase() || question.type !== type) {
        return finish(new DnsQueryError('NETWORK', `DNS answer does not answer the question asked: ${where}`));
      }
      if ((packet.flags ?? 0) & dnsPacket.TRUNCATED_RESPONSE) {
        return finish(new DnsQueryError('BODY_TOO_LARGE', `DNS answer truncated (over ${maxBytes} bytes; TCP is not used): ${where}`));
      }
      const rcode = (packet as { rcode?: string }).rcode ?? 'NOERROR';
      if (rcode === 'NXDOMAIN') return finish(null, []);
      if (rcode !== 'NOERROR') return finish(new DnsQueryError('NETWORK', `DNS server answered ${rcode}: ${where}`));
      finish(null, packet.answers ?? []);
    });
    socket.send(request, server.port, server.host, (error) => {
      if (error) finish(new DnsQueryError('NETWORK', `DNS query could not be sent: ${where}: ${error.message}`, error));
    });
  });
}

/** SVCB RDATA (RFC 9460 §2.2): SvcPriority, TargetName (uncompressed), then SvcParams in increasing key order. */
export function readSvcbData(data: Buffer, owner: string): SvcbRecord {
  const bad = (why: string) => new DnsQueryError('NETWORK', `malformed SVCB record at ${owner}: ${why}`);
  if (!Buffer.isBuffer(data) || data.length < 3) throw bad('shorter than its fixed fields');
  const priority = data.readUInt16BE(0);
  const labels: string[] = [];
  let offset = 2;
  for (;;) {
    if (offset >= data.length) throw bad('TargetName runs past the record');
    const length = data[offset++];
    if (length === 0) break;
    if (length > 63) throw bad('TargetName is compressed or has a label over 63 bytes');
    if (offset + length > data.length) throw bad('TargetName runs past the record');
    labels.push(data.toString('latin1', offset, offset + length));
    offset += length;
  }
  const params = new Map<number, Buffer>();
  let previous = -1;
  while (offset < data.length) {
    if (offset + 4 > data.length) throw bad('a SvcParam runs past the record');
    const key = data.readUInt16BE(offset);
    const length = data.readUInt16BE(offset + 2);
    offset += 4;
    if (key <= previous) throw bad('SvcParamKeys are not in increasing order');
    if (offset + length > data.length) throw bad(`SvcParam key${key} runs past the record`);
    params.set(key, data.subarray(offset, offset + length));
    previous = key;
    offset += length;
  }
  return { priority, target: labels.length === 0 ? '.' : labels.join('.'), params };
}
