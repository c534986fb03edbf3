// An MCP server on loopback for liveness probes: the SDK's McpServer behind its Streamable HTTP transport,
// stateless (a server and transport per request), answering in JSON or as an SSE stream.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Route } from './publisher-server';

export function mcpServerRoute(name: string, options: { json: boolean }): Route {
  return (req, res) => {
    const server = new McpServer({ name, version: '1.0.0' });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: options.json });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    server
      .connect(transport)
      .then(() => transport.handleRequest(req, res))
      .catch(() => {
        if (!res.headersSent) res.writeHead(500).end();
      });
  };
}
