import { PassThrough } from 'node:stream';

import { AlexandriaLibraryService } from '../../src/alexandria/library-service';
import { createAlexandriaMcpServer } from '../../src/mcp/alexandria-mcp-server';
import { serveMcpOverStdio } from '../../src/mcp/stdio';
import { InMemoryResourceIndex } from './alexandria-test-double';

function nextMessage(stream: PassThrough): Promise<Record<string, unknown>> {
  return new Promise((resolve) => {
    let buffer = '';
    const onData = (chunk: Buffer): void => {
      buffer += chunk.toString('utf8');
      const newline = buffer.indexOf('\n');
      if (newline >= 0) {
        stream.off('data', onData);
        resolve(JSON.parse(buffer.slice(0, newline)) as Record<string, unknown>);
      }
    };
    stream.on('data', onData);
  });
}

describe('serveMcpOverStdio', () => {
  it('speaks newline-delimited JSON-RPC on the given streams and closes cleanly', async () => {
    const { index, library } = await InMemoryResourceIndex.overShippedLibrary();
    const server = createAlexandriaMcpServer(new AlexandriaLibraryService({ index, topics: library.topics }));
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const handle = await serveMcpOverStdio(server, { stdin, stdout });
    try {
      const send = (message: object): void => {
        stdin.write(`${JSON.stringify(message)}\n`);
      };
      const initialized = nextMessage(stdout);
      send({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      });
      const init = (await initialized) as { result: { serverInfo: { name: string } } };
      expect(init.result.serverInfo.name).toBe('alexandria');
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      const answered = nextMessage(stdout);
      send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_resource', arguments: { id: 'github:letta-ai/letta' } } });
      const reply = (await answered) as { id: number; result: { structuredContent: { id: string; kind: string } } };
      expect(reply.id).toBe(2);
      expect(reply.result.structuredContent).toMatchObject({ id: 'github:letta-ai/letta', kind: 'repo' });
    } finally {
      await handle.close();
    }
  });
});
