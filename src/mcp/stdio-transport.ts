// The SDK's stdio transport and JSON-RPC message type, for the command line: `ard-registry mcp` loads this
// small module alone (not the tools or express) so it answers `initialize` before anything heavy loads.
export { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
export type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
