// A publisher with huge entries, in a child process as if on another machine: writing 10 MB bodies from the
// process under test would hold the event loop that is being measured. Used by the hostile-publisher test and
// `npm run bench:hostile`; startPublisherProcess runs any such process (bench:crawl's catalogs).
import { spawn } from 'node:child_process';

export interface RemotePublisher {
  port: number;
  close(): Promise<void>;
}

/** Paths of the nested catalogs, each one entry with a `size`-character description, name or tag. */
export const HUGE_CATALOG_PATHS = ['/nested-description.json', '/nested-name.json', '/nested-tag.json'] as const;

/**
 * Serves the three catalogs of HUGE_CATALOG_PATHS (identifiers urn:air:hostile.test:tools:t1..t3), and at
 * /.well-known/ai-catalog.json `smallEntries` ordinary entries plus one catalog entry per nested catalog.
 */
export async function startRemotePublisher(size: number, smallEntries = 0): Promise<RemotePublisher> {
  const program = `
    const http = require('node:http');
    const huge = 'x'.repeat(${size});
    const entry = (i, extra) => ({ identifier: 'urn:air:hostile.test:tools:t' + i, displayName: 'Tool ' + i, type: 'application/ai-skill', url: 'https://hostile.test/skills/' + i, ...extra });
    const bodies = {
      '/nested-description.json': Buffer.from(JSON.stringify({ specVersion: '1.0', entries: [entry(1, { description: huge })] })),
      '/nested-name.json': Buffer.from(JSON.stringify({ specVersion: '1.0', entries: [entry(2, { displayName: huge })] })),
      '/nested-tag.json': Buffer.from(JSON.stringify({ specVersion: '1.0', entries: [entry(3, { tags: [huge] })] })),
    };
    const server = http.createServer((req, res) => {
      if (req.url === '/.well-known/ai-catalog.json') {
        const origin = 'http://' + req.headers.host;
        const small = Array.from({ length: ${smallEntries} }, (_, i) => entry(100 + i, { description: 'Tool number ' + i }));
        const nested = Object.keys(bodies).map((path, i) => ({ identifier: 'urn:air:hostile.test:catalog:n' + i, displayName: 'Nested ' + i, type: 'application/ai-catalog+json', url: origin + path }));
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ specVersion: '1.0', entries: [...small, ...nested] }));
      }
      const body = bodies[req.url];
      if (!body) { res.writeHead(404); return res.end(); }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(body);
    });
    server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\\n'));
    process.stdin.on('end', () => process.exit(0));
    process.stdin.resume();`;
  return startPublisherProcess(['-e', program]);
}

/**
 * Runs `node <args>` as a publisher's process: it prints the port it listens on as its first line of output and
 * exits when its stdin ends (close()).
 */
export async function startPublisherProcess(args: string[]): Promise<RemotePublisher> {
  const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.once('data', (data: Buffer) => resolve(Number(String(data).trim())));
    child.once('exit', (code) => reject(new Error(`publisher exited with ${code}`)));
  });
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.stdin.end();
      }),
  };
}
