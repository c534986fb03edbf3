/**
 * MCP over stdio (for local agents that spawn the registry as a subprocess). stdout is the protocol channel:
 * nothing else may write to it while this runs, so loggers must target stderr.
 */
import type { Readable, Writable } from 'node:stream';

import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

export interface StdioMcpHandle {
  /** Closes the server and its transport; resolves when done. */
  close(): Promise<void>;
}

/** Connects `server` to process.stdin/stdout (or the given streams, for tests). */
export async function serveMcpOverStdio(server: McpServer, streams: { stdin?: Readable; stdout?: Writable } = {}): Promise<StdioMcpHandle> {
  const transport = new StdioServerTransport(streams.stdin, streams.stdout);
  await server.connect(transport);
  return { close: () => server.close() };
}
