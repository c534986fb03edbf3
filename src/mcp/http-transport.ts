/**
 * MCP over Streamable HTTP, stateless: every POST gets a fresh server and transport, both closed when the
 * response closes. No session state means any replica can answer any request and nothing leaks between
 * clients. GET (server-initiated SSE stream) and DELETE (session end) have no meaning without sessions: 405.
 */
import { randomUUID } from 'node:crypto';

import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import express from 'express';

import type { ToolErrorLogger } from './alexandria-mcp-server';

export interface MountMcpOptions {
  logger?: ToolErrorLogger;
  /** JSON body cap; tool arguments are a few hundred bytes. */
  bodyLimit?: string;
}

export function mountMcpOverHttp(
  app: express.Express,
  path: string,
  makeServer: () => McpServer | Promise<McpServer>,
  options: MountMcpOptions = {},
): void {
  const logger = options.logger;
  // express.json() leaves an already-parsed body alone, so this is harmless if the app parses JSON globally.
  app.post(path, express.json({ limit: options.bodyLimit ?? '64kb' }), async (req, res) => {
    // The SDK takes an empty batch for a batch of notifications and answers 202: it is no request at all
    // (JSON-RPC 2.0 §6: "an Array with at least one value"), answered as the SDK answers other invalid ones.
    if (Array.isArray(req.body) && req.body.length === 0) {
      res.status(400).json({ jsonrpc: '2.0', error: { code: -32600, message: 'Invalid Request: an empty batch' }, id: null });
      return;
    }
    let server: McpServer | undefined;
    let transport: StreamableHTTPServerTransport | undefined;
    res.on('close', () => {
      void transport?.close().catch(() => undefined);
      void server?.close().catch(() => undefined);
    });
    try {
      server = await makeServer();
      transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
    } catch (err) {
      const requestId = randomUUID();
      logger?.error({ err, requestId, path }, 'mcp http request failed');
      if (!res.headersSent) {
        res.status(500).json({
          jsonrpc: '2.0',
          error: { code: -32603, message: `internal error (request id ${requestId})` },
          id: null,
        });
      }
    }
  });

  const methodNotAllowed = (_req: express.Request, res: express.Response): void => {
    res
      .status(405)
      .set('Allow', 'POST')
      .json({
        jsonrpc: '2.0',
        error: { code: -32000, message: 'Method not allowed: this MCP endpoint is stateless, use POST.' },
        id: null,
      });
  };
  app.get(path, methodNotAllowed);
  app.delete(path, methodNotAllowed);
}
