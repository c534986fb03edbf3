// Does a publisher with 10 MB entries hold the registry's event loop? A registry (its own process, on
// PostgreSQL) crawls a publisher (another process) whose nested catalogs each hold one entry with a 10 MB
// description, name or tag, while this process asks /healthz every 10 ms; the same probes with nothing
// crawled are the baseline, printed side by side with the machine's load.
//   npm run bench:hostile [-- --rounds 3]
// BENCH_NODE_ARGS adds node options to the registry's process, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" (bench-util.ts).
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { startRemotePublisher } from '../test/helpers/remote-publisher';
import { adminStatement, BENCH_ADMIN_URL, startBenchRegistry } from './bench-util';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '3' }, size: { type: 'string', default: '10000000' } } });
const ROUNDS = Number(values.rounds);
const SIZE = Number(values.size);
const TOKEN = randomBytes(16).toString('hex');

interface Probes {
  latencies: number[];
  load: number;
}

/** /healthz round trips, one every 10 ms, until `until` settles. */
async function probe(base: string, until: Promise<unknown>): Promise<Probes> {
  let done = false;
  void until.finally(() => (done = true)).catch(() => undefined);
  const latencies: number[] = [];
  while (!done) {
    const started = performance.now();
    const res = await fetch(`${base}/healthz`);
    await res.arrayBuffer();
    latencies.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return { latencies, load: os.loadavg()[0]! };
}

async function crawl(base: string, id: string): Promise<unknown> {
  const headers = { authorization: `Bearer ${TOKEN}` };
  type View = {
    crawling?: boolean;
    lastCrawl?: { at: string; status: string; error: string | null; report: { rejected: unknown[] } | null };
  };
  const view = async () => (await (await fetch(`${base}/admin/sources/${id}`, { headers })).json()) as View;
  const before = (await view()).lastCrawl?.at;
  const started = await fetch(`${base}/admin/sources/${id}/crawl`, { method: 'POST', headers });
  if (started.status !== 202) throw new Error(`crawl answered ${started.status}: ${await started.text()}`);
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const { crawling, lastCrawl } = await view();
    if (!crawling && lastCrawl && lastCrawl.at !== before) return lastCrawl;
  }
}

const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

async function main(): Promise<void> {
  const name = `ard_bench_hostile_${randomBytes(4).toString('hex')}`;
  const url = new URL(BENCH_ADMIN_URL);
  url.pathname = `/${name}`;
  await adminStatement(`CREATE DATABASE ${name}`);
  const publisher = await startRemotePublisher(SIZE, 20);
  let registry: Awaited<ReturnType<typeof startBenchRegistry>> | undefined;
  try {
    registry = await startBenchRegistry(
      url.toString(),
      { ADMIN_TOKEN: TOKEN, CRAWL_ALLOW_PRIVATE: 'true', CRAWL_SCHEDULER: 'false' },
      'ignore',
    );
    const { base } = registry;
    const source = await fetch(`${base}/admin/sources`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ location: `http://127.0.0.1:${publisher.port}`, trusted: true }),
    });
    const { id } = (await source.json()) as { id: string };
    const idle: Probes[] = [];
    const crawling: Probes[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      idle.push(await probe(base, new Promise((resolve) => setTimeout(resolve, 3000))));
      const report = crawl(base, id);
      crawling.push(await probe(base, report));
      const last = (await report) as { status: string; error: string | null; report: { rejected: unknown[] } | null };
      if (round === 0) console.log(`crawl: ${last.status}, ${last.report?.rejected.length ?? 0} entries rejected ${last.error ?? ''}`);
    }
    const rows = [
      ['nothing crawled (baseline)', idle],
      [`crawling 3 x ${(SIZE / 1e6).toFixed(0)} MB entries`, crawling],
    ] as const;
    console.log(`/healthz from another process every 10 ms, ${ROUNDS} rounds; ${os.cpus().length} cores`);
    console.log(['', 'probes', 'p50 ms', 'p99 ms', 'max ms', 'target', 'load (1 min)'].join('\t'));
    for (const [label, runs] of rows) {
      const all = runs.flatMap((r) => r.latencies);
      console.log(
        [
          label,
          all.length,
          percentile(all, 50).toFixed(1),
          percentile(all, 99).toFixed(1),
          Math.max(...all).toFixed(1),
          label.startsWith('crawling') ? 'max ≤ 100' : '',
          runs.map((r) => r.load.toFixed(1)).join(' '),
        ].join('\t'),
      );
    }
  } finally {
    await registry?.stop();
    await publisher.close();
    await adminStatement(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
}

void main();
